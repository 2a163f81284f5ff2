package io.sluice.transport.websocket.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.transport.FrameTooLargeException;
import io.sluice.transport.websocket.WebSocketProtocolException;
import java.nio.ByteBuffer;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * permessage-deflate (RFC 7692) for one connection, on the JDK's zlib. Inflation is bounded: a
 * message that inflates beyond the limit is refused as soon as it gets there, so a small
 * compressed message cannot make us allocate more than the limit (a decompression bomb).
 *
 * <p>A peer may end a message with a DEFLATE block that has BFINAL set (RFC 7692 7.2.3.4), which
 * ends zlib's stream: what follows it in that message is ignored, and the next message starts a
 * new stream. When the peer keeps its window across messages (context takeover), that new stream
 * starts with the last {@value #WINDOW} bytes inflated as its dictionary, which this class keeps
 * for the purpose (one copy of at most that much per message, only in that mode).
 *
 * <p>Confined to the connection's event loop; {@link #close()} frees the native zlib memory.
 */
final class PerMessageDeflate {
  private static final byte[] TAIL = {0, 0, (byte) 0xFF, (byte) 0xFF};
  private static final int CHUNK = 8192;
  /** DEFLATE's largest window (what a later message may refer back to). */
  private static final int WINDOW = 32 * 1024;

  /** Reset the deflater after each message (we promised {@code *_no_context_takeover}). */
  private final boolean resetDeflater;
  /** Reset the inflater after each message (the peer promised no context takeover). */
  private final boolean resetInflater;
  private Deflater deflater;
  private Inflater inflater;
  private final byte[] chunk = new byte[CHUNK];
  /** With context takeover: the last {@code windowLength} bytes inflated, or null before any. */
  private byte[] window;
  private int windowLength;

  PerMessageDeflate(boolean resetDeflater, boolean resetInflater) {
    this.resetDeflater = resetDeflater;
    this.resetInflater = resetInflater;
  }

  /** Compresses {@code in} (not released) into a new buffer, without the trailing 00 00 FF FF. */
  ByteBuf compress(ByteBufAllocator alloc, ByteBuf in) {
    if (deflater == null) {
      deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
    }
    ByteBuf out = alloc.heapBuffer(Math.max(64, in.readableBytes() / 2 + 16));
    try {
      deflater.setInput(in.nioBuffer());
      for (; ; ) {
        out.ensureWritable(CHUNK);
        ByteBuffer dst = out.nioBuffer(out.writerIndex(), out.writableBytes());
        int room = dst.remaining();
        int n = deflater.deflate(dst, Deflater.SYNC_FLUSH);
        out.writerIndex(out.writerIndex() + n);
        if (n < room) {
          break; // all input taken and flushed (a full output means: call again with more room)
        }
      }
      if (resetDeflater) {
        deflater.reset();
      }
      // A sync flush ends with an empty stored block, 00 00 FF FF, which the receiver adds back.
      if (out.readableBytes() >= 4 && out.getInt(out.writerIndex() - 4) == 0x0000FFFF) {
        out.writerIndex(out.writerIndex() - 4);
      }
      return out;
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }

  /**
   * Inflates {@code in} (not released) into a new buffer of at most {@code max} bytes; throws
   * {@link FrameTooLargeException} past it.
   */
  ByteBuf inflate(ByteBufAllocator alloc, ByteBuf in, int max) {
    if (inflater == null) {
      inflater = new Inflater(true);
    } else if (inflater.finished()) {
      // The last message ended with a final block: a new stream, over the window kept.
      inflater.reset();
      if (windowLength > 0) {
        inflater.setDictionary(window, 0, windowLength);
      }
    }
    ByteBuf out = alloc.buffer(Math.min(max, Math.max(256, in.readableBytes() * 2)), max);
    try {
      inflater.setInput(in.nioBuffer());
      drain(out, max);
      inflater.setInput(TAIL);
      drain(out, max);
      if (resetInflater) {
        inflater.reset();
      } else {
        keepWindow(out);
      }
      return out;
    } catch (DataFormatException e) {
      out.release();
      throw new WebSocketProtocolException(
          WebSocketProtocolException.PROTOCOL_ERROR, "bad permessage-deflate data: " + e.getMessage());
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }

  /** Keeps the last {@link #WINDOW} bytes of what was inflated so far, {@code out} last. */
  private void keepWindow(ByteBuf out) {
    int n = out.readableBytes();
    if (window == null) {
      window = new byte[WINDOW];
    }
    if (n >= WINDOW) {
      out.getBytes(out.writerIndex() - WINDOW, window, 0, WINDOW);
      windowLength = WINDOW;
      return;
    }
    int keep = Math.min(windowLength, WINDOW - n);
    System.arraycopy(window, windowLength - keep, window, 0, keep);
    out.getBytes(out.readerIndex(), window, keep, n);
    windowLength = keep + n;
  }

  private void drain(ByteBuf out, int max) throws DataFormatException {
    for (; ; ) {
      int n = inflater.inflate(chunk);
      if (n > 0) {
        if (out.readableBytes() + n > max) {
          throw new FrameTooLargeException((long) out.readableBytes() + n, max);
        }
        out.writeBytes(chunk, 0, n);
      }
      if (n == 0 && (inflater.needsInput() || inflater.finished() || inflater.needsDictionary())) {
        return;
      }
    }
  }

  /** Frees zlib's native memory; idempotent. */
  void close() {
    if (deflater != null) {
      deflater.end();
      deflater = null;
    }
    if (inflater != null) {
      inflater.end();
      inflater = null;
    }
  }
}
