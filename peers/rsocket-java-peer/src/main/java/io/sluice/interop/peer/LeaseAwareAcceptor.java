package io.sluice.interop.peer;

import io.netty.buffer.ByteBuf;
import io.rsocket.DuplexConnection;
import io.rsocket.transport.ServerTransport;
import reactor.core.publisher.Mono;

/**
 * Routes each accepted connection to one of two rsocket-java servers depending on whether the
 * client's SETUP frame has the lease (L) flag.
 *
 * <p>Why: in rsocket-java 1.1.5 lease support is a per-server switch, not a per-connection
 * negotiation. A server configured with {@code lease(...)} enforces leases on every connection and
 * sends LEASE frames even to clients that did not set L (an rsocket-java client without lease then
 * fails with a NullPointerException and closes the connection); a server without it rejects an
 * L-flagged SETUP with {@code ERROR[INVALID_SETUP] "lease is not supported"}. Peeking at the first
 * frame lets the peer accept both kinds of client, as the echo contract requires.
 */
final class LeaseAwareAcceptor implements ServerTransport.ConnectionAcceptor {

  /** Frame header: u32 stream id, then u16 (type << 10 | flags). */
  private static final int TYPE_AND_FLAGS_OFFSET = 4;

  private static final int HEADER_SIZE = 6;
  private static final int FRAME_TYPE_SHIFT = 10;
  private static final int SETUP_FRAME_TYPE = 0x01;
  private static final int SETUP_LEASE_FLAG = 0x40;

  private final ServerTransport.ConnectionAcceptor withoutLease;
  private final ServerTransport.ConnectionAcceptor withLease;

  LeaseAwareAcceptor(
      ServerTransport.ConnectionAcceptor withoutLease,
      ServerTransport.ConnectionAcceptor withLease) {
    this.withoutLease = withoutLease;
    this.withLease = withLease;
  }

  @Override
  public Mono<Void> apply(DuplexConnection connection) {
    return connection
        .receive()
        .switchOnFirst(
            (first, frames) -> {
              if (!first.hasValue()) {
                // Closed or failed before sending anything: just observe the termination.
                return frames.then();
              }
              ServerTransport.ConnectionAcceptor target =
                  isLeaseSetup(first.get()) ? withLease : withoutLease;
              // "frames" replays the peeked first frame, then continues with the live stream.
              return target.apply(new ForwardingConnection(connection, frames));
            },
            // The rsocket-java acceptor completes once SETUP is handled, long before the
            // connection ends; that must not cancel the inbound frame stream.
            false)
        .then();
  }

  /** True if {@code frame} is a SETUP frame with the L flag (anything malformed: false). */
  static boolean isLeaseSetup(ByteBuf frame) {
    if (frame.readableBytes() < HEADER_SIZE) {
      return false;
    }
    int typeAndFlags = frame.getUnsignedShort(frame.readerIndex() + TYPE_AND_FLAGS_OFFSET);
    return (typeAndFlags >>> FRAME_TYPE_SHIFT) == SETUP_FRAME_TYPE
        && (typeAndFlags & SETUP_LEASE_FLAG) != 0;
  }
}
