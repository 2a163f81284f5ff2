package io.sluice.examples.guide;

import io.grpc.stub.StreamObserver;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.examples.rpc.FuturesGreeter;
import io.sluice.examples.rpc.FuturesGreeterClient;
import io.sluice.examples.rpc.FuturesGreeterServer;
import io.sluice.examples.rpc.GreeterService;
import io.sluice.examples.rpc.GrpcGreeterClient;
import io.sluice.examples.rpc.GrpcGreeterImplBase;
import io.sluice.examples.rpc.HelloReply;
import io.sluice.examples.rpc.HelloRequest;
import io.sluice.examples.rpc.ReactorGreeterClient;
import io.sluice.examples.rpc.ReactorGreeterServer;
import io.sluice.futures.FlowStreams;
import io.sluice.futures.FuturesClient;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.Headers;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.futures.FuturesRpc;
import io.sluice.rpc.rsocket.RpcResponder;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.LongAdder;

/** docs/guide/rpc.md: serving and calling the example Greeter (greeter.proto). */
final class RpcGuide {
  private RpcGuide() {}

  static HelloReply serveAndCall() throws Exception {
    // tag::serve-and-call[]
    // Server: any number of services on one connection.
    ServiceRegistry registry = ServiceRegistry.builder().add(new ReactorGreeterServer(new GreeterService())).build();
    ServerTransport.Bound server =
        Connections.serve(TcpServerTransport.create("127.0.0.1", 7878), ConnectionOptions.defaults(),
            RpcResponder.acceptor(registry)).get();

    // Client: built on any Sluice requester (either side of a connection).
    ReactorRequester requester =
        SluiceClient.builder(TcpClientTransport.create("127.0.0.1", 7878)).connect().block();
    ReactorGreeterClient greeter = new ReactorGreeterClient(requester)
        .withOptions(CallOptions.DEFAULT
            .withHeaders(Headers.of("client-id", "a1"))
            .withTimeout(Duration.ofMillis(500)));     // deadline: sent to the server, enforced on both sides
    HelloReply reply = greeter.sayHello(HelloRequest.newBuilder().setName("Ada").build()).block();
    // end::serve-and-call[]
    requester.close();
    server.close();
    return reply;
  }

  // tag::futures-flavor[]
  // futures: a server and a client (protoc ... --sluice_opt=flavor=futures)
  static final class GreeterImpl implements FuturesGreeter {
    @Override
    public CompletableFuture<HelloReply> sayHello(HelloRequest r) {
      String lang = FuturesRpc.callMetadata().headers().get("lang");  // read before any async hop
      String hello = "fr".equals(lang) ? "bonjour " : "hello ";
      return CompletableFuture.completedFuture(HelloReply.newBuilder().setMessage(hello + r.getName()).build());
    }
    // ... the other methods of FuturesGreeter
    // end::futures-flavor[]

    @Override
    public Flow.Publisher<HelloReply> streamGreetings(HelloRequest request) {
      return FlowStreams.empty();
    }

    @Override
    public CompletableFuture<HelloReply> collectNames(Flow.Publisher<HelloRequest> requests) {
      return CompletableFuture.failedFuture(StatusException.of(Status.Code.UNIMPLEMENTED, "not in this example"));
    }

    @Override
    public Flow.Publisher<HelloReply> chat(Flow.Publisher<HelloRequest> requests) {
      return FlowStreams.error(StatusException.of(Status.Code.UNIMPLEMENTED, "not in this example"));
    }

    @Override
    public CompletableFuture<Void> notify(HelloRequest request) {
      return CompletableFuture.completedFuture(null);
    }
    // tag::futures-flavor[]
  }
  // end::futures-flavor[]

  static HelloReply futures(ClientTransport transport, HelloRequest request) throws Exception {
    ServiceRegistry registry;
    // tag::futures-flavor[]

    registry = ServiceRegistry.builder().add(new FuturesGreeterServer(new GreeterImpl())).build();
    FuturesGreeterClient greeter = new FuturesGreeterClient(FuturesClient.connect(transport).join().unwrap());
    HelloReply reply = greeter.sayHello(request).get();   // cancel(true) cancels the call
    // end::futures-flavor[]
    return registry == null ? null : reply;
  }

  // tag::grpc-flavor[]
  // grpc: grpc-java's shapes; methods not overridden fail with UNIMPLEMENTED
  static final class GrpcGreeterImpl extends GrpcGreeterImplBase {
    @Override
    public void sayHello(HelloRequest r, StreamObserver<HelloReply> responses) {
      responses.onNext(HelloReply.newBuilder().setMessage("hello " + r.getName()).build());
      responses.onCompleted();
    }
  }
  // end::grpc-flavor[]

  static ServiceRegistry grpc(
      ReactorRequester requester, HelloRequest request, StreamObserver<HelloReply> responseObserver) {
    ServiceRegistry registry;
    // tag::grpc-flavor[]

    registry = ServiceRegistry.builder().add(new GrpcGreeterImpl()).build();
    new GrpcGreeterClient(requester.unwrap()).sayHello(request, responseObserver);  // errors: StatusRuntimeException
    // end::grpc-flavor[]
    return registry;
  }

  static Map<Status.Code, LongAdder> instrumentation(ServiceRegistry registry, ReactorRequester requester) {
    // tag::instrumentation[]
    // Calls ended, by status. Runs on the connection's event loop: keep it cheap, never block.
    Map<Status.Code, LongAdder> ended = new ConcurrentHashMap<>();
    RpcInstrumentation instrumentation = (call, method) -> new RpcInstrumentation.CallObserver() {
      @Override
      public void onEnd(Status status, long nanosSinceStart) {
        ended.computeIfAbsent(status.code(), code -> new LongAdder()).increment();
      }
    };
    // Server side: every call the registry serves.
    Connections.serve(TcpServerTransport.create("127.0.0.1", 7878), ConnectionOptions.defaults(),
        RpcResponder.acceptor(registry, instrumentation));
    // Client side: every call made through this stub.
    ReactorGreeterClient greeter =
        new ReactorGreeterClient(requester).withOptions(CallOptions.DEFAULT.withInstrumentation(instrumentation));
    // end::instrumentation[]
    return greeter == null ? null : ended;
  }
}
