package io.sluice.internal.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.util.internal.PlatformDependent;
import java.nio.charset.StandardCharsets;

/**
 * Flyweight access to RSocket 1.0 frames. A frame is a {@link ByteBuf} whose readable bytes are
 * exactly one frame, without the u24 length prefix. Readers use absolute offsets from the reader
 * index and never move it; writers append at the writer index. No object is created per frame
 * beyond the slices a caller asks for.
 *
 * <p>Readers assume the frame passed {@link FrameValidator#validate}; they do not re-check bounds.
 */
public final class Frames {
  private Frames() {}

  // ---- header ---------------------------------------------------------------------------------
  public static final int HEADER_SIZE = 6;
  public static final int FLAGS_MASK = 0x3FF;
  public static final int FLAG_IGNORE = 0x200;
  public static final int FLAG_METADATA = 0x100;
  public static final int FLAG_FOLLOWS = 0x80;
  public static final int FLAG_COMPLETE = 0x40;
  public static final int FLAG_NEXT = 0x20;
  public static final int FLAG_SETUP_RESUME = 0x80;
  public static final int FLAG_SETUP_LEASE = 0x40;
  public static final int FLAG_KEEPALIVE_RESPOND = 0x80;

  public static final int MAX_STREAM_ID = 0x7FFFFFFF;
  /** Largest frame the u24 length prefix can describe. */
  public static final int MAX_FRAME_SIZE = 0xFFFFFF;
  public static final int METADATA_LENGTH_SIZE = 3;
  public static final int MAX_METADATA_LENGTH = 0xFFFFFF;
  public static final int MAJOR_VERSION = 1;
  public static final int MINOR_VERSION = 0;

  public static int streamId(ByteBuf frame) {
    return frame.getInt(frame.readerIndex()) & MAX_STREAM_ID;
  }

  public static int type(ByteBuf frame) {
    return frame.getUnsignedShort(frame.readerIndex() + 4) >>> 10;
  }

  public static int flags(ByteBuf frame) {
    return frame.getUnsignedShort(frame.readerIndex() + 4) & FLAGS_MASK;
  }

  public static boolean hasFlag(ByteBuf frame, int flag) {
    return (flags(frame) & flag) != 0;
  }

  public static void writeHeader(ByteBuf out, int streamId, int type, int flags) {
    out.writeInt(streamId & MAX_STREAM_ID);
    out.writeShort((type << 10) | (flags & FLAGS_MASK));
  }

  // ---- u24 --------------------------------------------------------------------------------------
  public static int getU24(ByteBuf buf, int index) {
    return buf.getUnsignedMedium(index);
  }

  /**
   * Writes a u24 length.
   *
   * @throws IllegalArgumentException if {@code value} is outside 0..2^24-1 (it would wrap)
   */
  public static void writeU24(ByteBuf out, int value) {
    if ((value & ~0xFFFFFF) != 0) {
      throw new IllegalArgumentException(value + " does not fit a u24 length");
    }
    out.writeMedium(value);
  }

  // ---- metadata / data layout shared by payload-bearing frames ---------------------------------
  /** Offset (from the reader index) where a frame's optional metadata length starts. */
  public static int payloadOffset(ByteBuf frame) {
    int type = type(frame);
    return type == FrameType.SETUP ? Setup.payloadOffset(frame) : payloadOffset(type);
  }

  /**
   * Where the payload of a frame of {@code type} starts, for every type but SETUP (whose offset
   * depends on its variable-length fields: use {@link #payloadOffset(ByteBuf)}).
   */
  public static int payloadOffset(int type) {
    switch (type) {
      case FrameType.REQUEST_STREAM:
      case FrameType.REQUEST_CHANNEL:
      case FrameType.EXT:
        return HEADER_SIZE + 4;
      case FrameType.LEASE:
        return HEADER_SIZE + 8;
      default:
        return HEADER_SIZE;
    }
  }

