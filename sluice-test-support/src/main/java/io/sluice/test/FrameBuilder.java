package io.sluice.test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import io.sluice.test.ConnectionFrameBuilders.KeepAliveBuilder;
import io.sluice.test.ConnectionFrameBuilders.LeaseBuilder;
import io.sluice.test.ConnectionFrameBuilders.MetadataPushBuilder;
import io.sluice.test.ConnectionFrameBuilders.ResumeBuilder;
import java.util.Arrays;

/**
 * Builds RSocket 1.0 frames byte by byte, straight from the specification (Protocol.md "Frame
 * Header Format" and the per-type layouts), independently of sluice-core's codecs. Conformance and
 * codec tests use it as a second implementation to check the real one against, and to put frames on
 * the wire.
 *
 * <pre>{@code
 * ByteBuf setup = FrameBuilder.setup().keepAlive(1_000).lifetime(5_000).lease(true)
 *     .metadataMime("text/plain").dataMime("text/plain").data("hi").build(alloc);
 * ByteBuf onWire = FrameBuilder.lengthPrefixed(setup); // for TCP
 * }</pre>
 *
 * <p>A built frame is one frame without the u24 length prefix: stream id (u32), type and flags
 * (u16), then the body. Numbers are big-endian and written one byte at a time. Every builder has
 * escape hatches for malformed frames: {@link Builder#streamIdRaw} (top bit included), {@link
 * Builder#flags} (replace computed flags), {@link Builder#addFlags}/{@link Builder#clearFlags},
 * {@link Builder#type} (another type code), {@link Builder#append} (trailing bytes) and {@link
 * Builder#truncate} (cut the frame short). {@link #raw} writes any header with any body.
 *
 * <p>Metadata: {@code null} (the default) means "no metadata" (M flag clear); an empty array means
 * M set with zero-length metadata. Strings are written as UTF-8.
 *
 * <p><b>Buffers.</b> {@link Builder#build(ByteBufAllocator)} returns a new buffer the caller owns
 * and must release. {@link Builder#toBytes()} and {@link Builder#hex()} need no release. Builders
 * are mutable and not thread-safe; they hold only byte arrays, so they can be built many times.
 *
 * <p>The static methods may be called from any thread. {@link #lengthPrefixed(ByteBuf)} takes
 * ownership of the frame it is given and releases it.
 *
 * <p>The builders of LEASE, KEEPALIVE, METADATA_PUSH and RESUME are in {@link
 * ConnectionFrameBuilders}; the entry points here make them all.
 */
public final class FrameBuilder {
  private FrameBuilder() {}

  // ---- spec constants (Protocol.md "Frame Types" and "Frame Header Format") -------------------
  public static final int TYPE_RESERVED = 0x00;
  public static final int TYPE_SETUP = 0x01;
  public static final int TYPE_LEASE = 0x02;
  public static final int TYPE_KEEPALIVE = 0x03;
  public static final int TYPE_REQUEST_RESPONSE = 0x04;
  public static final int TYPE_REQUEST_FNF = 0x05;
  public static final int TYPE_REQUEST_STREAM = 0x06;
  public static final int TYPE_REQUEST_CHANNEL = 0x07;
  public static final int TYPE_REQUEST_N = 0x08;
  public static final int TYPE_CANCEL = 0x09;
  public static final int TYPE_PAYLOAD = 0x0A;
  public static final int TYPE_ERROR = 0x0B;
  public static final int TYPE_METADATA_PUSH = 0x0C;
  public static final int TYPE_RESUME = 0x0D;
  public static final int TYPE_RESUME_OK = 0x0E;
  public static final int TYPE_EXT = 0x3F;

  /** (I)gnore: the frame may be ignored if not understood. */
  public static final int FLAG_IGNORE = 0x200;

  /** (M)etadata present. */
  public static final int FLAG_METADATA = 0x100;

  /** (F)ollows: more fragments follow (request and PAYLOAD frames). */
  public static final int FLAG_FOLLOWS = 0x80;

  /** (C)omplete (REQUEST_CHANNEL, PAYLOAD). */
  public static final int FLAG_COMPLETE = 0x40;

  /** (N)ext (PAYLOAD). */
  public static final int FLAG_NEXT = 0x20;

