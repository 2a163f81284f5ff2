package io.sluice.rpc;

import com.google.protobuf.MessageLite;
import java.util.Objects;

/**
 * A {@link ClientCall} that hands every method on to another call, for an interceptor to override
 * only what it changes: {@link #start} to add headers or wrap the listener (in a {@link
 * ForwardingClientCallListener}), {@link #sendMessage} to see or replace requests.
 *
 * <p><b>Threads.</b> As {@link ClientCall}. <b>Buffers.</b> None.
 *
 * @param <Req> request message type
 * @param <Resp> response message type
 */
public class ForwardingClientCall<Req extends MessageLite, Resp extends MessageLite>
    extends ClientCall<Req, Resp> {
  private final ClientCall<Req, Resp> delegate;

  /** A call forwarding to {@code delegate}. */
  public ForwardingClientCall(ClientCall<Req, Resp> delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The call this one forwards to. */
  protected final ClientCall<Req, Resp> delegate() {
    return delegate;
  }

  @Override
  public void start(Listener<Resp> listener, Headers headers) {
    delegate.start(listener, headers);
  }

  @Override
  public void request(long n) {
    delegate.request(n);
  }

  @Override
  public void cancel(String message, Throwable cause) {
    delegate.cancel(message, cause);
  }

  @Override
  public void halfClose() {
    delegate.halfClose();
  }

  @Override
  public void sendMessage(Req message) {
    delegate.sendMessage(message);
  }

  @Override
  public boolean isReady() {
    return delegate.isReady();
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "(" + delegate + ")";
  }
}
