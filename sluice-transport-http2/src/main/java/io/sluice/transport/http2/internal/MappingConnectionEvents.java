package io.sluice.transport.http2.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.sluice.ErrorCode;
import java.util.function.LongConsumer;

/**
 * The stream mapping's view of its HTTP/2 connection's events: PINGs and their acks become the
 * engine's KEEPALIVE frames (and the client's RTT samples), the first GOAWAY becomes a connection
 * ERROR, the end of a read batch and the channel's close reach the engine. Runs on the channel's
 * event loop.
 */
final class MappingConnectionEvents implements H2Handler.ConnectionListener {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(MappingConnectionEvents.class);
  /** An RTT above an hour is a clock oddity, not a sample. */
  private static final long MAX_RTT_NANOS = 3_600_000_000_000L;

  private final StreamMapping mapping;
  private final boolean server;
  private final LongConsumer rttListener;
  private final ByteBufAllocator alloc;
  private boolean goAwayDelivered;

  MappingConnectionEvents(StreamMapping mapping, boolean server, LongConsumer rttListener, ByteBufAllocator alloc) {
    this.mapping = mapping;
    this.server = server;
    this.rttListener = rttListener;
    this.alloc = alloc;
  }

  @Override
  public void onPingAck(long data) {
    long rtt = System.nanoTime() - data; // our PING carries its send time
    if (rttListener != null && rtt >= 0 && rtt < MAX_RTT_NANOS) {
      try {
        rttListener.accept(rtt);
      } catch (RuntimeException e) {
        logger.warn("the keepalive RTT listener threw", e);
      }
    }
    if (!server) {
      mapping.deliver(MappingWire.keepAliveAnswer(alloc));
    }
  }

  /** A server's engine hears the client's keepalive PINGs as KEEPALIVE frames. */
  @Override
  public void onPing(long data) {
    if (server) {
      mapping.deliver(MappingWire.keepAliveAnswer(alloc));
    }
  }

  @Override
  public void onGoAway(int lastStreamId, long errorCode, ByteBuf debugData) {
    if (goAwayDelivered) {
      return;
    }
    goAwayDelivered = true;
    int code = MappingWire.goAwayCode(debugData);
    String message = MappingWire.goAwayMessage(debugData);
    if (code < 0) {
      code = errorCode == Http2Error.NO_ERROR.code() ? ErrorCode.CONNECTION_CLOSE : ErrorCode.CONNECTION_ERROR;
      if (message.isEmpty()) {
        message = "HTTP/2 GOAWAY (" + StreamMapping.errorName(errorCode) + ")";
      }
    }
    mapping.deliver(MappingWire.error(alloc, 0, code, message));
  }

  @Override
  public void onReadComplete() {
    mapping.readComplete();
  }

  @Override
  public void onChannelClosed() {
    mapping.channelClosed();
  }
}
