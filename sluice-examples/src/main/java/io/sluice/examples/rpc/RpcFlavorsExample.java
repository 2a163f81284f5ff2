package io.sluice.examples.rpc;

import io.grpc.stub.StreamObserver;
import io.reactivex.rxjava3.core.Flowable;
import io.smallrye.mutiny.Multi;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.futures.FlowStreams;
import io.sluice.futures.FuturesClient;
import io.sluice.futures.FuturesRequester;
import io.sluice.rpc.BindableService;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The Greeter example in the futures, gRPC StreamObserver, RxJava and Mutiny flavors: for each
 * flavor, serves its implementation ({@link FlavorGreeters}) on 127.0.0.1 and calls every method
 * with that flavor's generated client; a gRPC stub also calls the futures server and a futures
 * client the gRPC-style server, since every flavor speaks the same wire format.
 */
public final class RpcFlavorsExample {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private RpcFlavorsExample() {}

  public static void main(String[] args) throws Exception {
    run(System.out);
  }

  private static HelloRequest name(String n) {
    return HelloRequest.newBuilder().setName(n).build();
  }

  /** A server for one service on an ephemeral port, and a connection to it. */
  private static final class Served implements AutoCloseable {
    final ServerTransport.Bound server;
    final FuturesRequester connection;

    Served(BindableService service) throws Exception {
      server =
          Connections.serve(
                  TcpServerTransport.create("127.0.0.1", 0),
                  ConnectionOptions.defaults(),
                  RpcResponder.acceptor(ServiceRegistry.builder().add(service).build()))
              .get(10, TimeUnit.SECONDS);
      int port = ((InetSocketAddress) server.address()).getPort();
      connection = FuturesClient.connect(TcpClientTransport.create("127.0.0.1", port)).get(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws Exception {
      connection.dispose();
      server.close();
    }
  }

  /** Runs every flavor, printing each result; returns the printed lines. */
  public static List<String> run(PrintStream out) throws Exception {
    List<String> lines = new ArrayList<>();
    HelloRequest ada = name("Ada");
    HelloRequest bob3 = HelloRequest.newBuilder().setName("Bob").setCount(2).build();
    CallOptions french = CallOptions.DEFAULT.withHeaders(Headers.of("lang", "fr")).withTimeout(Duration.ofSeconds(5));

    // Futures: CompletableFuture and java.util.concurrent.Flow.
    try (Served s = new Served(new FuturesGreeterServer(new FlavorGreeters.Futures()))) {
      FuturesGreeterClient client = new FuturesGreeterClient(s.connection.unwrap());
      lines.add("futures unary: " + client.sayHello(ada).get(10, TimeUnit.SECONDS).getMessage());
      lines.add("futures headers: " + client.withOptions(french).sayHello(ada).get(10, TimeUnit.SECONDS).getMessage());
      FlavorGreeters.collect(client.streamGreetings(bob3)).get(10, TimeUnit.SECONDS)
          .forEach(g -> lines.add("futures server-stream: " + g.getMessage() + " #" + g.getIndex()));
      lines.add("futures client-stream: " + client.collectNames(
          FlowStreams.fromIterator(Stream.of("Cy", "Di").map(RpcFlavorsExample::name).iterator()))
          .get(10, TimeUnit.SECONDS).getMessage());
      FlavorGreeters.collect(client.chat(FlowStreams.fromIterator(Stream.of(name("Ed")).iterator())))
          .get(10, TimeUnit.SECONDS)
          .forEach(g -> lines.add("futures bidi: " + g.getMessage()));
      client.notify(ada).get(10, TimeUnit.SECONDS);
      lines.add("futures fire-and-forget: sent");

      // Any flavor calls any other: a gRPC stub calling the futures server.
      CompletableFuture<String> cross = new CompletableFuture<>();
      new GrpcGreeterClient(s.connection.unwrap()).sayHello(name("Fay"), observer(cross));
      lines.add("grpc stub -> futures server: " + cross.get(10, TimeUnit.SECONDS));
    }

    // gRPC StreamObserver: grpc-java's shapes.
    try (Served s = new Served(new FlavorGreeters.Grpc())) {
      GrpcGreeterClient client = new GrpcGreeterClient(s.connection.unwrap());
      CompletableFuture<String> unary = new CompletableFuture<>();
      client.withOptions(french).sayHello(ada, observer(unary));
      lines.add("grpc unary with headers: " + unary.get(10, TimeUnit.SECONDS));
      CompletableFuture<String> stream = new CompletableFuture<>();
      client.streamGreetings(bob3, observer(stream));
      lines.add("grpc server-stream: " + stream.get(10, TimeUnit.SECONDS));
      CompletableFuture<String> collected = new CompletableFuture<>();
      StreamObserver<HelloRequest> names = client.collectNames(observer(collected));
      names.onNext(name("Cy"));
      names.onNext(name("Di"));
      names.onCompleted();
      lines.add("grpc client-stream: " + collected.get(10, TimeUnit.SECONDS));
      CompletableFuture<String> chat = new CompletableFuture<>();
      StreamObserver<HelloRequest> chatter = client.chat(observer(chat));
      chatter.onNext(name("Ed"));
      chatter.onCompleted();
      lines.add("grpc bidi: " + chat.get(10, TimeUnit.SECONDS));
      lines.add("futures client -> grpc server: "
          + new FuturesGreeterClient(s.connection.unwrap()).sayHello(name("Gus")).get(10, TimeUnit.SECONDS).getMessage());
    }

    // RxJava.
    try (Served s = new Served(new RxGreeterServer(new FlavorGreeters.Rx()))) {
      RxGreeterClient client = new RxGreeterClient(s.connection.unwrap());
      lines.add("rxjava unary: " + client.sayHello(ada).blockingGet().getMessage());
      lines.add("rxjava server-stream: " + client.streamGreetings(bob3).map(HelloReply::getMessage).toList().blockingGet());
      lines.add("rxjava client-stream: "
          + client.collectNames(Flowable.just(name("Cy"), name("Di"))).blockingGet().getMessage());
      client.notify(ada).blockingAwait();
      lines.add("rxjava fire-and-forget: sent");
    }

    // Mutiny.
    try (Served s = new Served(new MutinyGreeterServer(new FlavorGreeters.Mutiny()))) {
      MutinyGreeterClient client = new MutinyGreeterClient(s.connection.unwrap());
      lines.add("mutiny unary: " + client.sayHello(ada).await().atMost(WAIT).getMessage());
      lines.add("mutiny bidi: "
          + client.chat(Multi.createFrom().items(name("Cy"), name("Di"))).map(HelloReply::getMessage)
              .collect().asList().await().atMost(WAIT));
    }
    lines.forEach(out::println);
    return lines;
  }

  /** An observer that completes {@code result} with the messages received, joined by " | ". */
  private static StreamObserver<HelloReply> observer(CompletableFuture<String> result) {
    List<String> messages = new ArrayList<>();
    return new StreamObserver<>() {
      @Override
      public void onNext(HelloReply value) {
        messages.add(value.getMessage());
      }

      @Override
      public void onError(Throwable t) {
        result.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {
        result.complete(String.join(" | ", messages));
      }
    };
  }
}