  /**
   * The metadata bytes of a frame (a slice, not retained), or null if the M flag is clear or the
   * type carries no metadata (the M bit on other types is an unused flag, ignored on receive).
   */
  public static ByteBuf metadata(ByteBuf frame) {
    if (!hasFlag(frame, FLAG_METADATA)) {
      return null;
    }
    int type = type(frame);
    if (!FrameType.hasMetadataLength(type)
        && type != FrameType.LEASE
        && type != FrameType.METADATA_PUSH) {
      return null;
    }
    int start = frame.readerIndex() + payloadOffset(frame);
    if (type == FrameType.LEASE || type == FrameType.METADATA_PUSH) {
      return frame.slice(start, frame.writerIndex() - start);
    }
    int length = getU24(frame, start);
    return frame.slice(start + METADATA_LENGTH_SIZE, length);
  }

  /**
   * The content of a METADATA_PUSH frame, everything after its header (a slice, not retained),
   * with or without the M flag: some clients leave the flag off, and rsocket-java reads the content
   * as metadata either way.
   */
  public static ByteBuf metadataPushContent(ByteBuf frame) {
    int start = frame.readerIndex() + HEADER_SIZE;
    return frame.slice(start, frame.writerIndex() - start);
  }

  /**
   * The data bytes of a payload-bearing frame (a slice, not retained); empty for other types (use
   * {@link #keepAliveData} for KEEPALIVE).
   */
  public static ByteBuf data(ByteBuf frame) {
    int type = type(frame);
    if (!FrameType.hasMetadataLength(type)) {
      return frame.slice(frame.writerIndex(), 0);
    }
    int start = frame.readerIndex() + payloadOffset(frame);
    if (hasFlag(frame, FLAG_METADATA)) {
      start += METADATA_LENGTH_SIZE + getU24(frame, start);
    }
    return frame.slice(start, frame.writerIndex() - start);
  }

  /**
   * Writes the optional metadata (length-prefixed) and the data of a payload-bearing frame. The
   * buffers are copied, not consumed: their reader indexes do not move.
   */
  public static void writePayload(ByteBuf out, ByteBuf metadata, ByteBuf data) {
    if (metadata != null) {
      if (metadata.readableBytes() > MAX_METADATA_LENGTH) {
        throw new IllegalArgumentException(
            "metadata of " + metadata.readableBytes() + " bytes does not fit the u24 length");
      }
      writeU24(out, metadata.readableBytes());
      copy(out, metadata);
    }
    if (data != null) {
      copy(out, data);
    }
  }

  private static final boolean UNSAFE = PlatformDependent.hasUnsafe();

  /** Up to this many bytes, {@link #copy} copies eight at a time where netty would allocate. */
  private static final int WORD_COPY_LIMIT = 512;

  /**
   * Appends {@code src}'s readable bytes to {@code out}. With {@code sun.misc.Unsafe} (JDK 17 by
   * default) netty copies by address. Without it (JDK 24+, where netty 4.2 leaves it off), netty's
   * direct-to-direct copy makes a {@code ByteBuffer} view of the source per call (64 B of garbage
   * per message); a small payload is then copied a long at a time through absolute reads, which
   * allocate nothing and, unlike the source's internal NIO buffer, are safe when other threads read
   * the same memory (a shared payload sent with {@code retainedDuplicate()}).
   */
  private static void copy(ByteBuf out, ByteBuf src) {
    int length = src.readableBytes();
    if (UNSAFE || length > WORD_COPY_LIMIT) {
      out.writeBytes(src, src.readerIndex(), length);
    } else {
      copyWords(out, src, length);
    }
  }

  /** {@link #copy}'s copy without {@code Unsafe}; package-private for tests on any JDK. */
  static void copyWords(ByteBuf out, ByteBuf src, int length) {
    out.ensureWritable(length);
    int w = out.writerIndex();
    int r = src.readerIndex();
    int i = 0;
    for (; i + 8 <= length; i += 8) {
      out.setLong(w + i, src.getLong(r + i));
    }
    for (; i < length; i++) {
      out.setByte(w + i, src.getByte(r + i));
    }
    out.writerIndex(w + length);
  }

  /** Bytes {@link #writePayload} writes. */
  public static int payloadSize(ByteBuf metadata, ByteBuf data) {
    return (metadata == null ? 0 : METADATA_LENGTH_SIZE + metadata.readableBytes())
        + (data == null ? 0 : data.readableBytes());
  }

  // ---- request frames: REQUEST_RESPONSE, REQUEST_FNF, REQUEST_STREAM, REQUEST_CHANNEL ----------
  /** Initial request N of REQUEST_STREAM / REQUEST_CHANNEL. */
  public static int initialRequestN(ByteBuf frame) {
    return frame.getInt(frame.readerIndex() + HEADER_SIZE) & 0x7FFFFFFF;
  }

