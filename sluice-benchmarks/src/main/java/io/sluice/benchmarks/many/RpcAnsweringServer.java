package io.sluice.benchmarks.many;

import com.google.protobuf.ByteString;
import io.netty.channel.EventLoopGroup;
import io.sluice.benchmarks.harness.Counter;
import io.sluice.benchmarks.harness.Impl;
import io.sluice.benchmarks.rpc.BenchService;
import io.sluice.benchmarks.rpc.Payload;
import io.sluice.benchmarks.rpc.ReactorBenchServer;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.rsocket.RpcResponder;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpServerTransport;
import io.sluice.transport.netty.internal.EventLoops;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;

/**
 * The server of the {@code sluice-rpc} impl in the many-connections mode: the same service, stack
 * and settings as {@code RpcImpl}'s server (the generated {@link ReactorBenchServer} under {@link
 * RpcResponder}, default options, TCP on one event loop), except that {@code Response} answers
 * every call with one pre-built {@link Payload} of the server's {@code --size} bytes instead of
 * echoing the (small) request, as the {@code sluice} and {@code grpc-java} servers answer theirs.
 * Only {@link #serve} runs here: the many-connections clients are {@link ManyClient}s.
 */
final class RpcAnsweringServer implements Impl {
  private static final String SERVER_LOOP = "sluice-server-loop";

  @Override
  public int serve(String interaction, int size, Counter fnfReceived) throws Exception {
    Payload answer = Payload.newBuilder().setData(ByteString.copyFrom(new byte[size])).build();
    ServiceRegistry registry =
        ServiceRegistry.builder().add(new ReactorBenchServer(new Answering(answer))).build();
    EventLoopGroup loop = EventLoops.newGroup(1, SERVER_LOOP);
    ServerTransport.Bound bound =
        Connections.serve(
                TcpServerTransport.create("127.0.0.1", 0).withEventLoopGroup(loop),
                ConnectionOptions.defaults(),
                RpcResponder.acceptor(registry))
            .get(10, TimeUnit.SECONDS);
    return ((InetSocketAddress) bound.address()).getPort();
  }

  @Override
  public String serverLoopPrefix() {
    return SERVER_LOOP;
  }

  @Override
  public void load(int port, String interaction, int size, int window, Counter received) {
    throw new UnsupportedOperationException("server only");
  }

  @Override
  public void latency(int port, String interaction, int size, int concurrency, LatencySink sink) {
    throw new UnsupportedOperationException("server only");
  }

  /** {@link BenchService} whose {@code Response} answers {@code answer}. */
  private static final class Answering extends BenchService {
    private final Payload answer;

    Answering(Payload answer) {
      this.answer = answer;
    }

    @Override
    public Mono<Payload> response(Payload request) {
      return Mono.just(answer);
    }
  }

}
