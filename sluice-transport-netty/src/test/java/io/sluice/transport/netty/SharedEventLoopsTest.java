package io.sluice.transport.netty;

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
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link SharedEventLoops#shutdownGracefully}: the JVM-wide event loops that transports run on when
 * given none end their threads, and come back (new threads) when a transport is used again.
 */
class SharedEventLoopsTest {
  private static final long WAIT = 30; // seconds; hang guard only

  private static final Responder ECHO =
      new Responder() {
        @Override
        public StreamListener requestResponse(Message request, StreamHandle response) {
          response.nextAndComplete(request);
          return StreamListener.DISCARDING;
        }
      };

  /** The threads of the shared groups now. */
  private static List<Thread> ioThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith("sluice-io"))
        .toList();
  }

  /** A server and a client on the shared loops, one echo, everything closed again. */
  private static void oneEcho() throws Exception {
    SluiceServer server =
        Connections.start(
                TcpServerTransport.create("127.0.0.1", 0),
                ConnectionOptions.defaults(),
                (setup, requester) -> ECHO)
            .get(WAIT, TimeUnit.SECONDS);
    try {
      int port = ((InetSocketAddress) server.address()).getPort();
      Requester client =
          Connections.connect(
                  TcpClientTransport.create("127.0.0.1", port),
                  ConnectionOptions.defaults(),
                  ClientSetup.defaults(),
                  r -> new Responder() {})
              .get(WAIT, TimeUnit.SECONDS);
      CompletableFuture<String> answer = new CompletableFuture<>();
      client.requestResponse(
          TestMessages.utf8("hello"),
          new StreamListener() {
            @Override
            public void onNext(Message message) {
              answer.complete(TestMessages.dataAndRelease(message));
            }

            @Override
            public void onComplete() {
              answer.complete(null);
            }

            @Override
            public void onError(Throwable cause) {
              answer.completeExceptionally(cause);
            }
          });
      assertThat(answer.get(WAIT, TimeUnit.SECONDS)).isEqualTo("hello");
      client.dispose();
      client.onClose().handle((v, e) -> null).get(WAIT, TimeUnit.SECONDS); // disposed: either way
    } finally {
      server.close();
      server.onClose().get(WAIT, TimeUnit.SECONDS);
    }
  }

  @Test
  void theSharedLoopsEndTheirThreadsAndComeBackWhenUsedAgain() throws Exception {
    oneEcho();
    List<Thread> threads = ioThreads();
    assertThat(threads).isNotEmpty();

    SharedEventLoops.shutdownGracefully().get(WAIT, TimeUnit.SECONDS);
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(WAIT));
    }
    assertThat(ioThreads()).isEmpty();
    SharedEventLoops.shutdownGracefully().get(WAIT, TimeUnit.SECONDS); // nothing to do: at once

    oneEcho(); // a transport used afterwards runs on new shared loops
    assertThat(ioThreads()).isNotEmpty().doesNotContainAnyElementsOf(threads);
  }
}
