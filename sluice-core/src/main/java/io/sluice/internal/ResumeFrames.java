package io.sluice.internal;

import io.netty.buffer.ByteBuf;
import io.sluice.internal.frame.Frames;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FramePrefix;

/**
 * What a {@link ResumableSession} reads of a frame's first bytes to count it (static, so the
 * session's hot paths call them directly), and the write of a single frame to a transport that no
 * session runs over yet.
 */
final class ResumeFrames {
  private ResumeFrames() {}

  /**
   * Is the frame whose first 8 bytes (its 3-byte length, stream id and first byte of type and
   * flags) are {@code head} one the spec counts: on a stream other than 0, of a counted type?
   */
  static boolean countedHead(long head) {
    long frameHead = head << 24; // without the length: as inbound reads a frame's first 8 bytes
    return streamIdOf(frameHead) != 0 && ResumableSession.counted(typeOf(frameHead));
  }

  /** The stream id in a frame's first 8 bytes read as one long (no length prefix). */
  static int streamIdOf(long frameHead) {
    return (int) (frameHead >>> 32) & Frames.MAX_STREAM_ID;
  }

  /** The frame type in a frame's first 8 bytes read as one long (no length prefix). */
  static int typeOf(long frameHead) {
    return (int) (frameHead >>> 26) & 0x3F;
  }

  /** Does {@code buf} hold exactly {@code frames} whole frames, all counted and copied? (asserted) */
  static boolean countedBatch(ByteBuf buf, int frames) {
    int r = buf.readerIndex();
    int w = buf.writerIndex();
    int n = 0;
    while (w - r >= 8) {
      int len = Frames.getU24(buf, r);
      if (len < Frames.HEADER_SIZE
          || len > ResumeStore.COPY_LIMIT
          || w - r - 3 < len
          || !countedHead(buf.getLong(r))) {
        return false;
      }
      n++;
      r += 3 + len;
    }
    return r == w && n == frames;
  }

  /** Writes one frame (owned, no prefix) to a transport in its framing, and flushes. */
  static void writeSingle(DuplexTransport t, ByteBuf frame) {
    switch (t.framing()) {
      case FRAME_PER_WRITE:
        t.write(frame);
        break;
      case LENGTH_PREFIXED:
        {
          ByteBuf out = t.alloc().buffer(3 + frame.readableBytes());
          Frames.writeU24(out, frame.readableBytes());
          out.writeBytes(frame);
          frame.release();
          t.write(out);
          break;
        }
      default:
        {
          FramePrefix p = t.framePrefix();
          ByteBuf out = t.alloc().buffer(p.maxLength() + frame.readableBytes());
          p.write(out, frame.readableBytes());
          out.writeBytes(frame);
          frame.release();
          t.write(out);
        }
    }
    t.flush();
  }
}
