package io.sluice.rpc;

import com.google.protobuf.MessageLite;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Applies {@link ServerInterceptor}s to a service: {@link #intercept} returns a {@link
 * ServiceDefinition} of the same name and protobuf file (so server reflection still describes it)
 * whose every method runs the interceptors before its handler.
 *
 * <pre>{@code
 * ServiceRegistry registry = ServiceRegistry.builder()
 *     .add(ServerInterceptors.intercept(new ReactorGreeterServer(impl), logging, auth))
 *     .build();   // a call runs auth, then logging, then the handler
 * }</pre>
 *
 * <p><b>Order.</b> As in grpc-java: the interceptor listed <em>last</em> runs <em>first</em>, so
 * {@code intercept(s, a, b)} is {@code intercept(intercept(s, a), b)}: each call to {@code
 * intercept} wraps the service once more, and the outermost wrapper sees a call first.
 *
 * <p>Stateless and thread-safe; the definitions it returns are immutable. Holds no buffers.
 */
public final class ServerInterceptors {
  private ServerInterceptors() {}

  /**
   * {@code service} with every method's calls going through {@code interceptors}, the last one
   * first. With no interceptors, an equal definition.
   *
   * @throws NullPointerException if {@code service}, the array or one of its interceptors is null
   */
  public static ServiceDefinition intercept(BindableService service, ServerInterceptor... interceptors) {
    Objects.requireNonNull(interceptors, "interceptors");
    return intercept(service, Arrays.asList(interceptors));
  }

  /**
   * {@code service} with every method's calls going through {@code interceptors}, the last one
   * first (see the class's javadoc).
   *
   * @throws NullPointerException if {@code service}, the list or one of its interceptors is null
   */
  public static ServiceDefinition intercept(
      BindableService service, List<? extends ServerInterceptor> interceptors) {
    Objects.requireNonNull(service, "service");
    Objects.requireNonNull(interceptors, "interceptors");
    List<ServerInterceptor> chain = new ArrayList<>(interceptors.size());
    for (int i = 0; i < interceptors.size(); i++) {
      chain.add(Objects.requireNonNull(interceptors.get(i), "interceptors[" + i + "] is null"));
    }
    ServiceDefinition def =
        Objects.requireNonNull(service.bindService(), "bindService() of " + service + " returned null");
    ServiceDefinition.Builder b = ServiceDefinition.builder(def.name());
    if (def.fileDescriptor() != null) {
      b.fileDescriptor(def.fileDescriptor());
    }
    for (ServerMethodDefinition<?, ?> m : def.methods()) {
      add(b, m, chain);
    }
    return b.build();
  }

  private static <Req extends MessageLite, Resp extends MessageLite> void add(
      ServiceDefinition.Builder b, ServerMethodDefinition<Req, Resp> m, List<ServerInterceptor> chain) {
    ServerCallHandler<Req, Resp> h = m.handler();
    for (ServerInterceptor i : chain) {
      h = new Intercepted<>(i, h);
    }
    b.add(m.method(), h);
  }

  /**
   * Ends {@code call} with {@code status} instead of starting its handler, and returns the listener
   * an interceptor returns for it (one that ignores every signal). For an interceptor that refuses
   * a call, e.g. {@link Status.Code#UNAUTHENTICATED} for a call without credentials: the handler
   * never runs, and the transport releases the request it holds once the call has ended. Call it
   * from {@link ServerInterceptor#interceptCall} itself (see {@link ServerInterceptor}, "Buffers",
   * for a call refused later).
   */
  public static <Req extends MessageLite> ServerCall.Listener<Req> reject(
      ServerCall<Req, ?> call, Status status) {
    return reject(call, status, Headers.EMPTY);
  }

  /** As {@link #reject(ServerCall, Status)}, ending the call with {@code trailers} too. */
  public static <Req extends MessageLite> ServerCall.Listener<Req> reject(
      ServerCall<Req, ?> call, Status status, Headers trailers) {
    Objects.requireNonNull(call, "call");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(trailers, "trailers");
    if (trailers.isEmpty()) {
      call.close(status);
    } else {
      call.close(status, trailers);
    }
    return ignoring();
  }

  /**
   * An interceptor that adds response metadata to every call: the headers {@code headers} gives for
   * the call's request metadata go out as the call starts (on the transport's thread, before the
   * handler runs; nothing when they are empty), and the trailers {@code trailers} gives for the
   * call and the status it ends with go out with its end, ahead of the trailers the handler gave.
   * Both travel through the call model ({@link ServerCall#sendHeaders}, {@link
   * ServerCall#close(Status, Headers)}), so over gRPC and RSocket alike (over RSocket to callers
   * that ask for response metadata). The functions may be called from any thread and must not
   * block.
   *
   * <p>The headers go out at the start rather than with the first response: a response written from
   * another thread and the close right behind it could otherwise race the headers. A call sends
   * its headers once: when {@code headers} gives any, headers the handler sends itself later are
   * not sent (merge them into what {@code headers} gives instead).
   *
   * @throws NullPointerException if either function is null
   */
  public static ServerInterceptor responseMetadata(
      Function<CallMetadata, Headers> headers, BiFunction<CallMetadata, Status, Headers> trailers) {
    return new AddsResponseMetadata(headers, trailers);
  }

