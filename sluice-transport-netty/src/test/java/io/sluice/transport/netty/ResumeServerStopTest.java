package io.sluice.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.Resumption;
import io.sluice.core.SluiceServer;
import io.sluice.internal.ResumableSession;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A server's drain ({@link SluiceServer#stop}) waits for each peer to close once its streams have
 * ended; a resumable session hides the loss of its transport from the engine (it waits for a
 * RESUME), so the client's close after the server's CONNECTION_CLOSE must still end the session,
 * not leave it waiting for a RESUME until the drain's grace (or the session timeout) runs out.
 * The grace and the session timeout here are hours: a session still held when a wait's hang
 * guard ({@code WAIT}) runs out was left waiting for a RESUME.
 */
class ResumeServerStopTest {
  private static final long WAIT = 60;
  private static final Duration SESSION_TIMEOUT = Duration.ofHours(2);
  /** The drain's grace: a session it had to end would keep the stop waiting for hours. */
  private static final Duration GRACE = Duration.ofHours(1);

  private SluiceServer server;
  private Requester client;
  private final AtomicInteger resumed = new AtomicInteger();

  @AfterEach
  void close() throws Exception {
    if (client != null) {
      client.dispose();
    }
    if (server != null) {
      server.stop(Duration.ZERO).get(WAIT, TimeUnit.SECONDS);
    }
  }

  private void start() throws Exception {
    start(Duration.ofMillis(5));
  }

  /** A server and a client whose reconnects wait half of {@code clientBackoff} or more. */
  private void start(Duration clientBackoff) throws Exception {
    Resumption.Listener listener =
        new Resumption.Listener() {
          @Override
          public void resumed(int count) {
            resumed.incrementAndGet();
          }
        };
    Resumption r = Resumption.builder().sessionTimeout(SESSION_TIMEOUT).build();
    Resumption clientResumption =
        Resumption.builder()
            .sessionTimeout(SESSION_TIMEOUT)
            .backoff(clientBackoff, clientBackoff.plusMillis(100))
            .listener(listener)
            .build();
    server =
        Connections.start(
                TcpServerTransport.create("127.0.0.1", 0),
                ConnectionOptions.builder().resumption(r).build(),
                (setup, requester) -> new Interactions.EchoResponder())
            .get(WAIT, TimeUnit.SECONDS);
    client =
        Connections.connect(
                TcpClientTransport.create(
                    "127.0.0.1", ((InetSocketAddress) server.address()).getPort()),
                ConnectionOptions.builder().build(),
                ClientSetup.defaults().resumable(clientResumption),
                x -> new Responder() {})
            .get(WAIT, TimeUnit.SECONDS);
    echo();
    assertThat(server.resumeSessions().size()).isEqualTo(1);
  }

  private void echo() throws Exception {
    Interactions.Collector answer = new Interactions.Collector();
    client.requestResponse(Message.utf8("ping"), answer);
    assertThat(answer.done.get(WAIT, TimeUnit.SECONDS)).containsExactly("echo:ping");
  }

  /** Stops the server with a long grace; the client closes on its CONNECTION_CLOSE. */
  private void stopAndExpectTheSessionToEnd() throws Exception {
    CompletableFuture<Void> stopped = server.stop(GRACE);
    client.onClose().get(WAIT, TimeUnit.SECONDS); // a clean close: the drain's CONNECTION_CLOSE
    assertThat(waitFor(() -> server.resumeSessions().size() == 0))
        .as("the server still holds the session its client closed (waiting for a RESUME)")
        .isTrue();
    assertThat(waitFor(() -> server.connections() == 0)).isTrue();
    assertThat(waitFor(stopped::isDone)).isTrue();
    assertThat(stopped).isCompleted();
  }

  @Test
  void aServerStopEndsAResumableSessionOnceItsClientHasClosed() throws Exception {
    start();
    stopAndExpectTheSessionToEnd();
  }

  @Test
  void aServerStopEndsAResumedSessionOnceItsClientHasClosed() throws Exception {
    start();
    for (int cut = 1; cut <= 3; cut++) {
      int before = resumed.get();
      assertThat(ResumableSession.cutForTest(client)).isTrue();
      assertThat(waitFor(() -> resumed.get() > before)).isTrue();
      echo();
    }
    stopAndExpectTheSessionToEnd();
  }

  /**
   * A session whose transport was lost before the stop, its client waiting half an hour or more
   * before it reconnects: a stopping server refuses every RESUME, so the session ends once the
   * drain finds no stream in it, not at the grace's end.
   */
  @Test
  void aServerStopEndsASessionDetachedBeforeIt() throws Exception {
    start(Duration.ofHours(1));
    assertThat(ResumableSession.cutForTest(client)).isTrue();
    assertThat(waitFor(() -> server.resumeSessions().detached() == 1))
        .as("the server's session detached by the cut")
        .isTrue();
    CompletableFuture<Void> stopped = server.stop(GRACE);
    assertThat(waitFor(() -> server.resumeSessions().size() == 0))
        .as("the server still holds a detached session while it stops (waiting for a RESUME)")
        .isTrue();
    assertThat(waitFor(() -> server.connections() == 0)).isTrue();
    assertThat(waitFor(stopped::isDone)).isTrue();
  }

  private static boolean waitFor(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT); // a hang guard
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      Thread.sleep(5);
    }
    return true;
  }
}