  /** SETUP (R)esume enable: a resume token follows the lifetime. */
  public static final int FLAG_RESUME = 0x80;

  /** SETUP (L)ease: the client will honour LEASE. */
  public static final int FLAG_LEASE = 0x40;

  /** KEEPALIVE (R)espond: the receiver must answer with a KEEPALIVE. */
  public static final int FLAG_RESPOND = 0x80;

  public static final int HEADER_SIZE = 6;
  public static final String DEFAULT_MIME = "application/binary";

  /** Heap-only and untracked: for {@link Builder#toBytes()}, whose buffer never escapes. */
  private static final ByteBufAllocator SCRATCH = new UnpooledByteBufAllocator(false, true);

  // ---- entry points
  // ------------------------------------------------------------------------------

  /**
   * SETUP on stream 0; version 1.0, keepalive 20 s, lifetime 90 s, both MIMEs {@value
   * #DEFAULT_MIME}.
   */
  public static SetupBuilder setup() {
    return new SetupBuilder();
  }

  /** LEASE on stream 0; metadata (no length field) via {@link LeaseBuilder#metadata}. */
  public static LeaseBuilder lease(int ttlMillis, int numberOfRequests) {
    return new LeaseBuilder(ttlMillis, numberOfRequests);
  }

  /** KEEPALIVE on stream 0: R flag, u63 last received position, data. */
  public static KeepAliveBuilder keepAlive(boolean respond, long lastReceivedPosition) {
    return new KeepAliveBuilder(respond, lastReceivedPosition);
  }

  /** KEEPALIVE on stream 0 with data. */
  public static KeepAliveBuilder keepAlive(
      boolean respond, long lastReceivedPosition, byte[] data) {
    return new KeepAliveBuilder(respond, lastReceivedPosition).data(data);
  }

  public static PayloadBuilder requestResponse(int streamId) {
    return new PayloadBuilder(TYPE_REQUEST_RESPONSE, streamId, -1);
  }

  public static PayloadBuilder requestFnf(int streamId) {
    return new PayloadBuilder(TYPE_REQUEST_FNF, streamId, -1);
  }

  /** REQUEST_STREAM with its u31 initial request N (written as given, so 0 or negative work). */
  public static PayloadBuilder requestStream(int streamId, int initialRequestN) {
    return new PayloadBuilder(TYPE_REQUEST_STREAM, streamId, initialRequestN);
  }

  /** REQUEST_CHANNEL with its u31 initial request N. */
  public static PayloadBuilder requestChannel(int streamId, int initialRequestN) {
    return new PayloadBuilder(TYPE_REQUEST_CHANNEL, streamId, initialRequestN);
  }

  /** REQUEST_CHANNEL with initial request N and the C flag (the requester's side is complete). */
  public static PayloadBuilder requestChannel(int streamId, int initialRequestN, boolean complete) {
    return requestChannel(streamId, initialRequestN).complete(complete);
  }

  /**
   * PAYLOAD with no N/C/F flags: set them with {@code next()}, {@code complete()}, {@code
   * follows()}.
   */
  public static PayloadBuilder payload(int streamId) {
    return new PayloadBuilder(TYPE_PAYLOAD, streamId, -1);
  }

  /** PAYLOAD with N and/or C. */
  public static PayloadBuilder payload(int streamId, boolean next, boolean complete) {
    return payload(streamId).next(next).complete(complete);
  }

  /** REQUEST_N with its u31 N (written as given). */
  public static FixedBuilder requestN(int streamId, int n) {
    return new FixedBuilder(TYPE_REQUEST_N, streamId).u32(n);
  }

  public static FixedBuilder cancel(int streamId) {
    return new FixedBuilder(TYPE_CANCEL, streamId);
  }

  /** ERROR: u32 code then the message as UTF-8, no terminator. */
  public static ErrorBuilder error(int streamId, int code, String message) {
    return new ErrorBuilder(streamId, code).message(message);
  }

  /** METADATA_PUSH on stream 0 with the M flag; the metadata is the rest of the frame. */
  public static MetadataPushBuilder metadataPush(byte[] metadata) {
    return new MetadataPushBuilder(metadata);
  }

  public static MetadataPushBuilder metadataPush(String metadata) {
    return metadataPush(utf8(metadata));
  }

