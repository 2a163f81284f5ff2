package io.sluice.transport.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.SetupInfo;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.exceptions.RejectedException;
import io.sluice.exceptions.SluiceException;
import io.sluice.exceptions.UnsupportedSetupException;
import io.sluice.test.LeakCheckExtension;
import io.sluice.test.TestMessages;
import io.sluice.transport.ServerTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the HTTP/2 stream mapping does beyond the transport kit: errors as trailers, cancel as
 * RST_STREAM, the implied setup on both sides, requests the server cannot start, keepalive as PING,
 * the server's stream limit as REJECTED, graceful close as GOAWAY.
 */
@ExtendWith(LeakCheckExtension.class)
class Http2MappingTest {
  private static final long WAIT = 20;

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final BlockingQueue<Requester> serverSides = new LinkedBlockingQueue<>();
  private final BlockingQueue<SetupInfo> setups = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> cancels = new LinkedBlockingQueue<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  /** Echoes; "error:<text>" fails with that text; "hang" never answers and records cancels. */
  private final class TestResponder implements Responder {
    @Override
    public StreamListener requestResponse(Message request, StreamHandle response) {
      String text = TestMessages.dataAndRelease(request);
      if (text.startsWith("error:")) {
        response.error(new ApplicationErrorException(text.substring(6)));
      } else if (text.equals("hang")) {
        return cancelRecorder(text);
      } else {
        response.nextAndComplete(TestMessages.utf8(response.alloc(), null, text));
      }
      return cancelRecorder(text);
    }

    @Override
    public StreamListener requestStream(Message request, StreamHandle stream) {
      String text = TestMessages.dataAndRelease(request);
      return cancelRecorder(text);
    }

    private StreamListener cancelRecorder(String text) {
      return new StreamListener() {
        @Override
        public void onNext(Message message) {
          message.release();
        }

        @Override
        public void onComplete() {}

        @Override
        public void onError(Throwable cause) {}

        @Override
        public void onCancel() {
          cancels.add(text);
        }
      };
    }
  }

  private InetSocketAddress serve(Http2ServerTransport transport, ConnectionOptions options) throws Exception {
    ServerTransport.Bound bound =
        get(
            Connections.serve(
                transport,
                options,
                (setup, requester) -> {
                  setups.add(setup);
                  serverSides.add(requester);
                  return new TestResponder();
                }));
    toClose.add(bound);
    return (InetSocketAddress) bound.address();
  }

  private InetSocketAddress serve() throws Exception {
    return serve(Http2ServerTransport.create("127.0.0.1", 0), ConnectionOptions.defaults());
  }

  private Requester connect(Http2ClientTransport transport, ConnectionOptions options, ClientSetup setup)
      throws Exception {
    Requester r = get(Connections.connect(transport, options, setup, x -> new Responder() {}));
    toClose.add(r::dispose);
    return r;
  }

  private Requester connect(InetSocketAddress server) throws Exception {
    return connect(
        Http2ClientTransport.create("127.0.0.1", server.getPort()),
        ConnectionOptions.defaults(),
        ClientSetup.defaults());
  }

  private static <T> T get(CompletableFuture<T> f) throws Exception {
    return f.get(WAIT, TimeUnit.SECONDS);
  }

