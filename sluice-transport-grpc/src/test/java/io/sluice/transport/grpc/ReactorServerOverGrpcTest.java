package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.StringValue;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.reactor.ReactorServerCalls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The Reactor flavor's server-call helpers (what its generated servers are made of) served over
 * gRPC to grpc-java: responses from another thread, a long stream paced by onReady, streams both
 * ways.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReactorServerOverGrpcTest {
  private static final String NAME = "sluice.test.Reactor";
  private GrpcServer.Running server;
  private ManagedChannel channel;

  private static io.grpc.MethodDescriptor<StringValue, StringValue> grpc(String m, io.grpc.MethodDescriptor.MethodType t) {
    return GrpcJavaClientTest.method(NAME, m, t, StringValue.getDefaultInstance(), StringValue.getDefaultInstance());
  }

  private static io.sluice.rpc.MethodDescriptor<StringValue, StringValue> sluice(String m, MethodKind k) {
    return io.sluice.rpc.MethodDescriptor.<StringValue, StringValue>builder()
        .service(NAME).method(m).kind(k).requestParser(StringValue.parser()).responseParser(StringValue.parser()).build();
  }

  @BeforeAll
  void start() {
    ServiceDefinition def =
        ServiceDefinition.builder(NAME)
            .add(
                sluice("Later", MethodKind.UNARY),
                ReactorServerCalls.<StringValue, StringValue>unary(
                    r -> Mono.delay(Duration.ofMillis(5)).map(x -> StringValue.of("later " + r.getValue()))))
            .add(
                sluice("Range", MethodKind.SERVER_STREAMING),
                ReactorServerCalls.<StringValue, StringValue>serverStreaming(
                    r -> Flux.range(0, Integer.parseInt(r.getValue())).map(i -> StringValue.of(Integer.toString(i)))
                        .subscribeOn(Schedulers.parallel())))
            .add(
                sluice("Join", MethodKind.CLIENT_STREAMING),
                ReactorServerCalls.<StringValue, StringValue>clientStreaming(
                    in -> in.map(StringValue::getValue).collectList().map(l -> StringValue.of(String.join(",", l)))))
            .add(
                sluice("Upper", MethodKind.BIDI_STREAMING),
                ReactorServerCalls.<StringValue, StringValue>bidiStreaming(
                    in -> in.map(v -> StringValue.of(v.getValue().toUpperCase(java.util.Locale.ROOT)))))
            .build();
    server = GrpcServer.create("127.0.0.1", 0).withServices(ServiceRegistry.builder().add(def).build()).start();
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
  }

  @AfterAll
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    server.close();
    server.onClose().get();
  }

  @Test
  void unaryAnsweredFromATimerThread() {
    StringValue out =
        ClientCalls.blockingUnaryCall(channel, grpc("Later", io.grpc.MethodDescriptor.MethodType.UNARY), CallOptions.DEFAULT, StringValue.of("x"));
    assertThat(out.getValue()).isEqualTo("later x");
  }

  @Test
  void aLongStreamPacedByOnReady() {
    Iterator<StringValue> it =
        ClientCalls.blockingServerStreamingCall(
            channel, grpc("Range", io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING), CallOptions.DEFAULT, StringValue.of("20000"));
    int expected = 0;
    while (it.hasNext()) {
      assertThat(it.next().getValue()).isEqualTo(Integer.toString(expected++));
    }
    assertThat(expected).isEqualTo(20000);
  }

  @Test
  void clientAndBidiStreaming() throws Exception {
    CompletableFuture<String> joined = new CompletableFuture<>();
    StreamObserver<StringValue> req =
        ClientCalls.asyncClientStreamingCall(
            channel.newCall(grpc("Join", io.grpc.MethodDescriptor.MethodType.CLIENT_STREAMING), CallOptions.DEFAULT),
            collector(joined));
    for (String s : List.of("a", "b", "c")) {
      req.onNext(StringValue.of(s));
    }
    req.onCompleted();
    assertThat(joined.get(20, TimeUnit.SECONDS)).isEqualTo("a,b,c");

    List<String> got = new ArrayList<>();
    CompletableFuture<String> done = new CompletableFuture<>();
    StreamObserver<StringValue> bidi =
        ClientCalls.asyncBidiStreamingCall(
            channel.newCall(grpc("Upper", io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING), CallOptions.DEFAULT),
            new StreamObserver<StringValue>() {
              @Override
              public void onNext(StringValue v) {
                synchronized (got) {
                  got.add(v.getValue());
                }
              }

              @Override
              public void onError(Throwable t) {
                done.completeExceptionally(t);
              }

              @Override
              public void onCompleted() {
                done.complete("ok");
              }
            });
    for (String s : List.of("x", "y", "z")) {
      bidi.onNext(StringValue.of(s));
    }
    bidi.onCompleted();
    assertThat(done.get(20, TimeUnit.SECONDS)).isEqualTo("ok");
    synchronized (got) {
      assertThat(got).containsExactly("X", "Y", "Z");
    }
  }

  private static StreamObserver<StringValue> collector(CompletableFuture<String> result) {
    return new StreamObserver<>() {
      @Override
      public void onNext(StringValue v) {
        result.complete(v.getValue());
      }

      @Override
      public void onError(Throwable t) {
        result.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {}
    };
  }
}