  /**
   * An interceptor that sends the text of handlers' exceptions to callers. By default a call whose
   * handler (or interceptor, or listener) fails with an exception that carries no status ends with
   * {@link Status.Code#UNKNOWN} and no description ({@link HandlerFailures}); behind this
   * interceptor it ends UNKNOWN with the exception's message (its {@code toString()} when it has no
   * message) as description, on every transport. For services whose exceptions hold nothing a
   * caller must not read (a test server, a service behind a gateway that strips descriptions):
   * exception text can name hosts, users, paths or SQL.
   *
   * <p>It sees what the interceptors and the handler after it do: list it last in {@link
   * #intercept} (it then runs first) to cover them all. Failures the transport reports itself
   * (deadline, malformed request, ...) are not exceptions of the handler and are left as they are.
   */
  public static ServerInterceptor exposeErrorMessages() {
    return ExposeErrorMessages.INSTANCE;
  }

  /** {@link #exposeErrorMessages()}. */
  private static final class ExposeErrorMessages implements ServerInterceptor {
    static final ExposeErrorMessages INSTANCE = new ExposeErrorMessages();

    @Override
    public <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> interceptCall(
        ServerCall<Req, Resp> call, ServerCallHandler<Req, Resp> next) {
      ServerCall<Req, Resp> exposing =
          new ForwardingServerCall<Req, Resp>(call) {
            @Override
            public void close(Status status) {
              super.close(expose(status));
            }

            @Override
            public void close(Status status, Headers trailers) {
              super.close(expose(status), trailers);
            }
          };
      ServerCall.Listener<Req> l;
      try {
        l = next.startCall(exposing);
      } catch (RuntimeException e) {
        HandlerFailures.close(exposing, e);
        return ignoring();
      }
      if (l == null) {
        return null; // the transport ends the call with INTERNAL, as without this interceptor
      }
      return new ServerCall.Listener<Req>() {
        @Override
        public void onMessage(Req message) {
          try {
            l.onMessage(message);
          } catch (RuntimeException e) {
            HandlerFailures.close(exposing, e);
          }
        }

        @Override
        public void onHalfClose() {
          try {
            l.onHalfClose();
          } catch (RuntimeException e) {
            HandlerFailures.close(exposing, e);
          }
        }

        @Override
        public void onCancel() {
          l.onCancel();
        }

        @Override
        public void onReady(long n) {
          try {
            l.onReady(n);
          } catch (RuntimeException e) {
            HandlerFailures.close(exposing, e);
          }
        }
      };
    }

    /** {@code s} with its cause's text as description when it is a handler failure without one. */
    private static Status expose(Status s) {
      if (s.code() == Status.Code.UNKNOWN && s.description().isEmpty() && s.cause() != null) {
        return s.withDescription(Status.textOf(s.cause()));
      }
      return s;
    }

    @Override
    public String toString() {
      return "ServerInterceptors.exposeErrorMessages()";
    }
  }

  /** A listener that ignores every signal, for a call that was ended without starting its handler. */
  @SuppressWarnings("unchecked")
  public static <Req> ServerCall.Listener<Req> ignoring() {
    return (ServerCall.Listener<Req>) Ignoring.INSTANCE;
  }

  /** One interceptor in front of the rest of the chain. */
  private static final class Intercepted<Req extends MessageLite, Resp extends MessageLite>
      implements ServerCallHandler<Req, Resp> {
    private final ServerInterceptor interceptor;
    private final ServerCallHandler<Req, Resp> next;

    Intercepted(ServerInterceptor interceptor, ServerCallHandler<Req, Resp> next) {
      this.interceptor = interceptor;
      this.next = next;
    }

    @Override
    public ServerCall.Listener<Req> startCall(ServerCall<Req, Resp> call) {
      return interceptor.interceptCall(call, next);
    }

    @Override
    public String toString() {
      return interceptor + " -> " + next;
    }
  }

  private static final class Ignoring implements ServerCall.Listener<Object> {
    static final Ignoring INSTANCE = new Ignoring();

    @Override
    public void onMessage(Object message) {}

    @Override
    public void onHalfClose() {}

    @Override
    public void onCancel() {}

    @Override
    public void onReady(long n) {}

    @Override
    public String toString() {
      return "ServerInterceptors.ignoring()";
    }
  }
}