  /** Header (and initial N for stream/channel) of a request or PAYLOAD frame. */
  public static void writeRequestHeader(
      ByteBuf out, int streamId, int type, int flags, int initialRequestN) {
    writeHeader(out, streamId, type, flags);
    if (type == FrameType.REQUEST_STREAM || type == FrameType.REQUEST_CHANNEL) {
      out.writeInt(initialRequestN & 0x7FFFFFFF);
    }
  }

  /** Header bytes (header plus initial N) before the payload of a request or PAYLOAD frame. */
  public static int requestHeaderSize(int type) {
    return (type == FrameType.REQUEST_STREAM || type == FrameType.REQUEST_CHANNEL)
        ? HEADER_SIZE + 4
        : HEADER_SIZE;
  }

  // ---- REQUEST_N, CANCEL ------------------------------------------------------------------------
  public static int requestN(ByteBuf frame) {
    return frame.getInt(frame.readerIndex() + HEADER_SIZE) & 0x7FFFFFFF;
  }

  public static void writeRequestN(ByteBuf out, int streamId, int n) {
    writeHeader(out, streamId, FrameType.REQUEST_N, 0);
    out.writeInt(n & 0x7FFFFFFF);
  }

  public static void writeCancel(ByteBuf out, int streamId) {
    writeHeader(out, streamId, FrameType.CANCEL, 0);
  }

  // ---- ERROR -----------------------------------------------------------------------------------
  public static int errorCode(ByteBuf frame) {
    return frame.getInt(frame.readerIndex() + HEADER_SIZE);
  }

  public static String errorMessage(ByteBuf frame) {
    int start = frame.readerIndex() + HEADER_SIZE + 4;
    return frame.toString(start, frame.writerIndex() - start, StandardCharsets.UTF_8);
  }

  public static void writeError(ByteBuf out, int streamId, int code, String message) {
    writeHeader(out, streamId, FrameType.ERROR, 0);
    out.writeInt(code);
    if (message != null) {
      ByteBufUtil.writeUtf8(out, message);
    }
  }

  /**
   * The longest start of {@code message} whose UTF-8 encoding (as {@link #writeError} writes it)
   * takes at most {@code maxBytes}; characters are kept whole (a surrogate pair too).
   */
  public static String truncateUtf8(String message, int maxBytes) {
    int bytes = 0;
    for (int i = 0; i < message.length(); i++) {
      char c = message.charAt(i);
      boolean pair =
          Character.isHighSurrogate(c) && i + 1 < message.length() && Character.isLowSurrogate(message.charAt(i + 1));
      // A lone surrogate is written as one byte ('?'); counting 3 only cuts earlier.
      int n = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
      if (bytes + n > maxBytes) {
        return message.substring(0, i);
      }
      bytes += n;
      if (pair) {
        i++;
      }
    }
    return message;
  }

  /** Size of an ERROR frame carrying {@code message}. */
  public static int errorSize(String message) {
    return HEADER_SIZE + 4 + (message == null ? 0 : ByteBufUtil.utf8Bytes(message));
  }

  // ---- KEEPALIVE -------------------------------------------------------------------------------
  public static long keepAliveLastPosition(ByteBuf frame) {
    return frame.getLong(frame.readerIndex() + HEADER_SIZE) & Long.MAX_VALUE;
  }

  public static ByteBuf keepAliveData(ByteBuf frame) {
    int start = frame.readerIndex() + HEADER_SIZE + 8;
    return frame.slice(start, frame.writerIndex() - start);
  }

  public static void writeKeepAlive(ByteBuf out, boolean respond, long lastPosition, ByteBuf data) {
    writeHeader(out, 0, FrameType.KEEPALIVE, respond ? FLAG_KEEPALIVE_RESPOND : 0);
    out.writeLong(lastPosition & Long.MAX_VALUE);
    if (data != null) {
      out.writeBytes(data, data.readerIndex(), data.readableBytes());
    }
  }

  // ---- LEASE -----------------------------------------------------------------------------------
  public static int leaseTtl(ByteBuf frame) {
    return frame.getInt(frame.readerIndex() + HEADER_SIZE) & 0x7FFFFFFF;
  }

