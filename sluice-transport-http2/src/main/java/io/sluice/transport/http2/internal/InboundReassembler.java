package io.sluice.transport.http2.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Stream;
import io.sluice.transport.FrameTooLargeException;

/**
 * The inbound half of the stream mapping's byte handling: cuts a stream's DATA at the u24 lengths
 * and hands each whole RSocket frame to the mapping ({@link StreamMapping#inboundFrame}); a frame
 * cut across DATA frames is held in the stream's {@link MappedStream#partial} until whole.
 *
 * <p>A partial frame's buffer is sized by the bytes that arrived, never by the length the peer
 * declared: 3 bytes declaring 1 MiB must not cost 1 MiB. It grows by doubling (a frame cut into
 * many small DATA frames is copied O(log n) times, not once per DATA) and not past the frame's end
 * unless the bytes arrived; so it holds at most about twice the bytes that arrived, and those stay
 * charged to the flow-control windows until the frame is whole. It is never compacted in place:
 * the engine may hold slices of the frames delivered from it. Runs on the channel's event loop.
 */
final class InboundReassembler {
  private static final int LENGTH_SIZE = OutboundCutter.LENGTH_SIZE;

  private final StreamMapping mapping;
  private final ByteBufAllocator alloc;
  /** The connection's budget for what is read and not yet whole, shared with its other protocols. */
  private ReadBudget budget = ReadBudget.UNLIMITED;

  InboundReassembler(StreamMapping mapping, ByteBufAllocator alloc) {
    this.mapping = mapping;
    this.alloc = alloc;
  }

  /**
   * Cuts {@code data} at its u24 lengths and delivers each whole frame. A held partial frame is
   * taken from the stream while its frames are delivered, and released or put back at the end:
   * what the engine does inside {@code onFrame} (close the connection, say) or a stream the peer
   * broke cannot release it under this method.
   */
  void frames(MappedStream st, ByteBuf data) {
    ByteBuf held = st.partial;
    st.partial = null;
    try {
      ByteBuf in = held == null ? data : append(held, data);
      int maxFrameSize = mapping.maxFrameSize();
      while (in.readableBytes() >= LENGTH_SIZE) {
        int start = in.readerIndex();
        int length = in.getUnsignedMedium(start);
        if (length > maxFrameSize) {
          mapping.transportError(new FrameTooLargeException(length, maxFrameSize));
          return;
        }
        if (in.readableBytes() < LENGTH_SIZE + length) {
          break;
        }
        int end = start + LENGTH_SIZE + length;
        int writerIndex = in.writerIndex();
        in.setIndex(start + LENGTH_SIZE, end);
        try {
          mapping.inboundFrame(st, in);
        } finally {
          in.setIndex(end, writerIndex);
        }
        if (mapping.isDetached() || st.engineDone) {
          return;
        }
      }
      if (in.isReadable() && st.h2.state() != Http2Stream.State.CLOSED) {
        if (in == held && in.readerIndex() == 0) {
          st.partial = held; // nothing was delivered from it: kept as it is
          held = null;
        } else {
          st.partial = copyOfRest(in);
        }
      }
    } finally {
      if (held != null) {
        held.release();
      }
    }
  }

  /** A copy of the unfinished frame at the start of {@code in}, in a buffer sized to it. */
  private ByteBuf copyOfRest(ByteBuf in) {
    int n = in.readableBytes();
    int capacity = Math.max(n, Math.min(64, frameEnd(in)));
    return alloc.buffer(capacity).writeBytes(in);
  }

  /** Appends {@code data} to {@code held}, growing it as the bytes that came need. */
  private static ByteBuf append(ByteBuf held, ByteBuf data) {
    int need = held.writerIndex() + data.readableBytes();
    if (need > held.capacity()) {
      long end = (long) held.readerIndex() + frameEnd(held);
      long grown = Math.min(Math.min(2L * held.capacity(), end), Integer.MAX_VALUE - 8);
      held.capacity((int) Math.max(need, grown));
    }
    return held.writeBytes(data);
  }

  /**
   * Where the frame {@code in} begins with ends, from its readable start: its u24 length and
   * frame; unknown (max int) while fewer than 3 bytes are there.
   */
  private static int frameEnd(ByteBuf in) {
    return in.readableBytes() >= LENGTH_SIZE ? LENGTH_SIZE + in.getUnsignedMedium(in.readerIndex()) : Integer.MAX_VALUE;
  }

  void budget(ReadBudget budget) {
    this.budget = budget;
  }

  /**
   * Charges the connection's {@link ReadBudget} with what {@code st} now holds of an unfinished
   * frame ({@code held} bytes). The windows alone would let a peer hold a stream window per stream
   * where the connection's window is a stream window per stream (the one port's and WebSocket over
   * HTTP/2's: 256 MiB by default); a stream whose frame would pass the budget is reset
   * (ENHANCE_YOUR_CALM) and its request fails, as a gRPC call gets RESOURCE_EXHAUSTED: the
   * connection and its other streams go on.
   */
  void charge(MappedStream st, int held) {
    int delta = held - st.charged;
    if (delta > 0 && !budget.reserve(delta)) {
      mapping.streamError(
          st, Http2Error.ENHANCE_YOUR_CALM,
          "its unfinished frame would pass the connection's read budget of " + budget.max() + " bytes");
      return;
    }
    if (delta < 0) {
      budget.release(-delta);
    }
    st.charged = held;
  }

  /** {@code st}'s unfinished frame is gone: its charge goes back to the budget. */
  void uncharge(MappedStream st) {
    if (st.charged > 0) {
      budget.release(st.charged);
      st.charged = 0;
    }
  }
}
