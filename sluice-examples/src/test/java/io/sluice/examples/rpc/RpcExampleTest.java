package io.sluice.examples.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.examples.bench.BenchService;
import io.sluice.examples.bench.Payload;
import io.sluice.examples.bench.ReactorBenchClient;
import io.sluice.examples.bench.ReactorBenchServer;
import io.sluice.examples.bench.StreamRequest;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.rsocket.RpcResponder;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import com.google.protobuf.ByteString;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

class RpcExampleTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @Test
  void exampleCallsEveryKindOfMethod() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    assertThat(RpcExample.run(new PrintStream(bytes, true, StandardCharsets.UTF_8)))
        .containsExactly(
            "unary: hello Ada",
            "unary with headers: bonjour Ada",
            "server-stream: hello Bob #0",
            "server-stream: hello Bob #1",
            "server-stream: hello Bob #2",
            "client-stream: hello Cy, Di, Ed",
            "bidi: hi Cy",
            "bidi: hi Di",
            "bidi: hi Ed",
            "fire-and-forget: sent");
  }

  @Test
  void demoCallsSucceedAndAreCounted() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    RpcDemo.Result result = RpcDemo.run(1, new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String text = bytes.toString(StandardCharsets.UTF_8);
    // Every unary reply was "hello demo" and the stream "hello stream" #0, #1, ... in order, and
    // at least one of each came (the demo waits for the first of each before its timed second).
    assertThat(result.failure()).as("the demo's first failed call or wrong reply; output:%n%s", text).isNull();
    assertThat(result.unaryCalls()).isPositive();
    assertThat(result.streamed()).isPositive();
    // What it prints is what it counted.
    assertThat(text)
        .contains("unary: hello Ada")
        .contains(
            "unary calls/s: " + result.unaryPerSecond()[0]
                + "   streamed messages/s: " + result.streamedPerSecond()[0])
        .contains(
            "total: " + result.unaryPerSecond()[0] + " unary calls and "
                + result.streamedPerSecond()[0] + " streamed messages in 1 s")
        .doesNotContain("failed");
  }

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