  private static Throwable failure(CompletableFuture<?> f) throws Exception {
    try {
      f.get(WAIT, TimeUnit.SECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  /** A listener that collects messages as text and completes a future with the end. */
  private static final class Collect implements StreamListener {
    final List<String> received = new ArrayList<>();
    final CompletableFuture<Void> ended = new CompletableFuture<>();

    @Override
    public void onNext(Message message) {
      received.add(TestMessages.dataAndRelease(message));
    }

    @Override
    public void onComplete() {
      ended.complete(null);
    }

    @Override
    public void onError(Throwable cause) {
      ended.completeExceptionally(cause);
    }
  }

  private static CompletableFuture<String> requestResponse(Requester r, String text) {
    Collect c = new Collect();
    r.requestResponse(TestMessages.utf8(r.alloc(), null, text), c);
    return c.ended.thenApply(v -> String.join(",", c.received));
  }

  @Test
  void anErrorArrivesAsTrailersWithItsCodeAndMessage() throws Exception {
    Requester client = connect(serve());
    String message = "bad input: ünïcode 100% \r\n and more";
    Throwable error = failure(requestResponse(client, "error:" + message));
    assertThat(error).isInstanceOf(ApplicationErrorException.class).hasMessage(message);
    // The connection is fine afterwards.
    assertThat(get(requestResponse(client, "still here"))).isEqualTo("still here");
  }

  @Test
  void aCancelReachesTheResponderAsAReset() throws Exception {
    Requester client = connect(serve());
    Collect c = new Collect();
    StreamHandle h = client.requestStream(TestMessages.utf8(client.alloc(), null, "endless"), 1, c);
    Requester server = serverSides.poll(WAIT, TimeUnit.SECONDS);
    assertThat(server).isNotNull();
    // The server has the stream once its responder exists; cancel after a round trip.
    assertThat(get(requestResponse(client, "ping"))).isEqualTo("ping");
    client.executor().execute(h::cancel);
    assertThat(cancels.poll(WAIT, TimeUnit.SECONDS)).isEqualTo("endless");
    assertThat(get(requestResponse(client, "after"))).isEqualTo("after");
  }

  @Test
  void aCancelAfterTheClientsHalfEndedStillReachesTheResponder() throws Exception {
    // A request-response and an unbounded request-stream end the client's half with the request.
    Requester client = connect(serve());
    Collect rr = new Collect();
    StreamHandle response = client.requestResponse(TestMessages.utf8(client.alloc(), null, "hang"), rr);
    Collect stream = new Collect();
    StreamHandle unbounded =
        client.requestStream(TestMessages.utf8(client.alloc(), null, "unbounded"), Long.MAX_VALUE, stream);
    assertThat(get(requestResponse(client, "ping"))).isEqualTo("ping");
    client.executor().execute(response::cancel);
    assertThat(cancels.poll(WAIT, TimeUnit.SECONDS)).isEqualTo("hang");
    client.executor().execute(unbounded::cancel);
    assertThat(cancels.poll(WAIT, TimeUnit.SECONDS)).isEqualTo("unbounded");
  }

  @Test
  void theServerSeesTheImpliedSetup() throws Exception {
    Requester client = connect(serve());
    assertThat(get(requestResponse(client, "x"))).isEqualTo("x");
    SetupInfo setup = setups.poll(WAIT, TimeUnit.SECONDS);
    assertThat(setup).isNotNull();
    assertThat(setup.keepAliveIntervalMillis()).isEqualTo(Integer.MAX_VALUE);
    assertThat(setup.keepAliveMaxLifetimeMillis()).isEqualTo(Integer.MAX_VALUE);
    assertThat(setup.metadataMimeType()).isEqualTo("application/binary");
    assertThat(setup.dataMimeType()).isEqualTo("application/binary");
    assertThat(setup.leaseRequested()).isFalse();
  }

  @Test
  void aSetupPayloadOrALeaseCannotBeCarried() throws Exception {
    InetSocketAddress server = serve();
    Http2ClientTransport t = Http2ClientTransport.create("127.0.0.1", server.getPort());
    // As on any transport, the connect completes once SETUP is out; the refusal closes it.
    Requester withPayload =
        connect(
            t,
            ConnectionOptions.defaults(),
            ClientSetup.of("application/binary", "application/binary", TestMessages.utf8("hello")));
    assertThat(failure(withPayload.onClose()))
        .isInstanceOf(UnsupportedSetupException.class)
        .hasMessageContaining("setup payload");
    Throwable lease =
        failure(
            Connections.connect(
                    t,
                    ConnectionOptions.defaults().toBuilder().lease(true).build(),
                    ClientSetup.defaults(),
                    x -> new Responder() {})
                .thenCompose(Requester::onClose));
    assertThat(lease).isInstanceOf(UnsupportedSetupException.class).hasMessageContaining("lease");
  }

  @Test
  void requestsTheServerStartsAreRejected() throws Exception {
    Requester client = connect(serve());
    assertThat(get(requestResponse(client, "x"))).isEqualTo("x");
    Requester server = serverSides.poll(WAIT, TimeUnit.SECONDS);
    assertThat(server).isNotNull();
    CompletableFuture<String> answer = new CompletableFuture<>();
    server.executor().execute(() -> requestResponse(server, "to the client").whenComplete((v, e) -> {
      if (e != null) {
        answer.completeExceptionally(e);
      } else {
        answer.complete(v);
      }
    }));
    Throwable error = failure(answer);
    assertThat(error).isInstanceOf(RejectedException.class).hasMessageContaining("only requests the client starts");
  }

  @Test
  void keepaliveIsPingAndKeepsTheServerSatisfied() throws Exception {
    // The server gives up on a client it has not heard from in 500 ms; the client pings every 100.
    InetSocketAddress address =
        serve(
            Http2ServerTransport.create("127.0.0.1", 0),
            ConnectionOptions.defaults().toBuilder()
                .minPeerKeepAliveInterval(Duration.ofMillis(10))
                .maxPeerKeepAliveLifetime(Duration.ofMillis(500))
                .build());
    int pings = 12; // 12 x 100 ms: well beyond the server's 500 ms
    CountDownLatch rtts = new CountDownLatch(pings);
    AtomicReference<Long> lastRtt = new AtomicReference<>();
    Requester client =
        connect(
            Http2ClientTransport.create("127.0.0.1", address.getPort())
                .withKeepAliveRttListener(
                    nanos -> {
                      lastRtt.set(nanos);
                      rtts.countDown();
                    }),
            ConnectionOptions.defaults().toBuilder()
                .keepAlive(Duration.ofMillis(100), Duration.ofSeconds(5))
                .build(),
            ClientSetup.defaults());
    assertThat(get(requestResponse(client, "x"))).isEqualTo("x");
    assertThat(rtts.await(WAIT, TimeUnit.SECONDS)).isTrue();
    assertThat(lastRtt.get()).isPositive();
    assertThat(client.isOpen()).isTrue();
    assertThat(get(requestResponse(client, "still open"))).isEqualTo("still open");
  }

  @Test
  void streamsBeyondTheServersLimitAreRejected() throws Exception {
    Requester client =
        connect(serve(Http2ServerTransport.create("127.0.0.1", 0).withMaxConcurrentStreams(2), ConnectionOptions.defaults()));
    // The client learns the limit from the server's SETTINGS, which precede any answer.
    assertThat(get(requestResponse(client, "x"))).isEqualTo("x");
    CompletableFuture<String> first = requestResponse(client, "hang");
    CompletableFuture<String> second = requestResponse(client, "hang");
    Throwable third = failure(requestResponse(client, "hang"));
    assertThat(third).isInstanceOf(RejectedException.class).hasMessageContaining("concurrent streams");
    assertThat(first).isNotDone();
    assertThat(second).isNotDone();
  }

  @Test
  void theServersGracefulCloseReachesTheClient() throws Exception {
    Requester client = connect(serve());
    assertThat(get(requestResponse(client, "x"))).isEqualTo("x");
    Requester server = serverSides.poll(WAIT, TimeUnit.SECONDS);
    assertThat(server).isNotNull();
    server.close();
    Throwable closed = failure(client.onClose());
    if (closed != null) {
      assertThat(closed).isInstanceOf(SluiceException.class);
    }
    assertThat(client.isOpen()).isFalse();
  }

  @Test
  void framesLargerThanTheDefaultWindowsStillArriveWhole() throws Exception {
    // Frames of up to 3 MiB, unfragmented: more than the 1 MiB stream window a peer starts with.
    ConnectionOptions big =
        ConnectionOptions.defaults().toBuilder().maxFrameSize(3 << 20).mtu(0).maxReassembledSize(3 << 20).build();
    InetSocketAddress address = serve(Http2ServerTransport.create("127.0.0.1", 0), big);
    Requester client =
        connect(Http2ClientTransport.create("127.0.0.1", address.getPort()), big, ClientSetup.defaults());
    String text = "x".repeat((5 << 20) / 2);
    assertThat(get(requestResponse(client, text))).hasSize(text.length());
  }

  @Test
  void bytesOfUnfinishedFramesStayChargedToTheWindows() throws Exception {
    InetSocketAddress address = serve();
    try (RawH2 attacker = RawH2.client(address.getPort())) {
      // Eight streams, each a frame that claims 1,000,000 bytes and sends 400 KiB of them:
      // 3.2 MiB held in unfinished frames, beyond half the 4 MiB connection window.
      String head = "0f4240" + "00000001" + "2800"; // u24 1,000,000; stream 1; PAYLOAD (ignored)
      String chunk = "00".repeat(16 * 1024);
      for (int s = 1; s <= 15; s += 2) {
        attacker.headers(s, requestHeaders(), false);
        attacker.data(s, head, false);
        for (int i = 0; i < 25; i++) {
          attacker.data(s, chunk, false);
        }
      }
      attacker.ping(42);
      List<RawH2.Event> before = attacker.untilPingAck(42);
      // The server's preface opens the connection window once (to 4 MiB); nothing after it.
      assertThat(before.stream().filter(e -> e.kind().equals("WINDOW_UPDATE") && e.streamId() != 0))
          .as("stream window updates for bytes of unfinished frames")
          .isEmpty();
      assertThat(before.stream().filter(e -> e.kind().equals("WINDOW_UPDATE") && e.streamId() == 0))
          .as("connection window updates")
          .hasSizeLessThanOrEqualTo(1);
    }
    // The server is fine.
    assertThat(get(requestResponse(connect(address), "after"))).isEqualTo("after");
  }

  @Test
  void anAbruptCloseIsAGoAwayThatSaysSo() throws Exception {
    InetSocketAddress address = serve();
    try (RawH2 client = RawH2.client(address.getPort())) {
      client.headers(1, requestHeaders(), false);
      client.data(1, "00000a" + "00000001" + "1800" + "7fffffff", false); // REQUEST_STREAM, n unbounded
      Requester server = serverSides.poll(WAIT, TimeUnit.SECONDS);
      assertThat(server).isNotNull();
      // Once the PING is answered the server has read all we sent: closing with input unread
      // would make the kernel reset the connection, which may drop the GOAWAY before we read it.
      client.ping(7);
      client.untilPingAck(7);
      server.dispose(); // no ERROR frame: the transport is just closed
      RawH2.Event goAway;
      do {
        goAway = client.next();
      } while (!goAway.kind().equals("GOAWAY"));
      // Not netty's bare GOAWAY(NO_ERROR), which reads as a graceful close (streams would be
      // waited for): CONNECTION_ERROR in the debug data.
      assertThat(goAway.hex()).startsWith("0x00000101:");
    }
  }

  private static io.netty.handler.codec.http2.Http2Headers requestHeaders() {
    return new io.netty.handler.codec.http2.DefaultHttp2Headers()
        .method("POST")
        .scheme("http")
        .authority("127.0.0.1")
        .path("/rsocket/stream")
        .add("content-type", "application/rsocket+http2");
  }
}
