package io.sluice.rpc.rsocket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.Headers;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Encodes and decodes {@link CallMetadata} as the RSocket metadata of a call's first frame. The
 * layout (docs/rpc-wire-format.md):
 *
 * <pre>
 * u8  version (1)
 * u8  flags: 0x01 idempotent, 0x02 has-deadline, 0x04 has-headers, 0x08 has-rank,
 *            0x10 no-message (the frame's data is not a request), 0x20 response-metadata
 *            (the caller reads response headers and trailers); 0xC0 must be 0
 * u8  service length (1..255), service (ASCII)
 * u8  method length (1..255), method (ASCII)
 * u32 timeout in ms                         if has-deadline
 * i32 rank                                  if has-rank
 * u8  header count (1..255)                 if has-headers, then per header:
 *     u8 key length (1..255), key (ASCII), u16 value length, value (ASCII)
 * </pre>
 *
 * All numbers are big-endian. Stateless and thread-safe.
 *
 * <p><b>Buffers.</b> {@code encode(ByteBufAllocator, CallMetadata)} returns a new buffer that the
 * caller releases; {@code encode(CallMetadata, ByteBuf)} appends to the caller's buffer. {@link
 * #decode} reads without moving indexes, retaining or releasing, and the {@link CallMetadata} it
 * returns holds no buffer.
 */
public final class CallMetadataCodec {
  /** The format version this codec writes and reads. */
  public static final int VERSION = 1;

  public static final int FLAG_IDEMPOTENT = 0x01;
  public static final int FLAG_DEADLINE = 0x02;
  public static final int FLAG_HEADERS = 0x04;
  public static final int FLAG_RANK = 0x08;

  /**
   * The REQUEST_CHANNEL frame carrying this metadata has no request message (its data is empty and
   * is not a message): a client-streaming or bidi call whose requests, if any, follow.
   */
  public static final int FLAG_NO_MESSAGE = 0x10;

  /** The caller reads response headers and trailers: the server sends them ({@link ResponseMetadataCodec}). */
  public static final int FLAG_RESPONSE_METADATA = 0x20;

  private static final int KNOWN_FLAGS =
      FLAG_IDEMPOTENT | FLAG_DEADLINE | FLAG_HEADERS | FLAG_RANK | FLAG_NO_MESSAGE | FLAG_RESPONSE_METADATA;

  private CallMetadataCodec() {}

  /** The encoded size of {@code m} in bytes. */
  public static int size(CallMetadata m) {
    int n = 2 + 1 + m.service().length() + 1 + m.method().length();
    if (m.hasTimeout()) {
      n += 4;
    }
    if (m.rank() != 0) {
      n += 4;
    }
    if (!m.headers().isEmpty()) {
      n += headerBlockSize(m.headers());
    }
    return n;
  }

  /** The size of a header block: count, then each key and value with their lengths. */
  static int headerBlockSize(Headers headers) {
    int n = 1;
    for (Map.Entry<String, String> e : headers.entries()) {
      n += 1 + e.getKey().length() + 2 + e.getValue().length();
    }
    return n;
  }

  /** Writes a header block of non-empty {@code headers}. */
  static void writeHeaderBlock(Headers headers, ByteBuf out) {
    out.writeByte(headers.size());
    for (Map.Entry<String, String> e : headers.entries()) {
      writeShort8(out, e.getKey());
      out.writeShort(e.getValue().length());
      out.writeCharSequence(e.getValue(), StandardCharsets.US_ASCII);
    }
  }

  /**
   * Reads a header block at {@code i}; returns the index after it and puts the headers in {@code
   * out[0]}.
   *
   * @throws IllegalArgumentException when it is truncated or malformed
   */
  static int readHeaderBlock(ByteBuf in, int i, int end, Headers[] out) {
    need(in, i, 1, end, "header count");
    int count = in.getUnsignedByte(i++);
    if (count == 0) {
      throw bad("a header block with 0 headers");
    }
    Headers.Builder b = Headers.builder();
    for (int h = 0; h < count; h++) {
      need(in, i, 1, end, "header key length");
      int kl = in.getUnsignedByte(i++);
      String key = ascii(in, i, kl, end, "header key");
      i += kl;
      need(in, i, 2, end, "header value length");
      int vl = in.getUnsignedShort(i);
      i += 2;
      need(in, i, vl, end, "header value");
      String value = in.toString(i, vl, StandardCharsets.US_ASCII);
      i += vl;
      b.add(key, value);
    }
    out[0] = b.build();
    return i;
  }

  /**
   * True when the call metadata in {@code in} (indexes left alone) has the {@link #FLAG_NO_MESSAGE}
   * flag. Only meaningful for metadata that {@link #decode} accepts.
   */
  public static boolean noMessage(ByteBuf in) {
    return in.readableBytes() >= 2 && (in.getUnsignedByte(in.readerIndex() + 1) & FLAG_NO_MESSAGE) != 0;
  }

  /** Sets the {@link #FLAG_NO_MESSAGE} flag in the encoded call metadata {@code buf} (written by {@link #encode}). */
  static void setNoMessage(ByteBuf buf) {
    int at = buf.readerIndex() + 1;
    buf.setByte(at, buf.getUnsignedByte(at) | FLAG_NO_MESSAGE);
  }

  /** Encodes {@code m} into a new buffer from {@code alloc}; the caller owns it. */
  public static ByteBuf encode(ByteBufAllocator alloc, CallMetadata m) {
    int size = size(m);
    ByteBuf buf = alloc.buffer(size, size);
    try {
      encode(m, buf);
      return buf;
    } catch (RuntimeException e) {
      buf.release();
      throw e;
    }
  }

  /** Encoded metadata of recently sent calls without a deadline, by identity of the metadata. */
  private static final int ENCODED_CACHE_SIZE = 64;

  private static final AtomicReferenceArray<Encoded> ENCODED = new AtomicReferenceArray<>(ENCODED_CACHE_SIZE);

  private static final class Encoded {
    final CallMetadata metadata;
    final byte[] bytes;

    Encoded(CallMetadata metadata, byte[] bytes) {
      this.metadata = metadata;
      this.bytes = bytes;
    }
  }

  /**
   * Like {@link #encode(ByteBufAllocator, CallMetadata)}, but remembers the bytes of metadata
   * without a deadline by identity: clients reuse one {@link CallMetadata} per method and options
   * when there is no timeout, and then every call copies the bytes instead of encoding the names.
   */
  static ByteBuf encodeCached(ByteBufAllocator alloc, CallMetadata m) {
    if (m.hasTimeout()) {
      return encode(alloc, m);
    }
    int slot = System.identityHashCode(m) & (ENCODED_CACHE_SIZE - 1);
    Encoded e = ENCODED.get(slot);
    if (e == null || e.metadata != m) {
      ByteBuf fresh = encode(alloc, m);
      ENCODED.lazySet(slot, new Encoded(m, ByteBufUtil.getBytes(fresh)));
      return fresh;
    }
    // The cached array itself, wrapped: nobody writes into a message's metadata (the transport
    // copies it into the frame), so calls may share it.
    return Unpooled.wrappedBuffer(e.bytes);
  }

  /** Appends the encoding of {@code m} to {@code out}. */
  public static void encode(CallMetadata m, ByteBuf out) {
    int flags = 0;
    if (m.idempotent()) {
      flags |= FLAG_IDEMPOTENT;
    }
    if (m.hasTimeout()) {
      flags |= FLAG_DEADLINE;
    }
    if (!m.headers().isEmpty()) {
      flags |= FLAG_HEADERS;
    }
    if (m.rank() != 0) {
      flags |= FLAG_RANK;
    }
    if (m.responseMetadata()) {
      flags |= FLAG_RESPONSE_METADATA;
    }
    out.writeByte(VERSION);
    out.writeByte(flags);
    writeShort8(out, m.service());
    writeShort8(out, m.method());
    if (m.hasTimeout()) {
      out.writeInt((int) m.timeoutMillis());
    }
    if (m.rank() != 0) {
      out.writeInt(m.rank());
    }
    if (!m.headers().isEmpty()) {
      writeHeaderBlock(m.headers(), out);
    }
  }

  static void writeShort8(ByteBuf out, String s) {
    out.writeByte(s.length());
    out.writeCharSequence(s, StandardCharsets.US_ASCII);
  }

  /**
   * Decodes call metadata from the readable bytes of {@code in} (its indexes are left alone).
   *
   * @throws StatusException with {@link Status.Code#INVALID_ARGUMENT} when the bytes are not valid
   *     call metadata (wrong version, unknown flags, truncated, trailing bytes, bad names)
   */
  public static CallMetadata decode(ByteBuf in) {
    int i = in.readerIndex();
    int end = in.writerIndex();
    try {
      if (end - i < 4) {
        throw bad("call metadata is " + (end - i) + " bytes, at least 4 needed");
      }
      int version = in.getUnsignedByte(i++);
      if (version != VERSION) {
        throw bad("call metadata version " + version + " is not supported (this side speaks " + VERSION + ")");
      }
      int flags = in.getUnsignedByte(i++);
      if ((flags & ~KNOWN_FLAGS) != 0) {
        throw bad("call metadata has unknown flags 0x" + Integer.toHexString(flags & ~KNOWN_FLAGS));
      }
      int len = in.getUnsignedByte(i++);
      String service = ascii(in, i, len, end, "service");
      i += len;
      need(in, i, 1, end, "method length");
      len = in.getUnsignedByte(i++);
      String method = ascii(in, i, len, end, "method");
      i += len;
      long timeout = CallMetadata.NO_TIMEOUT;
      if ((flags & FLAG_DEADLINE) != 0) {
        need(in, i, 4, end, "deadline");
        timeout = in.getUnsignedInt(i);
        i += 4;
      }
      int rank = 0;
      if ((flags & FLAG_RANK) != 0) {
        need(in, i, 4, end, "rank");
        rank = in.getInt(i);
        i += 4;
      }
      Headers headers = Headers.EMPTY;
      if ((flags & FLAG_HEADERS) != 0) {
        Headers[] read = new Headers[1];
        i = readHeaderBlock(in, i, end, read);
        headers = read[0];
      }
      if (i != end) {
        throw bad("call metadata has " + (end - i) + " trailing bytes");
      }
      return CallMetadata.of(service, method, headers, timeout, (flags & FLAG_IDEMPOTENT) != 0, rank)
          .withResponseMetadata((flags & FLAG_RESPONSE_METADATA) != 0);
    } catch (IllegalArgumentException e) {
      throw new StatusException(
          Status.of(Status.Code.INVALID_ARGUMENT, "bad call metadata: " + e.getMessage()));
    }
  }

  /**
   * The HTTP path of a call, {@code /<service>/<method>} (as gRPC names it), read from the call
   * metadata in {@code in} (indexes left alone) without decoding the rest; null when {@code in}
   * does not begin with call metadata of this version. For HTTP transports that show each call
   * as a request ({@code RequestPaths.fromMetadata(CallMetadataCodec::httpPath)} of
   * sluice-transport-http2).
   */
  public static String httpPath(ByteBuf in) {
    int i = in.readerIndex();
    int end = in.writerIndex();
    if (end - i < 4 || in.getUnsignedByte(i) != VERSION) {
      return null;
    }
    int serviceLength = in.getUnsignedByte(i + 2);
    int m = i + 3 + serviceLength;
    if (serviceLength == 0 || m >= end) {
      return null;
    }
    int methodLength = in.getUnsignedByte(m);
    if (methodLength == 0 || m + 1 + methodLength > end) {
      return null;
    }
    return "/" + in.toString(i + 3, serviceLength, StandardCharsets.US_ASCII)
        + "/" + in.toString(m + 1, methodLength, StandardCharsets.US_ASCII);
  }

  static void need(ByteBuf in, int i, int n, int end, String what) {
    if (end - i < n) {
      throw bad("call metadata is truncated in the " + what);
    }
  }

  static String ascii(ByteBuf in, int i, int len, int end, String what) {
    need(in, i, len, end, what);
    return in.toString(i, len, StandardCharsets.US_ASCII);
  }

  static IllegalArgumentException bad(String message) {
    return new IllegalArgumentException(message);
  }
}