  /**
   * RESUME on stream 0: version 1.0, u16 token length, token, u63 last received server position,
   * u63 first available client position.
   */
  public static ResumeBuilder resume(
      byte[] token, long lastReceivedServerPosition, long firstAvailableClientPosition) {
    return new ResumeBuilder(token, lastReceivedServerPosition, firstAvailableClientPosition);
  }

  /** RESUME_OK on stream 0: u63 last received client position. */
  public static FixedBuilder resumeOk(long lastReceivedClientPosition) {
    return new FixedBuilder(TYPE_RESUME_OK, 0).u64(lastReceivedClientPosition);
  }

  /**
   * EXT: u31 extended type, then (as sluice lays it out, like the other payload frames) optional
   * u24-length-prefixed metadata and data. Set I with {@link ExtBuilder#ignore}.
   */
  public static ExtBuilder ext(int streamId, int extendedType) {
    return new ExtBuilder(streamId, extendedType);
  }

  /** Any header with any body, for malformed or unknown frames. */
  public static FixedBuilder raw(int streamId, int type, int flags, byte... body) {
    return new FixedBuilder(type, streamId).flags(flags).bytes(body);
  }

  // ---- helpers
  // ------------------------------------------------------------------------------------

  /**
   * Prepends the u24 frame length used on byte-stream transports (TCP). Consumes {@code frame}:
   * returns a new buffer from the same allocator holding prefix and frame, and releases {@code
   * frame}. The frame's readable bytes must not exceed 0xFFFFFF.
   */
  public static ByteBuf lengthPrefixed(ByteBuf frame) {
    try {
      int length = frame.readableBytes();
      if (length > 0xFFFFFF) {
        throw new IllegalArgumentException("frame of " + length + " bytes exceeds the u24 prefix");
      }
      ByteBuf out = frame.alloc().buffer(3 + length);
      u24(out, length);
      out.writeBytes(frame, frame.readerIndex(), length);
      return out;
    } finally {
      frame.release();
    }
  }

  /** Same as {@link #lengthPrefixed(ByteBuf)} on a byte array; returns a new array. */
  public static byte[] lengthPrefixed(byte[] frame) {
    byte[] out = new byte[3 + frame.length];
    out[0] = (byte) (frame.length >>> 16);
    out[1] = (byte) (frame.length >>> 8);
    out[2] = (byte) frame.length;
    System.arraycopy(frame, 0, out, 3, frame.length);
    return out;
  }

