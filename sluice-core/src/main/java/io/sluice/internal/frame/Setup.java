package io.sluice.internal.frame;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/** SETUP frame layout. */
public final class Setup {
  private Setup() {}

  private static final int VERSION = Frames.HEADER_SIZE;
  private static final int KEEPALIVE = VERSION + 4;
  private static final int LIFETIME = KEEPALIVE + 4;
  private static final int VARIABLE = LIFETIME + 4;
  /** Smallest SETUP: header, version, intervals, two empty MIME lengths. */
  public static final int MIN_SIZE = VARIABLE + 2;

  public static int majorVersion(ByteBuf f) {
    return f.getUnsignedShort(f.readerIndex() + VERSION);
  }

  public static int minorVersion(ByteBuf f) {
    return f.getUnsignedShort(f.readerIndex() + VERSION + 2);
  }

  public static int keepAliveInterval(ByteBuf f) {
    return f.getInt(f.readerIndex() + KEEPALIVE) & 0x7FFFFFFF;
  }

  public static int maxLifetime(ByteBuf f) {
    return f.getInt(f.readerIndex() + LIFETIME) & 0x7FFFFFFF;
  }

  public static boolean resumeRequested(ByteBuf f) {
    return Frames.hasFlag(f, Frames.FLAG_SETUP_RESUME);
  }

  public static boolean leaseRequested(ByteBuf f) {
    return Frames.hasFlag(f, Frames.FLAG_SETUP_LEASE);
  }

  /** Offset of the metadata MIME length byte. */
  static int mimeOffset(ByteBuf f) {
    int at = VARIABLE;
    if (resumeRequested(f)) {
      at += 2 + f.getUnsignedShort(f.readerIndex() + at);
    }
    return at;
  }

  public static ByteBuf resumeToken(ByteBuf f) {
    if (!resumeRequested(f)) {
      return null;
    }
    int at = f.readerIndex() + VARIABLE;
    return f.slice(at + 2, f.getUnsignedShort(at));
  }

  public static String metadataMimeType(ByteBuf f) {
    int at = f.readerIndex() + mimeOffset(f);
    return f.toString(at + 1, f.getUnsignedByte(at), StandardCharsets.US_ASCII);
  }

  public static String dataMimeType(ByteBuf f) {
    int at = f.readerIndex() + mimeOffset(f);
    at += 1 + f.getUnsignedByte(at);
    return f.toString(at + 1, f.getUnsignedByte(at), StandardCharsets.US_ASCII);
  }

  /** Whether the SETUP frame {@code f} carries a payload (metadata or data, even empty metadata). */
  public static boolean hasPayload(ByteBuf f) {
    return f.readableBytes() > payloadOffset(f);
  }

  static int payloadOffset(ByteBuf f) {
    int at = mimeOffset(f);
    at += 1 + f.getUnsignedByte(f.readerIndex() + at);
    at += 1 + f.getUnsignedByte(f.readerIndex() + at);
    return at;
  }

  /** Writes a complete SETUP frame. {@code resumeToken} null means no resume (R flag clear). */
  public static void write(
      ByteBuf out,
      boolean lease,
      int keepAliveMillis,
      int maxLifetimeMillis,
      ByteBuf resumeToken,
      String metadataMime,
      String dataMime,
      ByteBuf metadata,
      ByteBuf data) {
    int flags =
        (metadata != null ? Frames.FLAG_METADATA : 0)
            | (lease ? Frames.FLAG_SETUP_LEASE : 0)
            | (resumeToken != null ? Frames.FLAG_SETUP_RESUME : 0);
    Frames.writeHeader(out, 0, FrameType.SETUP, flags);
    out.writeShort(Frames.MAJOR_VERSION);
    out.writeShort(Frames.MINOR_VERSION);
    out.writeInt(keepAliveMillis & 0x7FFFFFFF);
    out.writeInt(maxLifetimeMillis & 0x7FFFFFFF);
    if (resumeToken != null) {
      out.writeShort(resumeToken.readableBytes());
      out.writeBytes(resumeToken, resumeToken.readerIndex(), resumeToken.readableBytes());
    }
    writeAscii(out, metadataMime);
    writeAscii(out, dataMime);
    Frames.writePayload(out, metadata, data);
  }

  private static void writeAscii(ByteBuf out, String mime) {
    byte[] bytes = mime.getBytes(StandardCharsets.US_ASCII);
    if (bytes.length > 255) {
      throw new IllegalArgumentException("MIME type longer than 255 bytes: " + mime);
    }
    out.writeByte(bytes.length);
    out.writeBytes(bytes);
  }
}
