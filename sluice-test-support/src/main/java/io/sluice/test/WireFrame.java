package io.sluice.test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One frame as {@link RawPeer} received it, decoded here from the bytes by the layouts in RSocket
 * 1.0 Protocol.md, without any of sluice-core's codecs: a test must not trust the code it checks.
 * The counterpart of {@link FrameBuilder}, which writes frames the same way.
 *
 * <p>Holds no buffers, only the byte array, which it never writes to. Do not change the array after
 * handing it in; then the frame may be read from any thread.
 *
 * @param bytes the whole frame (header included, u24 length prefix excluded)
 */
public record WireFrame(byte[] bytes) {
  public static final int HEADER = 6;

  // Types (Protocol.md "Frame Types").
  public static final int SETUP = 0x01;
  public static final int LEASE = 0x02;
  public static final int KEEPALIVE = 0x03;
  public static final int REQUEST_RESPONSE = 0x04;
  public static final int REQUEST_FNF = 0x05;
  public static final int REQUEST_STREAM = 0x06;
  public static final int REQUEST_CHANNEL = 0x07;
  public static final int REQUEST_N = 0x08;
  public static final int CANCEL = 0x09;
  public static final int PAYLOAD = 0x0A;
  public static final int ERROR = 0x0B;
  public static final int METADATA_PUSH = 0x0C;
  public static final int RESUME = 0x0D;
  public static final int RESUME_OK = 0x0E;
  public static final int EXT = 0x3F;

  // Flags.
  public static final int I = 0x200;
  public static final int M = 0x100;
  public static final int F = 0x80;
  public static final int C = 0x40;
  public static final int N = 0x20;
  public static final int SETUP_R = 0x80;
  public static final int SETUP_L = 0x40;
  public static final int KEEPALIVE_R = 0x80;

  // Error codes (Protocol.md "Error Codes").
  public static final int INVALID_SETUP = 0x001;
  public static final int UNSUPPORTED_SETUP = 0x002;
  public static final int REJECTED_SETUP = 0x003;
  public static final int REJECTED_RESUME = 0x004;
  public static final int CONNECTION_ERROR = 0x101;
  public static final int CONNECTION_CLOSE = 0x102;
  public static final int APPLICATION_ERROR = 0x201;
  public static final int REJECTED = 0x202;
  public static final int CANCELED = 0x203;
  public static final int INVALID = 0x204;

  public WireFrame {
    if (bytes.length < HEADER) {
      throw new AssertionError("a frame shorter than its 6-byte header: " + bytes.length + " bytes");
    }
  }

  public int size() {
    return bytes.length;
  }

  /** The stream id field with its reserved top bit. */
  public int rawStreamId() {
    return u32(0);
  }

  public int streamId() {
    return rawStreamId() & 0x7FFFFFFF;
  }

  public int type() {
    return u16(4) >>> 10;
  }

  public int flags() {
    return u16(4) & 0x3FF;
  }

  public boolean has(int flag) {
    return (flags() & flag) != 0;
  }

  public boolean isPayloadWith(int flag) {
    return type() == PAYLOAD && has(flag);
  }

  // ---- ERROR -----------------------------------------------------------------------------------

  public int errorCode() {
    expect(ERROR);
    return u32(HEADER);
  }

  public byte[] errorTextBytes() {
    expect(ERROR);
    return Arrays.copyOfRange(bytes, HEADER + 4, bytes.length);
  }

  public String errorText() {
    return new String(errorTextBytes(), StandardCharsets.UTF_8);
  }

  // ---- REQUEST_N, initial N ----------------------------------------------------------------------

  public int requestN() {
    expect(REQUEST_N);
    return u32(HEADER);
  }

  public int initialRequestN() {
    if (type() != REQUEST_STREAM && type() != REQUEST_CHANNEL) {
      throw new AssertionError("no initial request N in " + this);
    }
    return u32(HEADER);
  }

  // ---- KEEPALIVE / LEASE -----------------------------------------------------------------------

  public long keepAlivePosition() {
    expect(KEEPALIVE);
    return ((long) u32(HEADER) << 32) | (u32(HEADER + 4) & 0xFFFFFFFFL);
  }

  public byte[] keepAliveData() {
    expect(KEEPALIVE);
    return Arrays.copyOfRange(bytes, HEADER + 8, bytes.length);
  }

  public int leaseTtl() {
    expect(LEASE);
    return u32(HEADER);
  }

  public int leaseRequests() {
    expect(LEASE);
    return u32(HEADER + 4);
  }

  // ---- metadata and data -------------------------------------------------------------------------

