package io.sluice.rpc;

import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
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
public final class InterceptedRequester implements Requester {
  private final Requester delegate;
  private final List<ClientInterceptor> interceptors;
  private volatile Function<Requester, ClientChannel> cachedFor;
  private volatile ClientChannel cached;

  InterceptedRequester(Requester delegate, List<ClientInterceptor> interceptors) {
    this.delegate = delegate;
    this.interceptors = List.copyOf(interceptors);
  }

  /** The requester underneath, which the transport's calls go to. */
  public Requester delegate() {
    return delegate;
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
    c = ClientInterceptors.intercept(terminal.apply(delegate), interceptors);
    cached = c;
    cachedFor = terminal;
    return c;
  }

  @Override
  public void fireAndForget(Message request, StreamListener listener) {
    delegate.fireAndForget(request, listener);
  }

  @Override
  public StreamHandle requestResponse(Message request, StreamListener listener) {
    return delegate.requestResponse(request, listener);
  }

  @Override
  public StreamHandle requestStream(Message request, long initialRequest, StreamListener listener) {
    return delegate.requestStream(request, initialRequest, listener);
  }

  @Override
  public StreamHandle requestChannel(Message first, boolean complete, long initialRequest, StreamListener listener) {
    return delegate.requestChannel(first, complete, initialRequest, listener);
  }

  @Override
  public void metadataPush(Message metadata, StreamListener listener) {
    delegate.metadataPush(metadata, listener);
  }

  @Override
  public double availability() {
    return delegate.availability();
  }

  @Override
  public double availability(int rank) {
    return delegate.availability(rank);
  }

  @Override
  public ByteBufAllocator alloc() {
    return delegate.alloc();
  }

  @Override
  public Executor executor() {
    return delegate.executor();
  }

  @Override
  public boolean isOpen() {
    return delegate.isOpen();
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public void dispose() {
    delegate.dispose();
  }

  @Override
  public CompletableFuture<Void> onClose() {
    return delegate.onClose();
  }

  @Override
  public String toString() {
    return delegate + " with " + interceptors;
  }
}
