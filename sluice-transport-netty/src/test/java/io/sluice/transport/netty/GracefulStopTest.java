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
import io.sluice.exceptions.ConnectionCloseException;
import io.sluice.lease.LeasePolicy;
import io.sluice.test.TestMessages;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SluiceServer#stop} over TCP on 127.0.0.1 with leasing: the client's availability drops to
 * 0 while its stream is still live, the listener refuses new connections, the live stream finishes,
 * then everything closes.
 */
class GracefulStopTest {
  private static final long WAIT = 30; // seconds; hang guard only

  private final BlockingQueue<StreamHandle> held = new LinkedBlockingQueue<>();
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
      events.add("error " + cause.getClass().getSimpleName());
    }

    String take() throws InterruptedException {
      String e = events.poll(WAIT, TimeUnit.SECONDS);
      assertThat(e).as("a signal").isNotNull();
      return e;
    }
  }

  private CompletableFuture<Requester> connect(InetSocketAddress at) {
    return Connections.connect(
        TcpClientTransport.create("127.0.0.1", at.getPort()),
        ConnectionOptions.builder().lease(true).build(),
        ClientSetup.defaults(),
        r -> new Responder() {});
  }

  @Test
  void stopDrainsALeasingClient() throws Exception {
    server =
        Connections.start(
                TcpServerTransport.create("127.0.0.1", 0),
                ConnectionOptions.builder()
                    .leasePolicy(LeasePolicy.fixed(Duration.ofSeconds(30), 1_000))
                    .build(),
                (setup, requester) ->
                    new Responder() {
                      @Override
                      public StreamListener requestStream(Message request, StreamHandle stream) {
                        request.release();
                        held.add(stream);
                        return StreamListener.DISCARDING;
                      }
                    })
            .get(WAIT, TimeUnit.SECONDS);
    InetSocketAddress at = (InetSocketAddress) server.address();
    Requester client = connect(at).get(WAIT, TimeUnit.SECONDS);
    clients.add(client);
    assertThat(client.availability()).isEqualTo(1.0);
    Events live = new Events();
    client.requestStream(TestMessages.pooled("live"), 2, live);
    StreamHandle stream = held.poll(WAIT, TimeUnit.SECONDS);
    assertThat(stream).as("the request reached the server").isNotNull();
    assertThat(server.connections()).isEqualTo(1);

    CompletableFuture<Void> stopped = server.stop(Duration.ofSeconds(WAIT));
    for (int i = 0; i < WAIT * 200 && client.availability() > 0; i++) {
      Thread.sleep(5); // waiting for the LEASE 0 to cross the socket (a hang guard, not a timing)
    }
    assertThat(client.availability()).isZero();
    server.onClose().get(WAIT, TimeUnit.SECONDS);
    Throwable refused = connect(at).handle((r, e) -> e).get(WAIT, TimeUnit.SECONDS);
    assertThat(refused).as("the listener is closed").isNotNull();
    Events late = new Events();
    client.requestResponse(TestMessages.pooled("late"), late);
    assertThat(late.take()).isEqualTo("error " + ConnectionCloseException.class.getSimpleName());
    assertThat(stopped).as("the stream is live").isNotDone();

    stream.next(TestMessages.pooled("1"));
    stream.nextAndComplete(TestMessages.pooled("2"));
    assertThat(live.take()).isEqualTo("next 1");
    assertThat(live.take()).isEqualTo("next 2");
    assertThat(live.take()).isEqualTo("complete");
    stopped.get(WAIT, TimeUnit.SECONDS);
    assertThat(server.connections()).isZero();
    client.onClose().get(WAIT, TimeUnit.SECONDS);
  }
}
