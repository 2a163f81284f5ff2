package io.sluice.transport.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.SluiceServer;
import io.sluice.test.TestMessages;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The HTTP/2 servers of this module stop as every HTTP/2 server here does ({@code
 * GrpcServerStopTest} and {@code GrpcOnePortStopTest} hold the gRPC and one-port ones to the same):
 * a stop tells the client to start nothing new (GOAWAY: its next request fails), a stream in
 * flight finishes and the stop waits for it; one still open when the grace is over is cut, and the
 * stop completes then.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS) // hang guard only
class Http2ServerStopTest {
  private static final long WAIT = 30; // seconds; hang guard only

  /** The server kinds, each with its client. */
  enum Kind {
    STREAM_MAPPING(
        () -> Http2ServerTransport.create("127.0.0.1", 0), port -> Http2ClientTransport.create("127.0.0.1", port)),
    WEBSOCKET_OVER_HTTP2(
        () -> WebSocketOverHttp2ServerTransport.create("127.0.0.1", 0),
        port -> WebSocketOverHttp2ClientTransport.create("127.0.0.1", port));

    final java.util.function.Supplier<ServerTransport> server;
    final IntFunction<ClientTransport> client;

    Kind(java.util.function.Supplier<ServerTransport> server, IntFunction<ClientTransport> client) {
      this.server = server;
      this.client = client;
    }
  }

  private final BlockingQueue<StreamHandle> held = new LinkedBlockingQueue<>();
  /** The demand the server's request-streams heard of, in order. */
  private final BlockingQueue<Long> demand = new LinkedBlockingQueue<>();
  /** The client's side of the live stream of {@link #serveAndConnect}. */
  private StreamHandle liveHandle;
  private final List<Requester> clients = new ArrayList<>();
  private SluiceServer server;

  @AfterEach
  void close() throws Exception {
    clients.forEach(Requester::dispose);
    if (server != null) {
      server.stop(Duration.ZERO).get(WAIT, TimeUnit.SECONDS);
    }
  }

  /** A listener that records what reaches it. */
  private static final class Events implements StreamListener {
    final BlockingQueue<String> events = new LinkedBlockingQueue<>();

    @Override
    public void onNext(Message message) {
      events.add("next " + TestMessages.dataAndRelease(message));
    }

    @Override
    public void onComplete() {
      events.add("complete");
    }

    @Override
    public void onError(Throwable cause) {
      events.add("error");
    }

    String take() throws InterruptedException {
      String e = events.poll(WAIT, TimeUnit.SECONDS);
      assertThat(e).as("a signal").isNotNull();
      return e;
    }
  }

  /** A server whose request-streams wait for the test; a client with one such stream live. */
  private Requester serveAndConnect(Kind kind, Events live) throws Exception {
    server =
        Connections.start(
                kind.server.get(),
                ConnectionOptions.defaults(),
                (setup, requester) ->
                    new Responder() {
                      @Override
                      public StreamListener requestResponse(Message request, StreamHandle response) {
                        request.release();
                        response.nextAndComplete(TestMessages.pooled("served"));
                        return StreamListener.DISCARDING;
                      }

                      @Override
                      public StreamListener requestStream(Message request, StreamHandle stream) {
                        request.release();
                        held.add(stream);
                        return new StreamListener() {
                          @Override
                          public void onRequest(long n) {
                            demand.add(n);
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
                    })
            .get(WAIT, TimeUnit.SECONDS);
    int port = ((InetSocketAddress) server.address()).getPort();
    Requester client =
        Connections.connect(kind.client.apply(port), ConnectionOptions.defaults(), ClientSetup.defaults(), r -> new Responder() {})
            .get(WAIT, TimeUnit.SECONDS);
    clients.add(client);
    liveHandle = client.requestStream(TestMessages.pooled("live"), 1, live);
    return client;
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aStreamInFlightFinishesAndTheStopWaitsForIt(Kind kind) throws Exception {
    Events live = new Events();
    Requester client = serveAndConnect(kind, live);
    StreamHandle stream = held.poll(WAIT, TimeUnit.SECONDS);
    assertThat(stream).as("the request reached the server").isNotNull();

    CompletableFuture<Void> stopped = server.stop(Duration.ofSeconds(WAIT * 2));
    server.onClose().get(WAIT, TimeUnit.SECONDS);
    // GOAWAY: the client starts nothing new on this connection. A request it sent before the
    // GOAWAY reached it is refused too (above the GOAWAY's last stream), and what the client sends
    // on that stream meanwhile must not end the connection and the live stream with it.
    String lateSignal = null;
    for (int i = 0; i < 200 && lateSignal == null; i++) {
      Events late = new Events();
      client.requestResponse(TestMessages.pooled("late"), late);
      lateSignal = late.take();
      if (!lateSignal.equals("error")) {
        lateSignal = null; // the GOAWAY has not reached the client yet: the request was served
        Thread.sleep(50);
      }
    }
    assertThat(lateSignal).as("a request after the stop is refused").isEqualTo("error");
    assertThat(stopped).as("the stop waits for the stream in flight").isNotDone();

    assertThat(demand.poll(WAIT, TimeUnit.SECONDS)).as("the live stream's first demand").isEqualTo(1L);
    stream.next(TestMessages.pooled("1"));
    assertThat(live.take()).isEqualTo("next 1");
    // The server still reads this connection after the late request's frames: more demand from
    // the client reaches it (a reader that stopped at those frames would leave the stream waiting
    // until the grace is over).
    liveHandle.request(1);
    assertThat(demand.poll(WAIT, TimeUnit.SECONDS)).as("demand sent after the late request").isEqualTo(1L);
    stream.nextAndComplete(TestMessages.pooled("2"));
    assertThat(live.take()).isEqualTo("next 2");
    assertThat(live.take()).isEqualTo("complete");
    stopped.get(WAIT, TimeUnit.SECONDS);
    assertThat(server.connections()).isZero();
    client.onClose().get(WAIT, TimeUnit.SECONDS);
  }

  /**
   * A connection with nothing in flight ends at the stop, not when a long grace is over: netty's
   * close after the GOAWAY waits for an empty write to go out, which must complete like any other.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aConnectionWithNothingInFlightEndsAtTheStop(Kind kind) throws Exception {
    Events live = new Events();
    Requester client = serveAndConnect(kind, live);
    StreamHandle stream = held.poll(WAIT, TimeUnit.SECONDS);
    assertThat(stream).as("the request reached the server").isNotNull();
    stream.nextAndComplete(TestMessages.pooled("only"));
    assertThat(live.take()).isEqualTo("next only");
    assertThat(live.take()).isEqualTo("complete");

    // A grace far longer than the hang guard: the stop must not wait it out.
    server.stop(Duration.ofSeconds(WAIT * 20)).get(WAIT, TimeUnit.SECONDS);
    assertThat(server.connections()).isZero();
    client.onClose().get(WAIT, TimeUnit.SECONDS);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aStreamStillOpenAfterTheGraceIsCut(Kind kind) throws Exception {
    Events live = new Events();
    Requester client = serveAndConnect(kind, live);
    assertThat(held.poll(WAIT, TimeUnit.SECONDS)).as("the request reached the server").isNotNull();

    server.stop(Duration.ofMillis(500)).get(WAIT, TimeUnit.SECONDS);
    assertThat(live.take()).as("the stream cut at the end of the grace").isEqualTo("error");
    assertThat(server.connections()).isZero();
    client.onClose().get(WAIT, TimeUnit.SECONDS);
  }
}
