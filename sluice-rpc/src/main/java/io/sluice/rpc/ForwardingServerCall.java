package io.sluice.rpc;

import com.google.protobuf.MessageLite;
import java.util.Objects;

/**
 * A {@link ServerCall} that hands every method on to another call, for an interceptor to override
 * only what it changes: say {@link #close(Status, Headers)} to add trailers to however the call
 * ends, or {@link #sendMessage} to count responses.
 *
 * <pre>{@code
 * ServerCall<Req, Resp> counted = new ForwardingServerCall<>(call) {
 *   public void sendMessage(Resp message) {
 *     sent.increment();
 *     super.sendMessage(message);
 *   }
 * };
 * }</pre>
 *
 * <p>Every method forwards, including {@link #sendHeaders} and {@link #close(Status, Headers)}
 * (which, unlike the interface's defaults, reach the delegate's own versions). An override of
 * {@link #close(Status)} does not see {@link #close(Status, Headers)} and the reverse: override
 * both to see every way a call ends.
 *
 * <p><b>Threads.</b> As {@link ServerCall}: any thread, one signal at a time; a subclass adds no
 * locking of its own, so state it keeps is touched one signal at a time too, but possibly from a
 * different thread each time (make it volatile or otherwise safely published). <b>Buffers.</b> None.
 *
 * @param <Req> request message type
 * @param <Resp> response message type
 */
public class ForwardingServerCall<Req extends MessageLite, Resp extends MessageLite>
    implements ServerCall<Req, Resp> {
  private final ServerCall<Req, Resp> delegate;

  /** A call forwarding to {@code delegate}. */
  public ForwardingServerCall(ServerCall<Req, Resp> delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The call this one forwards to. */
  protected final ServerCall<Req, Resp> delegate() {
    return delegate;
  }

  @Override
  public CallMetadata metadata() {
    return delegate.metadata();
  }

  @Override
  public MethodDescriptor<Req, Resp> method() {
    return delegate.method();
  }

  @Override
  public void request(long n) {
    delegate.request(n);
  }

  @Override
  public void sendMessage(Resp message) {
    delegate.sendMessage(message);
  }

  @Override
  public void close(Status status) {
    delegate.close(status);
  }

  @Override
  public void sendHeaders(Headers headers) {
    delegate.sendHeaders(headers);
  }

  @Override
  public void close(Status status, Headers trailers) {
    delegate.close(status, trailers);
  }

  @Override
  public boolean isClosed() {
    return delegate.isClosed();
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "(" + delegate + ")";
  }
}
