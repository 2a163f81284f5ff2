package io.sluice.rpc.grpc;

import com.google.protobuf.MessageLite;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.reactor.ReactorServerCalls;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Function;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;

/**
 * Builds flavor-neutral {@link ServerCallHandler}s from grpc-java-style service methods; generated
 * {@code Grpc*Server} classes use it. The response observer a handler gets is a {@link
 * ServerCallStreamObserver}: {@code isCancelled()} and {@code setOnCancelHandler} see the call's
 * cancellation (caller cancel, connection loss or deadline). {@code onError} with a gRPC {@code
 * StatusRuntimeException} or a Sluice {@link StatusException} ends the call with that status;
 * other throwables are UNKNOWN. Responses written are buffered until the caller asks for them.
 */
public final class GrpcServerCalls {
  private GrpcServerCalls() {}

  /** A unary method: {@code void m(Req, StreamObserver<Resp>)}. */
  public static <Req extends MessageLite, Resp extends MessageLite> ServerCallHandler<Req, Resp> unary(
      BiConsumer<Req, StreamObserver<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.unary(req -> single(method, req).singleOrEmpty());
  }

  /** A server-streaming method: {@code void m(Req, StreamObserver<Resp>)}. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> serverStreaming(BiConsumer<Req, StreamObserver<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.serverStreaming(req -> single(method, req));
  }

  /** A client-streaming method: {@code StreamObserver<Req> m(StreamObserver<Resp>)}. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> clientStreaming(Function<StreamObserver<Resp>, StreamObserver<Req>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.clientStreaming((Flux<Req> reqs) -> streaming(method, reqs).singleOrEmpty());
  }

  /** A bidi-streaming method: {@code StreamObserver<Req> m(StreamObserver<Resp>)}. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> bidiStreaming(Function<StreamObserver<Resp>, StreamObserver<Req>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.bidiStreaming((Flux<Req> reqs) -> streaming(method, reqs));
  }

  /**
   * A fire-and-forget method: {@code void m(Req, StreamObserver<Resp>)}; whatever the handler
   * writes is dropped (the caller waits for nothing).
   */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> fireAndForget(BiConsumer<Req, StreamObserver<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.fireAndForget(req -> single(method, req).then());
  }

  /**
   * What a generated service method does until the application overrides it: fails the call with
   * UNIMPLEMENTED. Returns an observer that ignores requests, for streaming-request methods.
   */
  public static <Req, Resp> StreamObserver<Req> unimplemented(
      MethodDescriptor<?, ?> method, StreamObserver<Resp> responses) {
    responses.onError(
        StatusException.of(Status.Code.UNIMPLEMENTED, "method " + method.fullName() + " is not implemented"));
    return new StreamObserver<Req>() {
      @Override
      public void onNext(Req value) {}

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {}
    };
  }

  private static <Req, Resp> Flux<Resp> single(BiConsumer<Req, StreamObserver<Resp>> method, Req req) {
    return Flux.deferContextual(
        ctx -> Flux.<Resp>create(sink -> GrpcRpc.withCall(ctx, () -> {
          method.accept(req, new Responses<>(sink));
          return null;
        })));
  }

  private static <Req, Resp> Flux<Resp> streaming(
      Function<StreamObserver<Resp>, StreamObserver<Req>> method, Flux<Req> requests) {
    return Flux.deferContextual(
        ctx -> Flux.<Resp>create(sink -> {
          StreamObserver<Req> in = GrpcRpc.withCall(ctx, () -> method.apply(new Responses<>(sink)));
          if (in == null) {
            sink.error(new NullPointerException("the handler returned no request observer"));
            return;
          }
          Disposable d =
              requests.subscribe(
                  in::onNext,
                  e -> in.onError(GrpcStatuses.toGrpc(e)),
                  in::onCompleted);
          sink.onDispose(d);
        }));
  }

  /** The handler's response observer over the sink of the call's responses. */
  private static final class Responses<Resp> extends ServerCallStreamObserver<Resp> {
    private final FluxSink<Resp> sink;
    private volatile boolean cancelled;
    private volatile Runnable onCancel;

    Responses(FluxSink<Resp> sink) {
      this.sink = sink;
      sink.onCancel(
          () -> {
            cancelled = true;
            Runnable r = onCancel;
            if (r != null) {
              r.run();
            }
          });
    }

    @Override
    public void onNext(Resp value) {
      sink.next(Objects.requireNonNull(value, "value"));
    }

    @Override
    public void onError(Throwable t) {
      sink.error(GrpcStatuses.toSluice(t));
    }

    @Override
    public void onCompleted() {
      sink.complete();
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }

    @Override
    public void setOnCancelHandler(Runnable onCancelHandler) {
      this.onCancel = onCancelHandler;
    }

    @Override
    public void setCompression(String compression) {}

    @Override
    public boolean isReady() {
      return !cancelled;
    }

    @Override
    public void setOnReadyHandler(Runnable onReadyHandler) {}

    @Override
    public void disableAutoInboundFlowControl() {}

    @Override
    public void request(int count) {}

    @Override
    public void setMessageCompression(boolean enable) {}
  }
}
