package io.sluice.transport.http2;

import static io.sluice.transport.http2.RawH2Peer.concat;
import static io.sluice.transport.http2.RawH2Peer.data;
import static io.sluice.transport.http2.RawH2Peer.headers;
import static io.sluice.transport.http2.RawH2Peer.requestBlock;
import static io.sluice.transport.http2.RawH2Peer.requestStream;
import static io.sluice.transport.http2.RawH2Peer.rsocketData;
import static io.sluice.transport.http2.RawH2Peer.rstStream;
import static io.sluice.transport.http2.RawH2Peer.streamRequestHeaders;
import static io.sluice.transport.http2.RawH2Peer.windowUpdate;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http2.Http2Error;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.test.FrameBuilder;
import io.sluice.test.LeakCheckExtension;
import io.sluice.test.TestMessages;
import io.sluice.transport.ServerTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What resets cost a connection of the stream mapping: ordinary cancels and refused requests keep
 * it (however many), streams reset before the server answered them (rapid reset, CVE-2023-44487)
 * are bounded by {@link Http2ServerTransport#withMaxEarlyResets}, and the frames a client sent
 * before it saw our reset are ignored (RFC 9113 5.1), never answered.
 */
@ExtendWith(LeakCheckExtension.class)
class Http2ResetsTest {
  private static final long WAIT = 20;
  private static final Duration GUARD = Duration.ofSeconds(20);

  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  /**
   * request-stream: one item (its request's text) now, then nothing, the stream open until
   * cancelled; "many": as many items as the requester asks for.
   */
  private static final class OneThenHang implements Responder {
    @Override
    public StreamListener requestStream(Message request, StreamHandle stream) {
      String text = TestMessages.dataAndRelease(request);
      return new StreamListener() {
        private boolean sent;

        @Override
        public void onRequest(long n) {
          if (text.equals("many")) { // as many as asked for, at most 1,000 at a time
            for (long i = 0; i < Math.min(n, 1000); i++) {
              stream.next(TestMessages.utf8(stream.alloc(), null, "item " + i));
            }
          } else if (!sent) {
            sent = true;
            stream.next(TestMessages.utf8(stream.alloc(), null, text));
          }
        }

        @Override
        public void onNext(Message message) {
          message.release();
        }

        @Override
        public void onComplete() {}

        @Override
        public void onError(Throwable cause) {}
      };
    }

    @Override
    public StreamListener requestResponse(Message request, StreamHandle response) {
      String text = TestMessages.dataAndRelease(request);
      response.nextAndComplete(TestMessages.utf8(response.alloc(), null, text));
      return StreamListener.DISCARDING;
    }
  }

  private InetSocketAddress serve(ServerTransport transport) throws Exception {
    ServerTransport.Bound bound =
        Connections.serve(transport, ConnectionOptions.defaults(), (setup, requester) -> new OneThenHang())
            .get(WAIT, TimeUnit.SECONDS);
    toClose.add(bound);
    return (InetSocketAddress) bound.address();
  }

  private Requester connect(InetSocketAddress server) throws Exception {
    Requester r =
        Connections.connect(
                Http2ClientTransport.create("127.0.0.1", server.getPort()),
                ConnectionOptions.defaults(),
                ClientSetup.defaults(),
                x -> new Responder() {})
            .get(WAIT, TimeUnit.SECONDS);
    toClose.add(r::dispose);
    return r;
  }

  /** Collects the first item of a stream; cancels the stream once it has it. */
  private static final class FirstThenCancel implements StreamListener {
    final CompletableFuture<String> first = new CompletableFuture<>();
    StreamHandle handle;

    @Override
    public void onNext(Message message) {
      first.complete(TestMessages.dataAndRelease(message));
      handle.cancel(); // on the requester's event loop, as a take(1) would
    }

    @Override
    public void onComplete() {
      first.completeExceptionally(new AssertionError("completed"));
    }

    @Override
    public void onError(Throwable cause) {
      first.completeExceptionally(cause);
    }
  }

  @Test
  void aThousandCancelsAfterTheFirstItemKeepTheConnection() throws Exception {
    Requester client = connect(serve(Http2ServerTransport.create("127.0.0.1", 0)));
    for (int i = 0; i < 1000; i++) {
      FirstThenCancel l = new FirstThenCancel();
      String text = "item " + i;
      CompletableFuture<Void> started = new CompletableFuture<>();
      client.executor().execute(() -> {
        l.handle = client.requestStream(TestMessages.utf8(client.alloc(), null, text), 1, l);
        started.complete(null);
      });
      started.get(WAIT, TimeUnit.SECONDS);
      assertThat(l.first.get(WAIT, TimeUnit.SECONDS)).as("first item of stream %d", i).isEqualTo(text);
    }
    // Still the same connection, and it still serves.
    assertThat(client.isOpen()).as("the connection is open after 1,000 cancels").isTrue();
    FirstThenCancel last = new FirstThenCancel();
    CompletableFuture<Void> started = new CompletableFuture<>();
    client.executor().execute(() -> {
      last.handle = client.requestStream(TestMessages.utf8(client.alloc(), null, "last"), 1, last);
      started.complete(null);
    });
    started.get(WAIT, TimeUnit.SECONDS);
    assertThat(last.first.get(WAIT, TimeUnit.SECONDS)).isEqualTo("last");
    assertThat(client.onClose()).as("the client's connection never closed").isNotDone();
  }

  @Test
  void cancelsOfStreamsWithDataQueuedDrawNoResetBack() throws Exception {
    InetSocketAddress server = serve(Http2ServerTransport.create("127.0.0.1", 0));
    // Stream windows of 100 bytes: most of what the server sends waits in its flow controller
    // (50 items of a dozen bytes and more each: 100 bytes go out, the rest is queued when the cancel
    // comes; more items would only queue more of the same, each a buffer the paranoid leak
    // detector tracks).
    try (RawH2Peer p = RawH2Peer.handshake(server.getPort(), RawH2Peer.SETTINGS_INITIAL_WINDOW_SIZE, 100)) {
      for (int i = 0; i < 300; i++) {
        int id = 2 * i + 1;
        p.send(requestStream(id, 50, "many"));
        p.await(x -> x.dataBytes.containsKey(id) || x.goAway != null, GUARD);
        p.send(rstStream(id, Http2Error.CANCEL));
      }
      assertThat(p.pingFence(1)).as("PING answered").isTrue();
      assertThat(p.goAway).as("no GOAWAY").isNull();
      assertThat(p.resets).as("no reset in answer to the client's").isEmpty();
    }
  }

  @Test
  void aThousandRequestsAnsweredBeforeTheirEndKeepTheConnection() throws Exception {
    InetSocketAddress server = serve(Http2ServerTransport.create("127.0.0.1", 0));
    try (RawH2Peer p = RawH2Peer.handshake(server.getPort())) {
      p.send(windowUpdate(0, 1 << 30)); // room for every answer's body
      byte[] block = requestBlock("/rsocket/nowhere");
      for (int round = 0; round < 10; round++) {
        int base = round * 100;
        // A 404 for each (answered on its HEADERS), then the rest of each request.
        p.send(RawH2Peer.repeat(100, i -> {
          int id = 2 * (base + i) + 1;
          return concat(headers(id, false, block), data(id, true, new byte[16]));
        }));
        assertThat(p.pingFence(round)).as("PING answered after round %d", round).isTrue();
      }
      p.await(x -> x.headers.size() >= 1000 || x.goAway != null, GUARD);
      assertThat(p.goAway).as("no GOAWAY").isNull();
      assertThat(p.resets).as("no stream reset").isEmpty();
      for (int i = 0; i < 1000; i++) {
        assertThat(p.status(2 * i + 1)).as(":status of stream %d", 2 * i + 1).isEqualTo("404");
      }
      assertThat(p.closed).isFalse();
    }
  }

  @Test
  void framesOnAStreamTheServerResetAreIgnoredAfterManyIdGaps() throws Exception {
    InetSocketAddress server = serve(Http2ServerTransport.create("127.0.0.1", 0));
    try (RawH2Peer p = RawH2Peer.handshake(server.getPort())) {
      // 70 requests on ids 1, 5, 9, ...: 69 ids skipped (3, 7, ...), each a gap the server keeps.
      p.send(RawH2Peer.repeat(70, i -> requestStream(4 * i + 1, 1, "x")));
      int reset = 4 * 70 + 1;
      // A stream the server resets (its first RSocket frame is not a request) ...
      p.send(concat(streamRequestHeaders(reset),
          rsocketData(reset, false, FrameBuilder.payload(1, true, false).data("x").toBytes())));
      p.await(x -> x.resets.containsKey(reset) || x.goAway != null, GUARD);
      assertThat(p.resets).containsEntry(reset, Http2Error.PROTOCOL_ERROR.code());
      // ... a stream above it, then what the client had sent on the reset one before it knew.
      p.send(concat(requestStream(reset + 2, 1, "y"), data(reset, false, new byte[8]),
          headers(reset, true, RawH2Peer.Hpack.block("x-trailer", "1"))));
      assertThat(p.pingFence(7)).as("PING answered").isTrue();
      assertThat(p.goAway).as("no GOAWAY").isNull();
      assertThat(p.resets).as("only the one reset").hasSize(1);
    }
  }

  @Test
  void earlyResetsBeyondTheBoundCloseTheConnectionAndLateOnesDoNot() throws Exception {
    InetSocketAddress server =
        serve(Http2ServerTransport.create("127.0.0.1", 0).withMaxEarlyResets(100, Duration.ofSeconds(60)));
    try (RawH2Peer p = RawH2Peer.handshake(server.getPort())) {
      // 300 streams reset after their first item: ordinary cancels, not counted.
      for (int i = 0; i < 300; i++) {
        int id = 2 * i + 1;
        p.send(requestStream(id, 1, "x"));
        p.await(x -> x.dataBytes.containsKey(id) || x.goAway != null, GUARD);
        p.send(rstStream(id, Http2Error.CANCEL));
      }
      assertThat(p.pingFence(1)).isTrue();
      assertThat(p.goAway).as("no GOAWAY after 300 cancels of answered streams").isNull();
      // Then HEADERS and RST_STREAM at once, rapid reset: the 101st is one too many.
      int base = 601;
      p.send(RawH2Peer.repeat(101, i -> {
        int id = base + 2 * i;
        return concat(streamRequestHeaders(id), rstStream(id, Http2Error.CANCEL));
      }));
      RawH2Peer.GoAway g = p.awaitGoAway(GUARD);
      assertThat(g).as("GOAWAY").isNotNull();
      assertThat(RawH2Peer.name(g.errorCode())).isEqualTo(Http2Error.ENHANCE_YOUR_CALM.name());
      assertThat(p.awaitClosed(GUARD)).as("closed after the GOAWAY").isTrue();
    }
  }

  @Test
  void theWebSocketServerBoundsEarlyResetsAsItIsTold() throws Exception {
    // WebSocket over HTTP/2 shares the dedicated servers' settings: its bound on early resets is
    // configurable as the mapping's is. Its CONNECTs (or here, any request) reset before an answer
    // count alike; the sixth of a bound of five is one too many.
    InetSocketAddress server =
        serve(WebSocketOverHttp2ServerTransport.create("127.0.0.1", 0).withMaxEarlyResets(5, Duration.ofSeconds(60)));
    try (RawH2Peer p = RawH2Peer.handshake(server.getPort())) {
      p.send(RawH2Peer.repeat(6, i -> concat(streamRequestHeaders(1 + 2 * i), rstStream(1 + 2 * i, Http2Error.CANCEL))));
      RawH2Peer.GoAway g = p.awaitGoAway(GUARD);
      assertThat(g).as("GOAWAY").isNotNull();
      assertThat(RawH2Peer.name(g.errorCode())).isEqualTo(Http2Error.ENHANCE_YOUR_CALM.name());
      assertThat(p.awaitClosed(GUARD)).as("closed after the GOAWAY").isTrue();
    }
  }

  @Test
  void theWebSocketServersEarlyResetArgumentsAreChecked() {
    WebSocketOverHttp2ServerTransport t = WebSocketOverHttp2ServerTransport.create("127.0.0.1", 0);
    assertThatThrownBy(() -> t.withMaxEarlyResets(0, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1");
    assertThatThrownBy(() -> t.withMaxEarlyResets(5, Duration.ofHours(2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1 ms..1 h");
  }
}
