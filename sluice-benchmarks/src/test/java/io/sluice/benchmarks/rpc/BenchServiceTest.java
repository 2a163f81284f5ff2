package io.sluice.benchmarks.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.rsocket.RpcResponder;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/** The service the sluice-rpc impl, RpcBenchmark and RpcVsRaw measure answers every interaction. */
class BenchServiceTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @Test
  void benchServiceServesEveryInteraction() throws Exception {
    ServerTransport.Bound server =
        Connections.serve(
                TcpServerTransport.create("127.0.0.1", 0),
                ConnectionOptions.defaults(),
                RpcResponder.acceptor(ServiceRegistry.builder().add(new ReactorBenchServer(new BenchService())).build()))
            .get(10, TimeUnit.SECONDS);
    ReactorRequester requester =
        SluiceClient.builder(TcpClientTransport.create("127.0.0.1", ((InetSocketAddress) server.address()).getPort()))
            .connect()
            .block(WAIT);
    try {
      ReactorBenchClient bench = new ReactorBenchClient(requester);
      Payload p = Payload.newBuilder().setData(ByteString.copyFrom(new byte[128])).build();
      assertThat(bench.response(p).block(WAIT)).isEqualTo(p);
      assertThat(bench.stream(StreamRequest.newBuilder().setCount(100).setSize(8).build()).count().block(WAIT))
          .isEqualTo(100);
      assertThat(bench.stream(StreamRequest.newBuilder().setSize(8).build()).take(50).count().block(WAIT))
          .isEqualTo(50);
      assertThat(bench.channel(Flux.range(0, 20).map(i -> p)).count().block(WAIT)).isEqualTo(20);
      bench.fire(p).block(WAIT);
    } finally {
      requester.dispose();
      server.close();
    }
  }
}
