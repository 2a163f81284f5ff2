package io.sluice.interop.peer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.rsocket.DuplexConnection;
import io.rsocket.RSocketErrorException;
import java.net.SocketAddress;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A {@link DuplexConnection} that delegates everything to another connection except the inbound
 * frame stream, which is supplied separately (a replaying or observed view of the delegate's
 * {@link DuplexConnection#receive()}, which must be subscribed at most once).
 */
final class ForwardingConnection implements DuplexConnection {

  private final DuplexConnection delegate;
  private final Flux<ByteBuf> inbound;

  ForwardingConnection(DuplexConnection delegate, Flux<ByteBuf> inbound) {
    this.delegate = delegate;
    this.inbound = inbound;
  }

  @Override
  public Flux<ByteBuf> receive() {
    return inbound;
  }

  @Override
  public void sendFrame(int streamId, ByteBuf frame) {
    delegate.sendFrame(streamId, frame);
  }

  @Override
  public void sendErrorAndClose(RSocketErrorException errorException) {
    delegate.sendErrorAndClose(errorException);
  }

  @Override
  public ByteBufAllocator alloc() {
    return delegate.alloc();
  }

  @Override
  public SocketAddress remoteAddress() {
    return delegate.remoteAddress();
  }

  @Override
  public double availability() {
    return delegate.availability();
  }

  @Override
  public Mono<Void> onClose() {
    return delegate.onClose();
  }

  @Override
  public void dispose() {
    delegate.dispose();
  }

  @Override
  public boolean isDisposed() {
    return delegate.isDisposed();
  }
}
