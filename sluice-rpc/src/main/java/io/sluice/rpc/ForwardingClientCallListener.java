package io.sluice.rpc;

import java.util.Objects;

/**
 * A {@link ClientCall.Listener} that hands every signal on to another listener, for an interceptor
 * to override only what it watches: {@link #onClose} to see how a call ended, {@link #onMessage}
 * to count or replace responses, {@link #onHeaders} to read response headers.
 *
 * <pre>{@code
 * super.start(new ForwardingClientCallListener<Resp>(listener) {
 *   public void onClose(Status status, Headers trailers) {
 *     log.info("{} ended {}", method.fullName(), status.code());
 *     super.onClose(status, trailers);
 *   }
 * }, headers);
 * }</pre>
 *
 * <p><b>Threads.</b> As {@link ClientCall.Listener}. <b>Buffers.</b> None.
 *
 * @param <Resp> response message type
 */
public class ForwardingClientCallListener<Resp> extends ClientCall.Listener<Resp> {
  private final ClientCall.Listener<Resp> delegate;

  /** A listener forwarding to {@code delegate}. */
  public ForwardingClientCallListener(ClientCall.Listener<Resp> delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The listener this one forwards to. */
  protected final ClientCall.Listener<Resp> delegate() {
    return delegate;
  }

  @Override
  public void onHeaders(Headers headers) {
    delegate.onHeaders(headers);
  }

  @Override
  public void onMessage(Resp message) {
    delegate.onMessage(message);
  }

  @Override
  public void onClose(Status status, Headers trailers) {
    delegate.onClose(status, trailers);
  }

  @Override
  public void onReady() {
    delegate.onReady();
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "(" + delegate + ")";
  }
}