  public static int leaseRequests(ByteBuf frame) {
    return frame.getInt(frame.readerIndex() + HEADER_SIZE + 4) & 0x7FFFFFFF;
  }

  public static void writeLease(ByteBuf out, int ttlMillis, int requests, ByteBuf metadata) {
    writeHeader(out, 0, FrameType.LEASE, metadata == null ? 0 : FLAG_METADATA);
    out.writeInt(ttlMillis & 0x7FFFFFFF);
    out.writeInt(requests & 0x7FFFFFFF);
    if (metadata != null) {
      out.writeBytes(metadata, metadata.readerIndex(), metadata.readableBytes());
    }
  }

  // ---- METADATA_PUSH ---------------------------------------------------------------------------
  public static void writeMetadataPush(ByteBuf out, ByteBuf metadata) {
    writeHeader(out, 0, FrameType.METADATA_PUSH, FLAG_METADATA);
    out.writeBytes(metadata, metadata.readerIndex(), metadata.readableBytes());
  }

  // ---- RESUME / RESUME_OK ----------------------------------------------------------------------
  public static int resumeMajor(ByteBuf frame) {
    return frame.getUnsignedShort(frame.readerIndex() + HEADER_SIZE);
  }

  public static int resumeMinor(ByteBuf frame) {
    return frame.getUnsignedShort(frame.readerIndex() + HEADER_SIZE + 2);
  }

  public static ByteBuf resumeToken(ByteBuf frame) {
    int at = frame.readerIndex() + HEADER_SIZE + 4;
    return frame.slice(at + 2, frame.getUnsignedShort(at));
  }

  public static long resumeLastReceivedServerPosition(ByteBuf frame) {
    int at = frame.readerIndex() + HEADER_SIZE + 4;
    return frame.getLong(at + 2 + frame.getUnsignedShort(at)) & Long.MAX_VALUE;
  }

  public static long resumeFirstAvailableClientPosition(ByteBuf frame) {
    int at = frame.readerIndex() + HEADER_SIZE + 4;
    return frame.getLong(at + 10 + frame.getUnsignedShort(at)) & Long.MAX_VALUE;
  }

  public static void writeResume(
      ByteBuf out, ByteBuf token, long lastReceivedServerPos, long firstAvailableClientPos) {
    writeHeader(out, 0, FrameType.RESUME, 0);
    out.writeShort(MAJOR_VERSION);
    out.writeShort(MINOR_VERSION);
    out.writeShort(token.readableBytes());
    out.writeBytes(token, token.readerIndex(), token.readableBytes());
    out.writeLong(lastReceivedServerPos & Long.MAX_VALUE);
    out.writeLong(firstAvailableClientPos & Long.MAX_VALUE);
  }

  public static long resumeOkLastReceivedClientPosition(ByteBuf frame) {
    return frame.getLong(frame.readerIndex() + HEADER_SIZE) & Long.MAX_VALUE;
  }

  public static void writeResumeOk(ByteBuf out, long lastReceivedClientPos) {
    writeHeader(out, 0, FrameType.RESUME_OK, 0);
    out.writeLong(lastReceivedClientPos & Long.MAX_VALUE);
  }

  // ---- EXT -------------------------------------------------------------------------------------
  public static int extendedType(ByteBuf frame) {
    return frame.getInt(frame.readerIndex() + HEADER_SIZE) & 0x7FFFFFFF;
  }

  public static void writeExt(
      ByteBuf out, int streamId, int extendedType, boolean ignore, ByteBuf metadata, ByteBuf data) {
    int flags = (ignore ? FLAG_IGNORE : 0) | (metadata != null ? FLAG_METADATA : 0);
    writeHeader(out, streamId, FrameType.EXT, flags);
    out.writeInt(extendedType & 0x7FFFFFFF);
    writePayload(out, metadata, data);
  }

  /** A short description for logs and errors: type, stream, flags, size. */
  public static String describe(ByteBuf frame) {
    if (frame.readableBytes() < HEADER_SIZE) {
      return "truncated frame of " + frame.readableBytes() + " bytes";
    }
    return FrameType.name(type(frame))
        + "{stream="
        + streamId(frame)
        + ", flags=0x"
        + Integer.toHexString(flags(frame))
        + ", size="
        + frame.readableBytes()
        + "}";
  }
}
