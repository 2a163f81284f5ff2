package io.sluice.rpc.grpcstub;

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
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;

/**
 * Builds flavor-neutral {@link ServerCallHandler}s from grpc-java-style service methods; generated
 * {@code Grpc*Server} classes use it. The response observer a handler gets is a {@link
 * ServerCallStreamObserver}: {@code isCancelled()} and {@code setOnCancelHandler} see the call's
 * cancellation (caller cancel, connection loss or deadline). {@code onError} with a gRPC {@code
 * StatusRuntimeException} or a Sluice {@link StatusException} ends the call with that status;
 * other throwables are UNKNOWN. gRPC's flow control maps onto the caller's demand: {@code isReady()}
 * is true while the caller has demand left, the on-ready handler runs whenever it grants more, and
 * {@code disableAutoRequest()} + {@code request(n)} pace a streaming-request method's requests.
 * Responses written beyond the demand are buffered until the caller asks for them.
 *
 * <p><b>Threads.</b> Handler methods are invoked on the connection's event loop and must not block;
 * the request observer a streaming-request handler returns is called there too. The response
 * observer may be written from any thread, one call at a time (as any StreamObserver).
 *
 * <p><b>Buffers.</b> None reach the handler: it sees parsed protobuf messages, and the call
 * releases each request's bytes once parsed and owns the encoded responses.
 */
public final class GrpcServerCalls {
  private GrpcServerCalls() {}

  /** A unary method: {@code void m(Req, StreamObserver<Resp>)}. */
  public static <Req extends MessageLite, Resp extends MessageLite> ServerCallHandler<Req, Resp> unary(
      BiConsumer<Req, StreamObserver<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.unary(req -> single(method, req, true).singleOrEmpty());
  }

  /** A server-streaming method: {@code void m(Req, StreamObserver<Resp>)}. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> serverStreaming(BiConsumer<Req, StreamObserver<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.serverStreaming(req -> single(method, req, false));
  }

  /** A client-streaming method: {@code StreamObserver<Req> m(StreamObserver<Resp>)}. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> clientStreaming(Function<StreamObserver<Resp>, StreamObserver<Req>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.clientStreaming((Flux<Req> reqs) -> streaming(method, reqs, true).singleOrEmpty());
  }

  /** A bidi-streaming method: {@code StreamObserver<Req> m(StreamObserver<Resp>)}. */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> bidiStreaming(Function<StreamObserver<Resp>, StreamObserver<Req>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.bidiStreaming((Flux<Req> reqs) -> streaming(method, reqs, false));
  }

