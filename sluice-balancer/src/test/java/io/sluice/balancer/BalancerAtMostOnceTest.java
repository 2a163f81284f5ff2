package io.sluice.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Message;
import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.exceptions.RejectedException;
import io.sluice.futures.FuturesRequester;
import io.sluice.futures.FuturesResponder;
import io.sluice.futures.FuturesServer;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A call that is not idempotent runs at most once, measured from outside: two futures-flavor
 * servers over TCP whose handler does its work (counted) and then fails with a RejectedException,
 * as a handler passing on a downstream balancer's "no lease" would. The REJECTED a server's engine
 * sends promises the request was not processed; this one was, so it must not be retried.
 */
class BalancerAtMostOnceTest {

  @Test
  void aHandlersRejectedExceptionIsNotRetriedElsewhere() throws Exception {
    AtomicInteger inserts = new AtomicInteger();
    FuturesResponder handler =
        new FuturesResponder() {
          @Override
          public CompletionStage<Message> requestResponse(Message request) {
            request.release();
            inserts.incrementAndGet(); // the non-idempotent work
            return CompletableFuture.failedFuture(
                new RejectedException("downstream: no server has lease availability"));
          }
        };
    List<ServerTransport.Bound> servers = new ArrayList<>();
    Balancer balancer = null;
    try {
      List<SocketAddress> addresses = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        ServerTransport.Bound b =
            FuturesServer.serve(TcpServerTransport.create("127.0.0.1", 0), handler)
                .get(10, TimeUnit.SECONDS);
        servers.add(b);
        addresses.add(b.address());
      }
      balancer =
          Balancer.builder()
              .addresses(AddressSource.fixed(addresses))
              .connector(BalancerTcpTest::connect)
              .backoff(Duration.ofMillis(10), Duration.ofMillis(200))
              .build();
      BalancerRetryTest.awaitConnected(balancer, 2);
      FuturesRequester client = new FuturesRequester(balancer);
      CompletableFuture<Message> call =
          client.requestResponse(Message.utf8(client.alloc(), "insert row 7"));
      Throwable failure = null;
      try {
        call.get(10, TimeUnit.SECONDS).release();
      } catch (ExecutionException e) {
        failure = e.getCause();
      }
      assertThat(inserts.get()).as("times the handler ran").isEqualTo(1);
      assertThat(failure)
          .isInstanceOf(ApplicationErrorException.class)
          .hasMessageContaining("no server has lease availability");
    } finally {
      if (balancer != null) {
        balancer.dispose();
        balancer.onClose().get(10, TimeUnit.SECONDS);
      }
      for (ServerTransport.Bound b : servers) {
        b.close();
        b.onClose().get(10, TimeUnit.SECONDS);
      }
    }
  }
}