  /** Where the metadata length (or metadata) starts for types that carry a payload. */
  private int payloadStart() {
    switch (type()) {
      case REQUEST_STREAM:
      case REQUEST_CHANNEL:
        return HEADER + 4;
      case REQUEST_RESPONSE:
      case REQUEST_FNF:
      case PAYLOAD:
        return HEADER;
      case METADATA_PUSH:
        return HEADER;
      case KEEPALIVE:
        return HEADER + 8; // after the last received position
      case SETUP:
        return setupPayloadStart();
      default:
        throw new AssertionError("no payload in " + this);
    }
  }

  private int setupPayloadStart() {
    int at = HEADER + 12;
    if (has(SETUP_R)) {
      at += 2 + u16(at);
    }
    at += 1 + u8(at);
    at += 1 + u8(at);
    return at;
  }

  /** The metadata, or null when M is clear. METADATA_PUSH has no length field (rule 8). */
  public byte[] metadata() {
    if (!has(M)) {
      return null;
    }
    int at = payloadStart();
    if (type() == METADATA_PUSH) {
      return Arrays.copyOfRange(bytes, at, bytes.length);
    }
    int length = u24(at);
    if (at + 3 + length > bytes.length) {
      throw new AssertionError("metadata length " + length + " runs past the end of " + this);
    }
    return Arrays.copyOfRange(bytes, at + 3, at + 3 + length);
  }

  public byte[] data() {
    int at = payloadStart();
    if (type() == METADATA_PUSH) {
      return new byte[0];
    }
    if (has(M)) {
      at += 3 + u24(at);
    }
    return Arrays.copyOfRange(bytes, at, bytes.length);
  }

  public String dataUtf8() {
    return new String(data(), StandardCharsets.UTF_8);
  }

  // ---- SETUP ------------------------------------------------------------------------------------

  public int setupMajor() {
    expect(SETUP);
    return u16(HEADER);
  }

  public int setupMinor() {
    expect(SETUP);
    return u16(HEADER + 2);
  }

  public int setupKeepAlive() {
    expect(SETUP);
    return u32(HEADER + 4);
  }

  public int setupLifetime() {
    expect(SETUP);
    return u32(HEADER + 8);
  }

  /** The MIME types right after the lifetime (and the resume token if R is set). */
  public String setupMetadataMime() {
    expect(SETUP);
    int at = HEADER + 12 + (has(SETUP_R) ? 2 + u16(HEADER + 12) : 0);
    return new String(bytes, at + 1, u8(at), StandardCharsets.US_ASCII);
  }

  // ---- raw numbers -------------------------------------------------------------------------------

  public int u8(int at) {
    return bytes[at] & 0xFF;
  }

  public int u16(int at) {
    return (u8(at) << 8) | u8(at + 1);
  }

  public int u24(int at) {
    return (u8(at) << 16) | (u8(at + 1) << 8) | u8(at + 2);
  }

  public int u32(int at) {
    return (u16(at) << 16) | u16(at + 2);
  }

  private void expect(int type) {
    if (type() != type) {
      throw new AssertionError("expected a " + name(type) + " frame, got " + this);
    }
  }

  public static String name(int type) {
    switch (type) {
      case SETUP: return "SETUP";
      case LEASE: return "LEASE";
      case KEEPALIVE: return "KEEPALIVE";
      case REQUEST_RESPONSE: return "REQUEST_RESPONSE";
      case REQUEST_FNF: return "REQUEST_FNF";
      case REQUEST_STREAM: return "REQUEST_STREAM";
      case REQUEST_CHANNEL: return "REQUEST_CHANNEL";
      case REQUEST_N: return "REQUEST_N";
      case CANCEL: return "CANCEL";
      case PAYLOAD: return "PAYLOAD";
      case ERROR: return "ERROR";
      case METADATA_PUSH: return "METADATA_PUSH";
      case RESUME: return "RESUME";
      case RESUME_OK: return "RESUME_OK";
      case EXT: return "EXT";
      default: return "type 0x" + Integer.toHexString(type);
    }
  }

  @Override
  public String toString() {
    StringBuilder b =
        new StringBuilder(name(type()))
            .append("{stream=")
            .append(streamId())
            .append(", flags=0x")
            .append(Integer.toHexString(flags()))
            .append(", size=")
            .append(bytes.length);
    if (type() == ERROR && bytes.length >= HEADER + 4) {
      b.append(", code=0x").append(Integer.toHexString(errorCode())).append(", '").append(errorText()).append('\'');
    }
    return b.append('}').toString();
  }
}