  /**
   * A fire-and-forget method: {@code void m(Req, StreamObserver<Resp>)}; whatever the handler
   * writes is dropped (the caller waits for nothing).
   */
  public static <Req extends MessageLite, Resp extends MessageLite>
      ServerCallHandler<Req, Resp> fireAndForget(BiConsumer<Req, StreamObserver<Resp>> method) {
    Objects.requireNonNull(method, "method");
    return ReactorServerCalls.fireAndForget(req -> single(method, req, false).then());
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

  private static <Req, Resp> Flux<Resp> single(
      BiConsumer<Req, StreamObserver<Resp>> method, Req req, boolean oneResponse) {
    return Flux.deferContextual(
        ctx -> Flux.<Resp>create(sink -> {
          Responses<Resp> responses = new Responses<>(sink, oneResponse);
          GrpcRpc.withCall(ctx, () -> {
            method.accept(req, responses);
            return null;
          });
          responses.started();
        }));
  }

  private static <Req, Resp> Flux<Resp> streaming(
      Function<StreamObserver<Resp>, StreamObserver<Req>> method, Flux<Req> requests, boolean oneResponse) {
    return Flux.deferContextual(
        ctx -> Flux.<Resp>create(sink -> {
          Responses<Resp> responses = new Responses<>(sink, oneResponse);
          StreamObserver<Req> in = GrpcRpc.withCall(ctx, () -> method.apply(responses));
          if (in == null) {
            sink.error(new NullPointerException("the handler returned no request observer"));
            return;
          }
          Requests<Req> r = new Requests<>(in, responses);
          sink.onDispose(r);
          requests.subscribe(r);
          responses.started();
        }));
  }

  /**
   * Delivers the call's requests to the handler's observer: all it can take (gRPC's automatic
   * inbound flow control), or, after {@code disableAutoRequest()}, only what it asks for with
   * {@code request(n)}.
   */
  private static final class Requests<Req> extends BaseSubscriber<Req> {
    private final StreamObserver<Req> in;
    private final Responses<?> responses;

    Requests(StreamObserver<Req> in, Responses<?> responses) {
      this.in = in;
      this.responses = responses;
    }

    @Override
    protected void hookOnSubscribe(Subscription s) {
      long early = responses.attach(this);
      if (!responses.manualInbound) {
        s.request(Long.MAX_VALUE);
      } else if (early > 0) {
        s.request(early);
      }
    }

    @Override
    protected void hookOnNext(Req value) {
      in.onNext(value);
    }

    @Override
    protected void hookOnError(Throwable t) {
      in.onError(GrpcStatuses.toGrpc(t));
    }

    @Override
    protected void hookOnComplete() {
      in.onCompleted();
    }
  }

  /**
   * The handler's response observer over the sink of the call's responses. It is ready while the
   * caller has demand left ({@code isReady()}), and its on-ready handler runs each time the caller
   * grants more, so a handler that writes {@code while (isReady())} from its on-ready handler never
   * writes ahead of the caller; writes beyond the demand are buffered, as in grpc-java.
   */
  private static final class Responses<Resp> extends ServerCallStreamObserver<Resp> {
    private final FluxSink<Resp> sink;
    private final boolean oneResponse; // a unary or client-streaming method
    private int responses; // the handler's writes, one at a time (StreamObserver's contract)
    private volatile boolean cancelled;
    private volatile Runnable onCancel;
    private volatile Runnable onClose;
    private volatile Runnable onReady;
    volatile boolean manualInbound; // disableAutoRequest() was called
    volatile Requests<?> requests; // streaming-request methods, once subscribed
    private long earlyRequests; // guarded by this: request(n) before the requests were subscribed

    Responses(FluxSink<Resp> sink, boolean oneResponse) {
      this.sink = sink;
      this.oneResponse = oneResponse;
      sink.onCancel(
          () -> {
            cancelled = true;
            Runnable r = onCancel;
            if (r != null) {
              r.run();
            }
          });
      sink.onRequest(
          n -> {
            Runnable r = onReady;
            if (r != null && !cancelled) {
              r.run();
            }
          });
    }

    /**
     * The handler method returned: as in grpc-java, an on-ready handler it set runs now if the
     * caller's demand arrived meanwhile (later grants run it from {@code onRequest}).
     */
    void started() {
      Runnable r = onReady;
      if (r != null && isReady()) {
        r.run();
      }
    }

    @Override
    public void onNext(Resp value) {
      Objects.requireNonNull(value, "value");
      if (oneResponse && ++responses > 1) {
        // As grpc-java's server calls: INTERNAL "Too many responses", not the text of Reactor's
        // single-item operator.
        sink.error(StatusException.of(Status.Code.INTERNAL, "Too many responses"));
        return;
      }
      sink.next(value);
    }

    @Override
    public void onError(Throwable t) {
      sink.error(GrpcStatuses.toSluice(t));
      closed();
    }

    @Override
    public void onCompleted() {
      sink.complete();
      closed();
    }

    /** The handler ended the call: its on-close handler runs (once the end is handed over). */
    private void closed() {
      Runnable r = onClose;
      if (r != null && !cancelled) {
        onClose = null;
        r.run();
      }
    }

    /**
     * Runs {@code onCloseHandler} once the handler has ended the call with {@code onCompleted} or
     * {@code onError} and the end has been handed to the transport; not when the call is cancelled
     * (grpc-java runs its on-cancel handler then).
     */
    @Override
    public void setOnCloseHandler(Runnable onCloseHandler) {
      this.onClose = onCloseHandler;
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
      return !cancelled && sink.requestedFromDownstream() > 0;
    }

    @Override
    public void setOnReadyHandler(Runnable onReadyHandler) {
      this.onReady = onReadyHandler;
    }

    @Override
    public void disableAutoInboundFlowControl() {
      manualInbound = true;
    }

    @Override
    public void disableAutoRequest() {
      manualInbound = true;
    }

    @Override
    public void request(int count) {
      if (count <= 0) {
        throw new IllegalArgumentException("request(" + count + "): must be positive");
      }
      Requests<?> r = requests;
      if (r == null) {
        synchronized (this) {
          r = requests;
          if (r == null) {
            earlyRequests += count;
            return;
          }
        }
      }
      r.request(count);
    }

    /** The requests are subscribed: later request(n) go to them; returns those made before. */
    synchronized long attach(Requests<?> subscribed) {
      requests = subscribed;
      long n = earlyRequests;
      earlyRequests = 0;
      return n;
    }

    @Override
    public void setMessageCompression(boolean enable) {}
  }
}