  static byte[] utf8(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  static void u8(ByteBuf out, int v) {
    out.writeByte(v & 0xFF);
  }

  static void u16(ByteBuf out, int v) {
    u8(out, v >>> 8);
    u8(out, v);
  }

  static void u24(ByteBuf out, int v) {
    u8(out, v >>> 16);
    u8(out, v >>> 8);
    u8(out, v);
  }

  static void u32(ByteBuf out, int v) {
    u8(out, v >>> 24);
    u8(out, v >>> 16);
    u8(out, v >>> 8);
    u8(out, v);
  }

  static void u64(ByteBuf out, long v) {
    u32(out, (int) (v >>> 32));
    u32(out, (int) v);
  }

  static void bytes(ByteBuf out, byte[] b) {
    for (byte x : b) {
      out.writeByte(x);
    }
  }

  // ---- builders
  // -----------------------------------------------------------------------------------

  /** Header and escape hatches shared by all builders. */
  public abstract static class Builder<B extends Builder<B>> {
    int type;
    int streamId;
    private Integer flagsOverride;
    private int addFlags;
    private int clearFlags;
    private byte[] trailing = new byte[0];
    private int truncateTo = -1;

    Builder(int type, int streamId) {
      this.type = type;
      this.streamId = streamId;
    }

    @SuppressWarnings("unchecked")
    final B self() {
      return (B) this;
    }

    /** The flags the spec layout implies for the current settings. */
    abstract int naturalFlags();

    /** Writes everything after the 6-byte header. */
    abstract void writeBody(ByteBuf out);

    /** Stream id; written with the reserved top bit clear. */
    public B streamId(int streamId) {
      this.streamId = streamId & 0x7FFFFFFF;
      return self();
    }

    /** Stream id written as all 32 bits, so the reserved top bit can be set. */
    public B streamIdRaw(int streamIdWithTopBit) {
      this.streamId = streamIdWithTopBit;
      return self();
    }

    /** Writes another type code (6 bits) in the header, keeping this builder's body layout. */
    public B type(int type) {
      this.type = type;
      return self();
    }

    /** Replaces the computed flags with exactly {@code flags} (10 bits). */
    public B flags(int flags) {
      this.flagsOverride = flags;
      return self();
    }

    /** Sets extra flag bits on top of the computed ones. */
    public B addFlags(int flags) {
      this.addFlags |= flags;
      return self();
    }

    /** Clears flag bits the builder would otherwise set. */
    public B clearFlags(int flags) {
      this.clearFlags |= flags;
      return self();
    }

    /** Appends raw bytes after the body. */
    public B append(byte... bytes) {
      byte[] joined = Arrays.copyOf(trailing, trailing.length + bytes.length);
      System.arraycopy(bytes, 0, joined, trailing.length, bytes.length);
      this.trailing = joined;
      return self();
    }

    /** Cuts the finished frame to its first {@code size} bytes. */
    public B truncate(int size) {
      this.truncateTo = size;
      return self();
    }

    /** The flags that will be written. */
    public int effectiveFlags() {
      int f = flagsOverride != null ? flagsOverride : (naturalFlags() | addFlags) & ~clearFlags;
      return f & 0x3FF;
    }

    /** The header's second field: {@code type << 10 | flags}. */
    public int typeAndFlags() {
      return ((type & 0x3F) << 10) | effectiveFlags();
    }

    /** A new frame buffer (no length prefix) from {@code alloc}; the caller releases it. */
    public ByteBuf build(ByteBufAllocator alloc) {
      ByteBuf out = alloc.buffer();
      try {
        u32(out, streamId);
        u16(out, typeAndFlags());
        writeBody(out);
        bytes(out, trailing);
        if (truncateTo >= 0 && truncateTo < out.writerIndex()) {
          out.writerIndex(truncateTo);
        }
        return out;
      } catch (RuntimeException | Error e) {
        out.release();
        throw e;
      }
    }

    /**
     * A new frame from {@link PooledByteBufAllocator#DEFAULT} (pooled, so netty's leak detector
     * tracks it); the caller releases it.
     */
    public ByteBuf build() {
      return build(PooledByteBufAllocator.DEFAULT);
    }

    /**
     * A new u24-length-prefixed frame from {@code alloc}, as sent on TCP; the caller releases it.
     */
    public ByteBuf buildLengthPrefixed(ByteBufAllocator alloc) {
      return lengthPrefixed(build(alloc));
    }

    /** The frame's bytes (no length prefix). */
    public byte[] toBytes() {
      ByteBuf buf = build(SCRATCH);
      try {
        byte[] out = new byte[buf.readableBytes()];
        buf.getBytes(buf.readerIndex(), out);
        return out;
      } finally {
        buf.release();
      }
    }

    /** The frame's bytes as lower-case hex without separators. */
    public String hex() {
      return Hex.encode(toBytes());
    }
  }

  /**
   * Optional metadata (M flag, u24 length unless {@link #metadataLengthField} is false) and data.
   */
  public abstract static class PayloadBearing<B extends PayloadBearing<B>> extends Builder<B> {
    byte[] metadata;
    byte[] data = new byte[0];
    private Integer declaredMetadataLength;

    PayloadBearing(int type, int streamId) {
      super(type, streamId);
    }

    /** Whether metadata is preceded by a u24 length (false for LEASE and METADATA_PUSH). */
    boolean metadataLengthField() {
      return true;
    }

    /** Metadata bytes; {@code null} clears the M flag, an empty array sets M with no bytes. */
    public B metadata(byte[] metadata) {
      this.metadata = metadata == null ? null : metadata.clone();
      return self();
    }

    public B metadata(String metadata) {
      return metadata(utf8(metadata));
    }

    public B data(byte[] data) {
      this.data = data == null ? new byte[0] : data.clone();
      return self();
    }

    public B data(String data) {
      return data(utf8(data));
    }

    /** Writes {@code length} in the u24 metadata-length field instead of the real length. */
    public B declaredMetadataLength(int length) {
      this.declaredMetadataLength = length;
      return self();
    }

    int metadataFlag() {
      return metadata != null ? FLAG_METADATA : 0;
    }

    void writeMetadataAndData(ByteBuf out) {
      if (metadata != null) {
        if (metadataLengthField()) {
          u24(out, declaredMetadataLength != null ? declaredMetadataLength : metadata.length);
        }
        bytes(out, metadata);
      }
      bytes(out, data);
    }
  }

  /** SETUP (type 0x01). */
  public static final class SetupBuilder extends PayloadBearing<SetupBuilder> {
    private int major = 1;
    private int minor = 0;
    private int keepAlive = 20_000;
    private int lifetime = 90_000;
    private boolean lease;
    private byte[] resumeToken;
    private byte[] metadataMime = DEFAULT_MIME.getBytes(StandardCharsets.US_ASCII);
    private byte[] dataMime = DEFAULT_MIME.getBytes(StandardCharsets.US_ASCII);
    private Integer declaredTokenLength;
    private Integer declaredMetadataMimeLength;
    private Integer declaredDataMimeLength;

    SetupBuilder() {
      super(TYPE_SETUP, 0);
    }

    public SetupBuilder version(int major, int minor) {
      this.major = major;
      this.minor = minor;
      return this;
    }

    /** Keepalive interval in ms (u31, written as given). */
    public SetupBuilder keepAlive(int millis) {
      this.keepAlive = millis;
      return this;
    }

    /** Max lifetime in ms (u31, written as given). */
    public SetupBuilder lifetime(int millis) {
      this.lifetime = millis;
      return this;
    }

    /** The L flag. */
    public SetupBuilder lease(boolean lease) {
      this.lease = lease;
      return this;
    }

    /** Resume token (sets R and writes u16 length + token); {@code null} clears R. */
    public SetupBuilder resumeToken(byte[] token) {
      this.resumeToken = token == null ? null : token.clone();
      return this;
    }

    public SetupBuilder metadataMime(String mime) {
      this.metadataMime = mime.getBytes(StandardCharsets.US_ASCII);
      return this;
    }

    public SetupBuilder dataMime(String mime) {
      this.dataMime = mime.getBytes(StandardCharsets.US_ASCII);
      return this;
    }

    /** Writes {@code length} as the u16 resume token length instead of the real one. */
    public SetupBuilder declaredTokenLength(int length) {
      this.declaredTokenLength = length;
      return this;
    }

    /** Writes {@code length} as the u8 metadata MIME length instead of the real one. */
    public SetupBuilder declaredMetadataMimeLength(int length) {
      this.declaredMetadataMimeLength = length;
      return this;
    }

    /** Writes {@code length} as the u8 data MIME length instead of the real one. */
    public SetupBuilder declaredDataMimeLength(int length) {
      this.declaredDataMimeLength = length;
      return this;
    }

    @Override
    int naturalFlags() {
      return metadataFlag() | (resumeToken != null ? FLAG_RESUME : 0) | (lease ? FLAG_LEASE : 0);
    }

    @Override
    void writeBody(ByteBuf out) {
      u16(out, major);
      u16(out, minor);
      u32(out, keepAlive);
      u32(out, lifetime);
      if (resumeToken != null) {
        u16(out, declaredTokenLength != null ? declaredTokenLength : resumeToken.length);
        bytes(out, resumeToken);
      }
      u8(
          out,
          declaredMetadataMimeLength != null ? declaredMetadataMimeLength : metadataMime.length);
      bytes(out, metadataMime);
      u8(out, declaredDataMimeLength != null ? declaredDataMimeLength : dataMime.length);
      bytes(out, dataMime);
      writeMetadataAndData(out);
    }
  }

  /**
   * REQUEST_RESPONSE, REQUEST_FNF, REQUEST_STREAM, REQUEST_CHANNEL and PAYLOAD: [u31 initial N for
   * stream/channel], [u24 metadata length, metadata], data.
   */
  public static final class PayloadBuilder extends PayloadBearing<PayloadBuilder> {
    private final int initialRequestN; // -1: this type has no initial N field
    private boolean follows;
    private boolean complete;
    private boolean next;

    PayloadBuilder(int type, int streamId, int initialRequestN) {
      super(type, streamId);
      this.initialRequestN =
          (type == TYPE_REQUEST_STREAM || type == TYPE_REQUEST_CHANNEL) ? initialRequestN : -1;
      if (this.initialRequestN == -1 && initialRequestN != -1) {
        throw new IllegalArgumentException("initial N only exists on REQUEST_STREAM/CHANNEL");
      }
    }

    /** The F flag. */
    public PayloadBuilder follows(boolean follows) {
      this.follows = follows;
      return this;
    }

    /** The C flag (meaningful on REQUEST_CHANNEL and PAYLOAD). */
    public PayloadBuilder complete(boolean complete) {
      this.complete = complete;
      return this;
    }

    /** The N flag (meaningful on PAYLOAD). */
    public PayloadBuilder next(boolean next) {
      this.next = next;
      return this;
    }

    @Override
    int naturalFlags() {
      return metadataFlag()
          | (follows ? FLAG_FOLLOWS : 0)
          | (complete ? FLAG_COMPLETE : 0)
          | (next ? FLAG_NEXT : 0);
    }

    @Override
    void writeBody(ByteBuf out) {
      if (initialRequestN != -1) {
        u32(out, initialRequestN);
      }
      writeMetadataAndData(out);
    }
  }

  /** ERROR (type 0x0B): u32 code, UTF-8 message. */
  public static final class ErrorBuilder extends Builder<ErrorBuilder> {
    private final int code;
    private byte[] message = new byte[0];

    ErrorBuilder(int streamId, int code) {
      super(TYPE_ERROR, streamId);
      this.code = code;
    }

    public ErrorBuilder message(String message) {
      this.message = message == null ? new byte[0] : utf8(message);
      return this;
    }

    /** Raw message bytes (e.g. invalid UTF-8). */
    public ErrorBuilder messageBytes(byte[] message) {
      this.message = message.clone();
      return this;
    }

    @Override
    int naturalFlags() {
      return 0;
    }

    @Override
    void writeBody(ByteBuf out) {
      u32(out, code);
      bytes(out, message);
    }
  }

  /** EXT (type 0x3F): I flag, u31 extended type, [u24 metadata length, metadata], data. */
  public static final class ExtBuilder extends PayloadBearing<ExtBuilder> {
    private final int extendedType;
    private boolean ignore;

    ExtBuilder(int streamId, int extendedType) {
      super(TYPE_EXT, streamId);
      this.extendedType = extendedType;
    }

    /** The I flag: the receiver may ignore this frame if it does not understand it. */
    public ExtBuilder ignore(boolean ignore) {
      this.ignore = ignore;
      return this;
    }

    @Override
    int naturalFlags() {
      return metadataFlag() | (ignore ? FLAG_IGNORE : 0);
    }

    @Override
    void writeBody(ByteBuf out) {
      u32(out, extendedType);
      writeMetadataAndData(out);
    }
  }

  /**
   * Frames with a fixed layout (REQUEST_N, CANCEL, RESUME_OK) and {@link #raw} frames: the body is
   * whatever the u8..u64 and bytes calls appended, in order.
   */
  public static final class FixedBuilder extends Builder<FixedBuilder> {
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private int flags;

    FixedBuilder(int type, int streamId) {
      super(type, streamId);
    }

    @Override
    public FixedBuilder flags(int flags) {
      this.flags = flags;
      return this;
    }

    public FixedBuilder u8(int v) {
      body.write(v & 0xFF);
      return this;
    }

    public FixedBuilder u16(int v) {
      return u8(v >>> 8).u8(v);
    }

    public FixedBuilder u24(int v) {
      return u8(v >>> 16).u8(v >>> 8).u8(v);
    }

    public FixedBuilder u32(int v) {
      return u16(v >>> 16).u16(v);
    }

    public FixedBuilder u64(long v) {
      return u32((int) (v >>> 32)).u32((int) v);
    }

    public FixedBuilder bytes(byte... bytes) {
      body.write(bytes, 0, bytes.length);
      return this;
    }

    public FixedBuilder utf8(String s) {
      return bytes(FrameBuilder.utf8(s));
    }

    @Override
    int naturalFlags() {
      return flags;
    }

    @Override
    void writeBody(ByteBuf out) {
      FrameBuilder.bytes(out, body.toByteArray());
    }
  }
}
