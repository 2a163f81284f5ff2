package io.sluice.transport.http2.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;

/** The HTTP/2 frames in bytes a test took from a channel's outbound side, one by one. */
final class WrittenFrames {
  private WrittenFrames() {}

  /** One frame: its header's fields and a copy of its payload. */
  record Frame(int type, int flags, int stream, byte[] payload) {
    /** The payload as a buffer (a header block to decode, say). */
    ByteBuf payloadBuffer() {
      return Unpooled.wrappedBuffer(payload);
    }
  }

  /** The frames in {@code bytes} (read from it; a frame cut short at the end is left unread). */
  static List<Frame> parse(ByteBuf bytes) {
    List<Frame> frames = new ArrayList<>();
    while (bytes.readableBytes() >= 9 && bytes.readableBytes() >= 9 + bytes.getUnsignedMedium(bytes.readerIndex())) {
      int length = bytes.readUnsignedMedium();
      int type = bytes.readUnsignedByte();
      int flags = bytes.readUnsignedByte();
      int stream = bytes.readInt() & Integer.MAX_VALUE;
      byte[] payload = new byte[length];
      bytes.readBytes(payload);
      frames.add(new Frame(type, flags, stream, payload));
    }
    return frames;
  }

  /**
   * The frames in {@code buffers}, taken as one run of bytes that must end with a whole frame; the
   * buffers are left as they were.
   */
  static List<Frame> parse(List<ByteBuf> buffers) {
    ByteBuf all = Unpooled.buffer();
    try {
      buffers.forEach(b -> all.writeBytes(b, b.readerIndex(), b.readableBytes()));
      List<Frame> frames = parse(all);
      if (all.isReadable()) {
        throw new AssertionError(all.readableBytes() + " bytes after the last whole frame");
      }
      return frames;
    } finally {
      all.release();
    }
  }

  /** The frames {@code ch} flushed since the last read (its buffers released). */
  static List<Frame> drain(EmbeddedChannel ch) {
    List<ByteBuf> out = new ArrayList<>();
    for (Object o; (o = ch.readOutbound()) != null; ) {
      out.add((ByteBuf) o);
    }
    try {
      return parse(out);
    } finally {
      out.forEach(ByteBuf::release);
    }
  }
}
