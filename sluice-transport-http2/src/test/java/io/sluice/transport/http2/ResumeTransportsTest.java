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
import io.sluice.core.Resumption;
import io.sluice.core.SluiceServer;
import io.sluice.internal.ResumableSession;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.http2.Http2ClientTransport;
import io.sluice.transport.http2.Http2ServerTransport;
import io.sluice.transport.http2.WebSocketOverHttp2ClientTransport;
import io.sluice.transport.http2.WebSocketOverHttp2ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import io.sluice.transport.netty.UnixClientTransport;
import io.sluice.transport.netty.UnixServerTransport;
import io.sluice.transport.websocket.WebSocketClientTransport;
import io.sluice.transport.websocket.WebSocketServerTransport;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Resumption over each transport that carries it (TCP, unix socket, WebSocket, WebSocket over
 * HTTP/2): a request-stream survives cuts of the transport under it, every message once and in
 * order; the HTTP/2 stream mapping refuses a resumable client clearly.
 */
class ResumeTransportsTest {
  private static final long WAIT = 60;
  private static final int MESSAGES = 20_000;
  private static final int CUTS = 5;

  private SluiceServer server;
  private Requester client;
  private Path socketDir;
  private final AtomicInteger resumed = new AtomicInteger();

  @AfterEach
  void close() throws Exception {
    if (client != null) {
      client.close();
      client.onClose().handle((v, e) -> null).get(WAIT, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.stop(Duration.ofSeconds(5)).get(WAIT, TimeUnit.SECONDS);
    }
    if (socketDir != null) {
      try (java.util.stream.Stream<Path> files = Files.list(socketDir)) {
        for (Path f : (Iterable<Path>) files::iterator) {
          Files.deleteIfExists(f);
        }
      }
      Files.deleteIfExists(socketDir);
    }
  }

  private Resumption resumption() {
    return Resumption.builder()
        .sessionTimeout(Duration.ofSeconds(30))
        .backoff(Duration.ofMillis(5), Duration.ofMillis(100))
        .listener(
            new Resumption.Listener() {
              @Override
              public void resumed(int count) {
                resumed.incrementAndGet();
              }
            })
        .build();
  }

  private ClientTransport start(String kind) throws Exception {
    ServerTransport st;
    Function<InetSocketAddress, ClientTransport> ct;
    switch (kind) {
      case "tcp":
        st = TcpServerTransport.create("127.0.0.1", 0);
        ct = a -> TcpClientTransport.create("127.0.0.1", a.getPort());
        break;
      case "unix":
        socketDir = Files.createTempDirectory("sluice-resume");
        Path p = socketDir.resolve("s.sock");
        st = UnixServerTransport.create(p);
        ct = a -> UnixClientTransport.create(p);
        break;
      case "websocket":
        st = WebSocketServerTransport.create("127.0.0.1", 0);
        ct = a -> WebSocketClientTransport.create("127.0.0.1", a.getPort());
        break;
      case "ws-over-h2":
        st = WebSocketOverHttp2ServerTransport.create("127.0.0.1", 0);
        ct = a -> WebSocketOverHttp2ClientTransport.create("127.0.0.1", a.getPort());
        break;
      default:
        throw new IllegalArgumentException(kind);
    }
    server =
        Connections.start(
                st,
                ConnectionOptions.builder().resumption(resumption()).build(),
                (setup, requester) -> new Sequence())
            .get(WAIT, TimeUnit.SECONDS);
    return ct.apply(
        server.address() instanceof InetSocketAddress ? (InetSocketAddress) server.address() : null);
  }

  @ParameterizedTest
  @ValueSource(strings = {"tcp", "unix", "websocket", "ws-over-h2"})
  void aStreamSurvivesCutsOfTheTransport(String kind) throws Exception {
    ClientTransport t = start(kind);
    client =
        Connections.connect(
                t,
                ConnectionOptions.builder().build(),
                ClientSetup.defaults().resumable(resumption()),
                x -> new Responder() {})
            .get(WAIT, TimeUnit.SECONDS);
    Receiver rx = new Receiver();
    client.requestStream(Message.utf8("go"), Long.MAX_VALUE, rx);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT * 2);
    int cuts = 0;
    for (int cut = 1; cut <= CUTS && !rx.done.isDone(); cut++) {
      long at = (long) MESSAGES * cut / (CUTS + 1);
      while (rx.count.get() < at && !rx.done.isDone() && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      int before = resumed.get();
      assertThat(ResumableSession.cutForTest(client)).isTrue();
      cuts++;
      // Wait for the resume even when the stream has completed meanwhile (the cut may land after
      // its last frames): closed while detached, or with the cut still under way, the client
      // cannot send its CONNECTION_CLOSE, and the server keeps the session for a resume until
      // its session timeout (server.stop below then waits its whole grace).
      while (resumed.get() == before && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
    }
    assertThat(rx.done.get(WAIT * 2, TimeUnit.SECONDS)).isNull();
    assertThat(rx.outOfOrder.get()).isNull();
    assertThat(rx.count.get()).isEqualTo(MESSAGES);
    assertThat(resumed.get()).isPositive().isEqualTo(cuts);
  }

  @Test
  void theHttp2StreamMappingRefusesAResumableClientClearly() throws Exception {
    server =
        Connections.start(
                Http2ServerTransport.create("127.0.0.1", 0),
                ConnectionOptions.builder().resumption(resumption()).build(),
                (setup, requester) -> new Sequence())
            .get(WAIT, TimeUnit.SECONDS);
    InetSocketAddress a = (InetSocketAddress) server.address();
    CompletableFuture<Requester> f =
        Connections.connect(
            Http2ClientTransport.create("127.0.0.1", a.getPort()),
            ConnectionOptions.builder().build(),
            ClientSetup.defaults().resumable(resumption()),
            x -> new Responder() {});
    try {
      f.get(WAIT, TimeUnit.SECONDS);
      throw new AssertionError("a resumable connect over the HTTP/2 stream mapping succeeded");
    } catch (ExecutionException e) {
      assertThat(e.getCause())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("the HTTP/2 stream mapping has no RESUME");
    }
  }

  /** Emits "0", "1", ... on demand, completing after MESSAGES. */
  static final class Sequence implements Responder {
    @Override
    public StreamListener requestStream(Message request, StreamHandle h) {
      request.release();
      AtomicLong next = new AtomicLong();
      return new StreamListener() {
        @Override
        public void onNext(Message m) {
          m.release();
        }

        @Override
        public void onComplete() {}

        @Override
        public void onError(Throwable cause) {}

        @Override
        public void onRequest(long n) {
          for (long i = 0; i < n && next.get() < MESSAGES; i++) {
            long k = next.getAndIncrement();
            if (k == MESSAGES - 1) {
              h.nextAndComplete(Message.utf8(h.alloc(), Long.toString(k)));
            } else {
              h.next(Message.utf8(h.alloc(), Long.toString(k)));
            }
          }
        }
      };
    }
  }

  static final class Receiver implements StreamListener {
    final AtomicLong count = new AtomicLong();
    final AtomicReference<String> outOfOrder = new AtomicReference<>();
    final CompletableFuture<Void> done = new CompletableFuture<>();

    @Override
    public void onNext(Message m) {
      String d = m.dataUtf8();
      m.release();
      long expected = count.getAndIncrement();
      if (!d.equals(Long.toString(expected))) {
        outOfOrder.compareAndSet(null, "expected " + expected + ", got " + d);
      }
    }

    @Override
    public void onComplete() {
      done.complete(null);
    }

    @Override
    public void onError(Throwable cause) {
      done.completeExceptionally(cause);
    }
  }
}
