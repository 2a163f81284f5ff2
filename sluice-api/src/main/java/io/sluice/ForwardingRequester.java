package io.sluice;

import io.netty.buffer.ByteBufAllocator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A {@link Requester} that hands every call to another one: the base of a requester that changes
 * some calls (adds metadata, opens a span, counts) and passes the rest on unchanged. Override the
 * methods to change; each method that takes a message passes it, and its ownership, to the
 * delegate.
 */
public abstract class ForwardingRequester implements Requester {
  private final Requester delegate;

  protected ForwardingRequester(Requester delegate) {
    if (delegate == null) {
      throw new NullPointerException("delegate");
    }
    this.delegate = delegate;
  }

  /** The requester the calls go to. */
  public Requester delegate() {
    return delegate;
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
  public StreamHandle requestChannel(
      Message first, boolean complete, long initialRequest, StreamListener listener) {
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
}
