package io.sluice.rpc;

import com.google.protobuf.MessageLite;
import io.sluice.Requester;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Applies {@link ClientInterceptor}s: to a {@link Requester} (an RSocket connection, a gRPC
 * channel, a balancer) that every flavor's generated client then calls through, or to a {@link
 * ClientChannel}.
 *
 * <pre>{@code
 * Requester intercepted = ClientInterceptors.intercept(connection, logging, auth);
 * FuturesGreeterClient greeter = new FuturesGreeterClient(intercepted); // a call runs auth, then logging
 * }</pre>
 *
 * <p><b>Order.</b> As in grpc-java: the interceptor listed <em>last</em> sees a call <em>first</em>,
 * and {@code intercept(intercept(r, a), b)} is {@code intercept(r, a, b)}.
 *
 * <p><b>Cost.</b> A client over a requester without interceptors takes the flavors' own path: no
 * {@link ClientCall} objects, no extra allocation. A call through interceptors allocates its chain
 * of calls and listeners and takes the flavors' general path.
 *
 * <p>Stateless and thread-safe. Holds no buffers.
 */
public final class ClientInterceptors {
  private ClientInterceptors() {}

  /**
   * {@code requester} with every RPC call made through it by a generated client going through
   * {@code interceptors}, the last one first. Everything else (raw RSocket interactions,
   * availability, close) is {@code requester}'s own. With no interceptors, {@code requester}
   * itself.
   *
   * @throws NullPointerException if {@code requester}, the array or one of its interceptors is null
   */
  public static Requester intercept(Requester requester, ClientInterceptor... interceptors) {
    Objects.requireNonNull(interceptors, "interceptors");
    return intercept(requester, Arrays.asList(interceptors));
  }

  /** As {@link #intercept(Requester, ClientInterceptor...)}. */
  public static Requester intercept(Requester requester, List<? extends ClientInterceptor> interceptors) {
    Objects.requireNonNull(requester, "requester");
    List<ClientInterceptor> chain = checked(interceptors);
    if (chain.isEmpty()) {
      return requester;
    }
    if (requester instanceof InterceptedRequester ir) {
      List<ClientInterceptor> all = new ArrayList<>(ir.interceptors());
      all.addAll(chain);
      return new InterceptedRequester(ir.delegate(), all);
    }
    return new InterceptedRequester(requester, chain);
  }

  /** {@code channel} with its calls going through {@code interceptors}, the last one first. */
  public static ClientChannel intercept(ClientChannel channel, ClientInterceptor... interceptors) {
    Objects.requireNonNull(interceptors, "interceptors");
    return intercept(channel, Arrays.asList(interceptors));
  }

  /** As {@link #intercept(ClientChannel, ClientInterceptor...)}. */
  public static ClientChannel intercept(ClientChannel channel, List<? extends ClientInterceptor> interceptors) {
    Objects.requireNonNull(channel, "channel");
    ClientChannel c = channel;
    for (ClientInterceptor i : checked(interceptors)) {
      c = new InterceptedChannel(c, i);
    }
    return c;
  }

  private static List<ClientInterceptor> checked(List<? extends ClientInterceptor> interceptors) {
    Objects.requireNonNull(interceptors, "interceptors");
    List<ClientInterceptor> chain = new ArrayList<>(interceptors.size());
    for (int i = 0; i < interceptors.size(); i++) {
      chain.add(Objects.requireNonNull(interceptors.get(i), "interceptors[" + i + "] is null"));
    }
    return List.copyOf(chain);
  }

  /**
   * A call that fails with {@code status} when started, without sending anything: what an
   * interceptor returns instead of {@code next.newCall(...)} to refuse a call on the client (no
   * credentials, a circuit breaker open, ...). Its listener gets {@link ClientCall.Listener#onClose}
   * on the starting thread; every other method does nothing.
   *
   * @throws IllegalArgumentException if {@code status} is OK
   */
  public static <Req extends MessageLite, Resp extends MessageLite> ClientCall<Req, Resp> failing(Status status) {
    Objects.requireNonNull(status, "status");
    if (status.isOk()) {
      throw new IllegalArgumentException("a failing call needs an error status, got OK");
    }
    return new FailingCall<>(status);
  }

  private static final class FailingCall<Req extends MessageLite, Resp extends MessageLite>
      extends ClientCall<Req, Resp> {
    private final Status status;

    FailingCall(Status status) {
      this.status = status;
    }

    @Override
    public void start(Listener<Resp> listener, Headers headers) {
      listener.onClose(status, Headers.EMPTY);
    }

    @Override
    public void request(long n) {}

    @Override
    public void cancel(String message, Throwable cause) {}

    @Override
    public void halfClose() {}

    @Override
    public void sendMessage(Req message) {}

    @Override
    public boolean isReady() {
      return false;
    }

    @Override
    public String toString() {
      return "ClientInterceptors.failing(" + status + ")";
    }
  }

  /** One interceptor in front of the rest of the chain. */
  private static final class InterceptedChannel implements ClientChannel {
    private final ClientChannel next;
    private final ClientInterceptor interceptor;

    InterceptedChannel(ClientChannel next, ClientInterceptor interceptor) {
      this.next = next;
      this.interceptor = interceptor;
    }

    @Override
    public <Req extends MessageLite, Resp extends MessageLite> ClientCall<Req, Resp> newCall(
        MethodDescriptor<Req, Resp> method, CallOptions options) {
      return Objects.requireNonNull(
          interceptor.interceptCall(method, options, next), () -> interceptor + " returned a null call");
    }

    @Override
    public String toString() {
      return interceptor + " -> " + next;
    }
  }
}
