package io.sluice.rpc;

import io.sluice.ForwardingRequester;
import io.sluice.Requester;
import java.util.List;
import java.util.function.Function;

/**
 * A {@link Requester} with {@link ClientInterceptor}s, made by {@link
 * ClientInterceptors#intercept(Requester, ClientInterceptor...)}. Its raw interactions, allocator,
 * executor, availability and lifecycle are its delegate's; the flavors' RPC runtimes see it and
 * run their calls through {@link #channel}.
 *
 * <p>Immutable and thread-safe. Every method that takes a message passes it, and its ownership, to
 * the delegate.
 */
public final class InterceptedRequester extends ForwardingRequester {
  private final List<ClientInterceptor> interceptors;
  private volatile Function<Requester, ClientChannel> cachedFor;
  private volatile ClientChannel cached;

  InterceptedRequester(Requester delegate, List<ClientInterceptor> interceptors) {
    super(delegate);
    this.interceptors = List.copyOf(interceptors);
  }

  /** The interceptors, in the order given (the last one sees a call first). */
  public List<ClientInterceptor> interceptors() {
    return interceptors;
  }

  /**
   * The interceptors in front of the channel {@code terminal} makes for the delegate: for a flavor
   * runtime, whose {@code terminal} turns a {@link ClientCall} into calls on a requester. Built once
   * per {@code terminal} function and kept.
   */
  public ClientChannel channel(Function<Requester, ClientChannel> terminal) {
    ClientChannel c = cached;
    if (c != null && cachedFor == terminal) {
      return c;
    }
    c = ClientInterceptors.intercept(terminal.apply(delegate()), interceptors);
    cached = c;
    cachedFor = terminal;
    return c;
  }

  @Override
  public String toString() {
    return delegate() + " with " + interceptors;
  }
}
