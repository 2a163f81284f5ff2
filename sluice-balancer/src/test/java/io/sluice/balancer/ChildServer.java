package io.sluice.balancer;

import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.SluiceServer;
import io.sluice.lease.LeasePolicy;
import io.sluice.transport.netty.TcpServerTransport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A server for the balancer's child-process tests: {@code ChildServer NAME PORT DELAY_MICROS}
 * serves on 127.0.0.1:PORT (0: any), answers each request-response with NAME after the delay (off
 * the event loop), grants unlimited leases, prints {@code LISTENING <port>}; SIGTERM stops it
 * gracefully ({@link SluiceServer#stop} with 5 s of grace); it exits when its stdin closes, so it
 * never outlives the test that started it.
 */
public final class ChildServer {
  private ChildServer() {}

  public static void main(String[] args) throws Exception {
    String name = args[0];
    int port = Integer.parseInt(args[1]);
    long delayMicros = Long.parseLong(args[2]);
    ScheduledExecutorService delays = Executors.newScheduledThreadPool(2, r -> {
      Thread t = new Thread(r, "delays");
      t.setDaemon(true);
      return t;
    });
    Responder responder =
        new Responder() {
          @Override
          public StreamListener requestResponse(Message request, StreamHandle response) {
            request.release();
            if (delayMicros == 0) {
              response.nextAndComplete(Message.utf8(response.alloc(), name));
            } else {
              delays.schedule(
                  () -> response.nextAndComplete(Message.utf8(response.alloc(), name)),
                  delayMicros,
                  TimeUnit.MICROSECONDS);
            }
            return StreamListener.DISCARDING;
          }
        };
    SluiceServer server =
        Connections.start(
                TcpServerTransport.create("127.0.0.1", port),
                ConnectionOptions.builder().leasePolicy(LeasePolicy.unlimited()).build(),
                (setup, requester) -> responder)
            .get(30, TimeUnit.SECONDS);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> server.stop(Duration.ofSeconds(5)).orTimeout(10, TimeUnit.SECONDS).join()));
    System.out.println("LISTENING " + ((InetSocketAddress) server.address()).getPort());
    System.out.flush();
    try {
      while (System.in.read() >= 0) {
        // the parent is alive while stdin is open
      }
    } catch (IOException e) {
      // parent gone
    }
    System.exit(0);
  }
}
