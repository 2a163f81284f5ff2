package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import com.google.protobuf.StringValue;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.netty.handler.ssl.SslContext;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.futures.FuturesClientCalls;
import io.sluice.rpc.grpcstub.GrpcClientCalls;
import io.sluice.transport.netty.Tls;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;

/**
 * The futures flavor ({@link FuturesClientCalls}) and the gRPC StreamObserver flavor ({@link
 * GrpcClientCalls}), what their generated clients call, against a stock grpc-java server over TLS
 * (ALPN h2) through a {@link GrpcChannel}.
 */
class FuturesAndObserverFlavorsOverGrpcTlsTest {
  private static GrpcJavaEchoServer server;
  private static GrpcChannel channel;
  private static ReactorRequester requester;

  @BeforeAll
  static void start() throws Exception {
    server = GrpcJavaEchoServer.tls();
    SslContext ssl = Tls.client().trust(server.certificate).alpn("h2").build();
    channel =
        GrpcClientTransport.create("127.0.0.1", server.port()).withSsl(ssl).connect().get(30, TimeUnit.SECONDS);
    requester = new ReactorRequester(channel);
  }

  @AfterAll
  static void stop() throws Exception {
    channel.close();
    channel.onClose().get(30, TimeUnit.SECONDS);
    server.close();
  }

  @Test
  void futuresUnary() throws Exception {
    CompletableFuture<StringValue> f =
        FuturesClientCalls.unary(requester, EchoMethods.UNARY, CallOptions.DEFAULT, StringValue.of("over tls"));
    assertThat(f.get(30, TimeUnit.SECONDS).getValue()).isEqualTo("over tls");
  }

  @Test
  void futuresFailureCarriesTheStatus() {
    CompletableFuture<StringValue> f =
        FuturesClientCalls.unary(requester, EchoMethods.UNARY, CallOptions.DEFAULT, StringValue.of("status:7:no, 100%"));
    assertThatThrownBy(() -> f.get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(StatusException.class)
        .satisfies(e -> assertThat(((StatusException) e).status()).isEqualTo(Status.of(Status.Code.PERMISSION_DENIED, "no, 100%")));
  }

  @Test
  void futuresServerStreaming() {
    Flow.Publisher<BytesValue> p =
        FuturesClientCalls.serverStreaming(requester, EchoMethods.STREAM, CallOptions.DEFAULT, StringValue.of("10:3000"));
    List<BytesValue> all = JdkFlowAdapter.flowPublisherToFlux(p).collectList().block(java.time.Duration.ofSeconds(30));
    assertThat(all).hasSize(10);
    for (int i = 0; i < 10; i++) {
      assertThat(all.get(i).getValue().byteAt(0)).isEqualTo((byte) i);
    }
  }

  @Test
  void futuresClientStreaming() throws Exception {
    try (SubmissionPublisher<BytesValue> requests = new SubmissionPublisher<>()) {
      CompletableFuture<StringValue> f =
          FuturesClientCalls.clientStreaming(requester, EchoMethods.SUM, CallOptions.DEFAULT, requests);
      for (int i = 0; i < 5; i++) {
        requests.submit(BytesValue.of(ByteString.copyFrom(new byte[1000])));
      }
      requests.close();
      assertThat(f.get(30, TimeUnit.SECONDS).getValue()).isEqualTo("5:5000");
    }
  }

  /** Collects what a StreamObserver is told. */
  private static final class Collector<T> implements StreamObserver<T> {
    final List<T> values = new CopyOnWriteArrayList<>();
    final CompletableFuture<List<T>> done = new CompletableFuture<>();

    @Override
    public void onNext(T value) {
      values.add(value);
    }

    @Override
    public void onError(Throwable t) {
      done.completeExceptionally(t);
    }

    @Override
    public void onCompleted() {
      done.complete(values);
    }
  }

  @Test
  void observerUnaryAndItsFailure() throws Exception {
    Collector<StringValue> ok = new Collector<>();
    GrpcClientCalls.unary(requester, EchoMethods.UNARY, CallOptions.DEFAULT, StringValue.of("observed"), ok);
    assertThat(ok.done.get(30, TimeUnit.SECONDS)).containsExactly(StringValue.of("observed"));

    Collector<StringValue> failed = new Collector<>();
    GrpcClientCalls.unary(requester, EchoMethods.UNARY, CallOptions.DEFAULT, StringValue.of("status:14:try later"), failed);
    assertThatThrownBy(() -> failed.done.join())
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOf(StatusRuntimeException.class)
        .satisfies(
            e -> {
              io.grpc.Status s = ((StatusRuntimeException) e).getStatus();
              assertThat(s.getCode()).isEqualTo(io.grpc.Status.Code.UNAVAILABLE);
              assertThat(s.getDescription()).isEqualTo("try later");
            });
  }

  @Test
  void observerBidiStreaming() throws Exception {
    Collector<StringValue> answers = new Collector<>();
    StreamObserver<StringValue> requests =
        GrpcClientCalls.bidiStreaming(requester, EchoMethods.CHAT, CallOptions.DEFAULT, answers);
    requests.onNext(StringValue.of("one"));
    requests.onNext(StringValue.of("two"));
    requests.onCompleted();
    assertThat(answers.done.get(30, TimeUnit.SECONDS))
        .extracting(StringValue::getValue)
        .containsExactly("echo:one", "echo:two");
  }

  @Test
  void untrustedServerIsUnavailable() {
    SslContext trustsNothing = Tls.client().trust(Tls.selfSigned("127.0.0.1").certificate()).alpn("h2").build();
    assertThatThrownBy(
            () -> GrpcClientTransport.create("127.0.0.1", server.port()).withSsl(trustsNothing).connect().join())
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOf(StatusException.class)
        .satisfies(
            e -> {
              Status s = ((StatusException) e).status();
              assertThat(s.code()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(s.description()).startsWith("cannot connect to the gRPC server at 127.0.0.1:" + server.port());
            });
  }

  @Test
  void reactorBidiOverTls() {
    assertThat(
            io.sluice.rpc.reactor.ReactorClientCalls.bidiStreaming(
                    requester, EchoMethods.CHAT, CallOptions.DEFAULT, Flux.range(0, 50).map(i -> StringValue.of("m" + i)))
                .count()
                .block(java.time.Duration.ofSeconds(30)))
        .isEqualTo(50);
  }
}
