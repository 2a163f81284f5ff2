package io.sluice.examples.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.Headers;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.blocking.BlockingRpc;
import io.sluice.rpc.rsocket.RpcResponder;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The example Greeter ({@code sluice-examples/src/main/proto/sluice/examples/greeter.proto}) in the
 * blocking flavor: plain methods on virtual threads, served and called over TCP on 127.0.0.1.
 */
class BlockingGreeterExampleTest {

  /** The Greeter in the blocking flavor: each call runs on its own virtual thread. */
  static final class Greeter implements BlockingGreeter {
    final AtomicLong notifications = new AtomicLong();

    static HelloReply reply(String message, long index) {
      return HelloReply.newBuilder().setMessage(message).setIndex(index).build();
    }

    @Override
    public HelloReply sayHello(HelloRequest request) {
      String lang = BlockingRpc.callMetadata().headers().get("lang");
      return reply(("fr".equals(lang) ? "bonjour " : "hello ") + request.getName(), 0);
    }

    @Override
    public Stream<HelloReply> streamGreetings(HelloRequest request) {
      return LongStream.range(0, request.getCount()).mapToObj(i -> reply("hello " + request.getName(), i));
    }

    @Override
    public HelloReply collectNames(Stream<HelloRequest> requests) {
      List<String> names = requests.map(HelloRequest::getName).collect(Collectors.toList());
      return reply("hello " + String.join(", ", names), names.size());
    }

    @Override
    public Stream<HelloReply> chat(Stream<HelloRequest> requests) {
      AtomicLong index = new AtomicLong();
      return requests.map(r -> reply("hi " + r.getName(), index.getAndIncrement()));
    }

    @Override
    public void notify(HelloRequest request) {
      notifications.incrementAndGet();
    }
  }

  private static HelloRequest name(String n) {
    return HelloRequest.newBuilder().setName(n).build();
  }

  @Test
  void greeterServedAndCalledOnVirtualThreads() throws Exception {
    Greeter greeter = new Greeter();
    ServerTransport.Bound server =
        Connections.serve(
                TcpServerTransport.create("127.0.0.1", 0),
                ConnectionOptions.defaults(),
                RpcResponder.acceptor(ServiceRegistry.builder().add(new BlockingGreeterServer(greeter)).build()))
            .get(10, TimeUnit.SECONDS);
    int port = ((InetSocketAddress) server.address()).getPort();
    ReactorRequester requester =
        SluiceClient.builder(TcpClientTransport.create("127.0.0.1", port)).connect().block(Duration.ofSeconds(10));
    try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
      BlockingGreeterClient client = new BlockingGreeterClient(requester.unwrap());
      List<String> lines =
          threads.submit(() -> {
                List<String> out = new ArrayList<>();
                out.add(client.sayHello(name("Ada")).getMessage());
                out.add(client.withOptions(CallOptions.DEFAULT.withHeaders(Headers.of("lang", "fr")))
                    .sayHello(name("Ada")).getMessage());
                try (Stream<HelloReply> s =
                    client.streamGreetings(HelloRequest.newBuilder().setName("Bob").setCount(2).build())) {
                  s.forEach(g -> out.add(g.getMessage() + " #" + g.getIndex()));
                }
                out.add(client.collectNames(Stream.of(name("Cy"), name("Di"))).getMessage());
                try (Stream<HelloReply> s = client.chat(Stream.of(name("Ed")))) {
                  s.forEach(g -> out.add(g.getMessage()));
                }
                client.notify(name("Ada"));
                return out;
              })
              .get(10, TimeUnit.SECONDS);
      assertThat(lines)
          .containsExactly("hello Ada", "bonjour Ada", "hello Bob #0", "hello Bob #1", "hello Cy, Di", "hi Ed");
    } finally {
      requester.dispose();
      server.close();
    }
  }
}
