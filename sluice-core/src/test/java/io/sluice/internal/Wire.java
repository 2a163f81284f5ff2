package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.ErrorCode;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.FrameValidator;
import io.sluice.internal.frame.Frames;
import io.sluice.internal.frame.Setup;
import java.nio.charset.StandardCharsets;

/**
 * Raw RSocket frames for engine tests: builders for what the test peer sends (pooled buffers, so
 * the leak detector watches them; ownership passes to {@link FakeTransport#inject}) and a decoded,
 * buffer-free copy of what the engine sent.
 */
final class Wire {
  private Wire() {}

  static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
  static final String MIME = "application/binary";

  /** A decoded copy of one sent frame; holds no buffer. */
  record Sent(
      int streamId,
      int type,
      int flags,
      int size,
      int requestN,
      int errorCode,
      String errorMessage,
      byte[] metadata,
      byte[] data,
      long position,
      boolean setupLease,
      int keepAlive,
      int lifetime,
      int major,
      int minor,
      String metadataMime,
      String dataMime) {

    static Sent decode(ByteBuf f) {
      String malformed = FrameValidator.validate(f);
      assertThat(malformed).as("the engine sent a malformed frame: %s", Frames.describe(f)).isNull();
      assertThat(f.getInt(f.readerIndex()) & 0x80000000).as("stream id top bit").isZero();
      int type = Frames.type(f);
      int flags = Frames.flags(f);
      int n = 0;
      int code = 0;
      String message = null;
      byte[] md = null;
      byte[] data = null;
      long position = 0;
      boolean lease = false;
      int keepAlive = 0;
      int lifetime = 0;
      int major = 0;
      int minor = 0;
      String mdMime = null;
      String dataMime = null;
      switch (type) {
        case FrameType.ERROR:
          code = Frames.errorCode(f);
          message = Frames.errorMessage(f);
          break;
        case FrameType.REQUEST_N:
          n = Frames.requestN(f);
          break;
        case FrameType.KEEPALIVE:
          position = Frames.keepAliveLastPosition(f);
          data = ByteBufUtil.getBytes(Frames.keepAliveData(f));
          break;
        case FrameType.LEASE:
          n = Frames.leaseRequests(f);
          keepAlive = Frames.leaseTtl(f); // the lease's ttl, in the field a LEASE has no other use for
          md = bytesOrNull(Frames.metadata(f));
          break;
        case FrameType.SETUP:
          lease = Setup.leaseRequested(f);
          keepAlive = Setup.keepAliveInterval(f);
          lifetime = Setup.maxLifetime(f);
          major = Setup.majorVersion(f);
          minor = Setup.minorVersion(f);
          mdMime = Setup.metadataMimeType(f);
          dataMime = Setup.dataMimeType(f);
          md = bytesOrNull(Frames.metadata(f));
          data = ByteBufUtil.getBytes(Frames.data(f));
          break;
        case FrameType.REQUEST_STREAM:
        case FrameType.REQUEST_CHANNEL:
          n = Frames.initialRequestN(f);
          md = bytesOrNull(Frames.metadata(f));
          data = ByteBufUtil.getBytes(Frames.data(f));
          break;
        case FrameType.REQUEST_RESPONSE:
        case FrameType.REQUEST_FNF:
        case FrameType.PAYLOAD:
        case FrameType.METADATA_PUSH:
          md = bytesOrNull(Frames.metadata(f));
          data = ByteBufUtil.getBytes(Frames.data(f));
          break;
        default:
          break;
      }
      return new Sent(
          Frames.streamId(f),
          type,
          flags,
          f.readableBytes(),
          n,
          code,
          message,
          md,
          data,
          position,
          lease,
          keepAlive,
          lifetime,
          major,
          minor,
          mdMime,
          dataMime);
    }

    private static byte[] bytesOrNull(ByteBuf b) {
      return b == null ? null : ByteBufUtil.getBytes(b);
    }

    boolean has(int flag) {
      return (flags & flag) != 0;
    }

    String dataUtf8() {
      return data == null ? null : new String(data, StandardCharsets.UTF_8);
    }

    String metadataUtf8() {
      return metadata == null ? null : new String(metadata, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
      StringBuilder b =
          new StringBuilder(FrameType.name(type))
              .append("{stream=")
              .append(streamId)
              .append(", flags=0x")
              .append(Integer.toHexString(flags))
              .append(", size=")
              .append(size);
      if (type == FrameType.ERROR) {
        b.append(", code=").append(ErrorCode.name(errorCode)).append(", message=").append(errorMessage);
      }
      if (type == FrameType.REQUEST_N
          || type == FrameType.REQUEST_STREAM
          || type == FrameType.REQUEST_CHANNEL) {
        b.append(", n=").append(requestN);
      }
      return b.append('}').toString();
    }
  }

  // ---- builders --------------------------------------------------------------------------------

  static ByteBuf utf8(String s) {
    return s == null ? null : ALLOC.buffer().writeBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  static ByteBuf bytes(byte[] b) {
    return b == null ? null : ALLOC.buffer(b.length).writeBytes(b);
  }

  /** A valid client SETUP with the given keepalive settings and no payload. */
  static ByteBuf setup(int keepAliveMillis, int lifetimeMillis) {
    ByteBuf out = ALLOC.buffer();
    Setup.write(out, false, keepAliveMillis, lifetimeMillis, null, MIME, MIME, null, utf8Empty());
    return out;
  }

  static ByteBuf setup() {
    return setup(20_000, 90_000);
  }

  /** A valid client SETUP that asks for leasing. */
  static ByteBuf setupWithLease() {
    ByteBuf out = ALLOC.buffer();
    Setup.write(out, true, 20_000, 90_000, null, MIME, MIME, null, utf8Empty());
    return out;
  }

  /** LEASE without metadata. */
  static ByteBuf lease(int ttlMillis, int requests) {
    ByteBuf out = ALLOC.buffer();
    Frames.writeLease(out, ttlMillis, requests, null);
    return out;
  }

  /** LEASE with {@code metadata} as its metadata (Sluice's maxRank is 4 bytes, big-endian). */
  static ByteBuf lease(int ttlMillis, int requests, byte[] metadata) {
    ByteBuf out = ALLOC.buffer();
    ByteBuf md = io.netty.buffer.Unpooled.wrappedBuffer(metadata);
    Frames.writeLease(out, ttlMillis, requests, md);
    return out;
  }

  private static ByteBuf utf8Empty() {
    return io.netty.buffer.Unpooled.EMPTY_BUFFER;
  }

  /** SETUP with a given version, flags (R/L) and resume token, written field by field. */
  static ByteBuf setup(int major, int minor, int flags, int keepAlive, int lifetime, byte[] token) {
    ByteBuf out = ALLOC.buffer();
    Frames.writeHeader(out, 0, FrameType.SETUP, flags);
    out.writeShort(major);
    out.writeShort(minor);
    out.writeInt(keepAlive);
    out.writeInt(lifetime);
    if (token != null) {
      out.writeShort(token.length);
      out.writeBytes(token);
    }
    writeAscii(out, MIME);
    writeAscii(out, MIME);
    return out;
  }

  private static void writeAscii(ByteBuf out, String s) {
    out.writeByte(s.length());
    out.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
  }

  /**
   * A request or PAYLOAD frame. {@code metadata} null means no M flag; the M flag is added when it
   * is not null.
   */
  static ByteBuf frame(int streamId, int type, int flags, int initialN, byte[] metadata, byte[] data) {
    ByteBuf out = ALLOC.buffer();
    if (metadata != null) {
      flags |= Frames.FLAG_METADATA;
    }
    Frames.writeRequestHeader(out, streamId, type, flags, initialN);
    if (metadata != null) {
      Frames.writeU24(out, metadata.length);
      out.writeBytes(metadata);
    }
    if (data != null) {
      out.writeBytes(data);
    }
    return out;
  }

  static byte[] b(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  static ByteBuf requestResponse(int id, String metadata, String data) {
    return frame(id, FrameType.REQUEST_RESPONSE, 0, 0, b(metadata), b(data));
  }

  static ByteBuf fireAndForget(int id, String metadata, String data) {
    return frame(id, FrameType.REQUEST_FNF, 0, 0, b(metadata), b(data));
  }

  static ByteBuf requestStream(int id, int n, String data) {
    return frame(id, FrameType.REQUEST_STREAM, 0, n, null, b(data));
  }

  static ByteBuf requestChannel(int id, int n, String data, boolean complete) {
    return frame(id, FrameType.REQUEST_CHANNEL, complete ? Frames.FLAG_COMPLETE : 0, n, null, b(data));
  }

  static ByteBuf payload(int id, int flags, String metadata, String data) {
    return frame(id, FrameType.PAYLOAD, flags, 0, b(metadata), b(data));
  }

  static ByteBuf next(int id, String data) {
    return payload(id, Frames.FLAG_NEXT, null, data);
  }

  static ByteBuf complete(int id) {
    return payload(id, Frames.FLAG_COMPLETE, null, null);
  }

  static ByteBuf requestN(int id, int n) {
    ByteBuf out = ALLOC.buffer();
    Frames.writeRequestN(out, id, n);
    return out;
  }

  static ByteBuf cancel(int id) {
    ByteBuf out = ALLOC.buffer();
    Frames.writeCancel(out, id);
    return out;
  }

  static ByteBuf error(int id, int code, String message) {
    ByteBuf out = ALLOC.buffer();
    Frames.writeError(out, id, code, message);
    return out;
  }

  static ByteBuf keepAlive(boolean respond, long position, byte[] data) {
    ByteBuf out = ALLOC.buffer();
    ByteBuf d = bytes(data);
    try {
      Frames.writeKeepAlive(out, respond, position, d);
    } finally {
      if (d != null) {
        d.release();
      }
    }
    return out;
  }

  static ByteBuf metadataPush(int id, String metadata) {
    ByteBuf out = ALLOC.buffer();
    Frames.writeHeader(out, id, FrameType.METADATA_PUSH, Frames.FLAG_METADATA);
    out.writeBytes(b(metadata));
    return out;
  }

  static ByteBuf resume(byte[] token) {
    ByteBuf out = ALLOC.buffer();
    ByteBuf t = bytes(token);
    try {
      Frames.writeResume(out, t, 0, 0);
    } finally {
      t.release();
    }
    return out;
  }

  /** A frame with an arbitrary header and body bytes. */
  static ByteBuf raw(int streamId, int type, int flags, byte[] body) {
    ByteBuf out = ALLOC.buffer();
    Frames.writeHeader(out, streamId, type, flags);
    out.writeBytes(body);
    return out;
  }

  static byte[] pattern(int size, int seed) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) (i * 31 + seed);
    }
    return b;
  }
}
