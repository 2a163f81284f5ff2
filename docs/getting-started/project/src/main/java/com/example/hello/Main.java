package com.example.hello;

import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.rsocket.RpcResponder;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.SharedEventLoops;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Serves Greeter on 127.0.0.1, calls it over TCP, prints the answers and exits. */
public final class Main {
  /** The service: implements the interface generated from greeter.proto. */
  static final class Greeter implements ReactorGreeter {
    @Override
    public Mono<HelloReply> sayHello(HelloRequest request) {
      return Mono.just(HelloReply.newBuilder().setMessage("hello " + request.getName()).build());
    }

    @Override
    public Flux<HelloReply> greetings(HelloRequest request) {
      return Flux.range(1, 3)
          .map(i -> HelloReply.newBuilder().setMessage("greeting " + i + " for " + request.getName()).build());
    }
  }

  public static void main(String[] args) throws Exception {
    Duration wait = Duration.ofSeconds(10);
    ServiceRegistry registry = ServiceRegistry.builder().add(new ReactorGreeterServer(new Greeter())).build();
    ServerTransport.Bound server =
        Connections.serve(
                TcpServerTransport.create("127.0.0.1", 0), // port 0: any free port
                ConnectionOptions.defaults(),
                RpcResponder.acceptor(registry))
            .get();
    int port = ((InetSocketAddress) server.address()).getPort();

    ReactorRequester connection = SluiceClient.builder(TcpClientTransport.create("127.0.0.1", port)).connect().block(wait);
    ReactorGreeterClient greeter = new ReactorGreeterClient(connection);
    HelloRequest ada = HelloRequest.newBuilder().setName("Ada").build();
    System.out.println(greeter.sayHello(ada).block(wait).getMessage());
    greeter.greetings(ada).doOnNext(reply -> System.out.println(reply.getMessage())).blockLast(wait);

    connection.close(); // graceful: CONNECTION_CLOSE, then live streams drain
    connection.onClose().block(wait);
    server.close();
    server.onClose().get();
    SharedEventLoops.shutdownGracefully().get(); // ends Sluice's I/O threads (sluice-io-*)
  }
}
