package io.sluice.rpc.blocking;

import static io.sluice.rpc.reactor.fixture.EchoOverTcp.req;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.MessageLite;
import io.sluice.Requester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.ClientCall;
import io.sluice.rpc.ClientChannel;
import io.sluice.rpc.ClientInterceptor;
import io.sluice.rpc.ClientInterceptors;
import io.sluice.rpc.ForwardingClientCall;
import io.sluice.rpc.ForwardingClientCallListener;
import io.sluice.rpc.Headers;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.ServerInterceptor;
import io.sluice.rpc.ServerInterceptors;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.rpc.reactor.fixture.EchoOverTcp;
import io.sluice.transport.grpc.GrpcChannel;
import io.sluice.transport.grpc.GrpcClientTransport;
import io.sluice.transport.grpc.GrpcServer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import sluice.test.echo.BlockingEchoServiceClient;
import sluice.test.echo.BlockingEchoServiceServer;
import sluice.test.echo.EchoOuterClass.EchoReply;

/**
 * The blocking flavor's client through {@link ClientInterceptor}s, over RSocket and over gRPC: a
 * header an interceptor adds reaches the server for every method kind, and an interceptor sees each
 * call's status.
 */
class BlockingClientInterceptorsTest {
  private static EchoOverTcp tcp;
  private static GrpcServer.Running grpcServer;
  private static GrpcChannel grpc;
  private static final Map<String, List<String>> seen = new ConcurrentHashMap<>();

  static final class Recording implements ServerInterceptor {
    @Override
    public <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> interceptCall(
        ServerCall<Req, Resp> call, ServerCallHandler<Req, Resp> next) {
      seen.computeIfAbsent(call.method().method(), k -> new CopyOnWriteArrayList<>())
          .add(String.valueOf(call.metadata().headers().get("x-client")));
      return next.startCall(call);
    }
  }

  /** Adds {@code x-client}, and records the status of each call. */
  static final class Tagging implements ClientInterceptor {
    final List<Status.Code> closed = new CopyOnWriteArrayList<>();

    @Override
    public <Req extends MessageLite, Resp extends MessageLite> ClientCall<Req, Resp> interceptCall(
        MethodDescriptor<Req, Resp> method, CallOptions options, ClientChannel next) {
      return new ForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void start(ClientCall.Listener<Resp> listener, Headers headers) {
          super.start(new ForwardingClientCallListener<>(listener) {
            @Override
            public void onClose(Status status, Headers trailers) {
              closed.add(status.code());
              super.onClose(status, trailers);
            }
          }, headers.toBuilder().add("x-client", "blocking").build());
        }
      };
    }
  }

  @BeforeAll
  static void start() throws Exception {
    ServiceRegistry registry = ServiceRegistry.builder()
        .add(ServerInterceptors.intercept(new BlockingEchoServiceServer(new BlockingEchoImpl()), new Recording()))
        .build();
    tcp = EchoOverTcp.start(registry);
    grpcServer = GrpcServer.create("127.0.0.1", 0).withServices(registry).start();
    grpc = GrpcClientTransport.create("127.0.0.1", grpcServer.port()).connect().get(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    grpc.dispose();
    grpcServer.close();
    tcp.close();
  }

  private static <T> T onVirtualThread(Callable<T> body) throws Exception {
    ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    try {
      return executor.submit(body).get(30, TimeUnit.SECONDS);
    } finally {
      executor.shutdownNow();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"rsocket", "grpc"})
  void everyKindCarriesTheHeader(String wire) throws Exception {
    seen.clear();
    Requester connection = wire.equals("grpc") ? grpc : tcp.requester().unwrap();
    Tagging tagging = new Tagging();
    BlockingEchoServiceClient c = new BlockingEchoServiceClient(ClientInterceptors.intercept(connection, tagging));
    assertThat(onVirtualThread(() -> c.say(req("a"))).getText()).isEqualTo("a");
    assertThat(onVirtualThread(() -> {
      try (Stream<EchoReply> s = c.repeat(req("r").toBuilder().setCount(3).build())) {
        return s.count();
      }
    })).isEqualTo(3);
    assertThat(onVirtualThread(() -> c.join(Stream.of(req("x"), req("y"))))).isNotNull();
    assertThat(onVirtualThread(() -> {
      try (Stream<EchoReply> s = c.chat(Stream.of(req("p"), req("q")))) {
        return s.map(EchoReply::getText).collect(Collectors.toList());
      }
    })).hasSize(2);
    for (String m : List.of("Say", "Repeat", "Join", "Chat")) {
      assertThat(seen.get(m)).as(m).containsExactly("blocking");
    }
    assertThat(tagging.closed).containsExactly(Status.Code.OK, Status.Code.OK, Status.Code.OK, Status.Code.OK);
  }
}
