package io.sluice.benchmarks.peers;

import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.loadbalance.LoadbalanceRSocketClient;
import io.rsocket.loadbalance.LoadbalanceTarget;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.rsocket.util.DefaultPayload;
import io.sluice.benchmarks.harness.Args;
import io.sluice.benchmarks.harness.BalancerChild;
import io.sluice.benchmarks.harness.BalancerStrategy;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * rsocket-java 1.1.5's side of {@code ./sluice bench --balancer}: the delayed id server (the delay
 * on a timer thread of its own, as Sluice's) and the {@code rsocket-java} strategy, its {@link
 * LoadbalanceRSocketClient} with the weighted strategy ({@code WeightedLoadbalanceStrategy}: power
 * of two choices over a latency and load estimate) over one TCP target per server. Both use the
 * zero-copy payload decoder, as the other rsocket-java impls.
 */
final class RSocketJavaBalancer implements BalancerChild.Servers, BalancerChild.Strategies {

  @Override
  public int serve(int id, long delayNanos, String lease) {
    if (!lease.equals("none")) {
      throw new Args.UsageException("the rsocket-java balancer server runs without leasing");
    }
    Payload answer =
        DefaultPayload.create(ByteBuffer.allocate(BalancerChild.ID_BYTES).putInt(0, id));
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "balancer-server-timer");
              t.setDaemon(true);
              return t;
            });
    Scheduler delays = Schedulers.fromExecutorService(timer);
    Duration delay = Duration.ofNanos(delayNanos);
    RSocket handler =
        new RSocket() {
          @Override
          public Mono<Payload> requestResponse(Payload p) {
            p.release();
            return Mono.just(answer).delayElement(delay, delays);
          }
        };
    return RSocketServer.create((setup, sendingSocket) -> Mono.just(handler))
        .payloadDecoder(PayloadDecoder.ZERO_COPY)
        .bind(TcpServerTransport.create("127.0.0.1", 0))
        .block()
        .address()
        .getPort();
  }

  @Override
  public BalancerStrategy open(String name, List<Integer> ports) {
    if (!name.equals("rsocket-java")) {
      throw new Args.UsageException("strategy '" + name + "' does not run in this JVM");
    }
    List<LoadbalanceTarget> targets = new ArrayList<>();
    for (int port : ports) {
      targets.add(
          LoadbalanceTarget.from("127.0.0.1:" + port, TcpClientTransport.create("127.0.0.1", port)));
    }
    LoadbalanceRSocketClient client =
        LoadbalanceRSocketClient.builder(Mono.just(targets))
            .connector(RSocketConnector.create().payloadDecoder(PayloadDecoder.ZERO_COPY))
            .weightedLoadbalanceStrategy()
            .build();
    Payload request = DefaultPayload.create(new byte[8]);
    return new BalancerStrategy() {
      @Override
      public void call(Done done) {
        client
            .requestResponse(Mono.just(request))
            .subscribe(
                p -> {
                  int id = p.data().readableBytes() == BalancerChild.ID_BYTES
                      ? p.data().getInt(p.data().readerIndex())
                      : -1;
                  p.release();
                  if (id < 0) {
                    done.fail(new IllegalStateException("an answer without a server id"));
                  } else {
                    done.complete(id);
                  }
                },
                done::fail,
                () -> done.fail(new IllegalStateException("completed without an answer")));
      }

      @Override
      public void close() {
        client.dispose();
      }
    };
  }
}
