package io.sluice.examples.rpc;

import io.sluice.Requester;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.Headers;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.rsocket.RpcResponder;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Flux;

/**
 * The RPC example of docs/guide/rpc.md, runnable: serves {@code sluice.examples.Greeter} on 127.0.0.1 and calls
 * each of its methods once with the generated client.
 */
public final class RpcExample {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private RpcExample() {}

  public static void main(String[] args) throws Exception {
    run(System.out);
  }

  /** A running Greeter server and a connected client; close it to stop both. */
  public static final class Running implements AutoCloseable {
    public final GreeterService service = new GreeterService();
    public final ServerTransport.Bound server;
    public final ReactorRequester requester;
    public final ReactorGreeterClient client;

    public Running() throws Exception {
      this(UnaryOperator.identity(), UnaryOperator.identity());
    }

    /**
     * With hooks around the server's services and the client's connection: {@code serve} gets the
     * registry the server will run (and may return it with interceptors, for tracing or metrics),
     * {@code call} the connection the generated client will call through (likewise).
     */
    public Running(UnaryOperator<ServiceRegistry> serve, UnaryOperator<Requester> call) throws Exception {
      ServiceRegistry registry =
          serve.apply(ServiceRegistry.builder().add(new ReactorGreeterServer(service)).build());
      server =
          Connections.serve(
                  TcpServerTransport.create("127.0.0.1", 0),
                  ConnectionOptions.defaults(),
                  RpcResponder.acceptor(registry))
              .get(10, TimeUnit.SECONDS);
      int port = ((InetSocketAddress) server.address()).getPort();
      ReactorRequester connected = null;
      try {
        connected = SluiceClient.builder(TcpClientTransport.create("127.0.0.1", port)).connect().block(WAIT);
        client = new ReactorGreeterClient(call.apply(connected.unwrap()));
      } catch (RuntimeException | Error e) {
        if (connected != null) {
          connected.dispose();
        }
        server.close(); // nothing else would
        throw e;
      }
      requester = connected;
    }

    @Override
    public void close() throws Exception {
      requester.dispose();
      server.close();
    }
  }

  /** Calls every method once, printing each result; returns the printed lines. */
  public static List<String> run(PrintStream out) throws Exception {
    return run(out, new Running());
  }

  /** {@link #run(PrintStream)} on {@code running}, which it closes. */
  static List<String> run(PrintStream out, Running running) throws Exception {
    List<String> lines = new ArrayList<>();
    try (Running r = running) {
      ReactorGreeterClient client = r.client;
      HelloRequest ada = HelloRequest.newBuilder().setName("Ada").build();

      lines.add("unary: " + client.sayHello(ada).block(WAIT).getMessage());
      ReactorGreeterClient french =
          client.withOptions(
              CallOptions.DEFAULT.withHeaders(Headers.of("lang", "fr")).withTimeout(Duration.ofSeconds(5)));
      lines.add("unary with headers: " + french.sayHello(ada).block(WAIT).getMessage());
      client
          .streamGreetings(HelloRequest.newBuilder().setName("Bob").setCount(3).build())
          .doOnNext(g -> lines.add("server-stream: " + g.getMessage() + " #" + g.getIndex()))
          .blockLast(WAIT);
      Flux<HelloRequest> names = Flux.just("Cy", "Di", "Ed").map(n -> HelloRequest.newBuilder().setName(n).build());
      lines.add("client-stream: " + client.collectNames(names).block(WAIT).getMessage());
      client
          .chat(names)
          .doOnNext(g -> lines.add("bidi: " + g.getMessage()))
          .blockLast(WAIT);
      client.notify(ada).block(WAIT);
      lines.add("fire-and-forget: sent");
    }
    lines.forEach(out::println);
    return lines;
  }
}
