package io.sluice.conformance;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One frame as the raw peer received it, decoded here from the bytes by the layouts in RSocket 1.0
 * Protocol.md, without any of sluice-core's codecs: the suite must not trust the code it checks.
 *
 * @param bytes the whole frame (header included, u24 length prefix excluded)
 */
record WireFrame(byte[] bytes) {
  static final int HEADER = 6;

  // Types (Protocol.md "Frame Types").
  static final int SETUP = 0x01;
  static final int LEASE = 0x02;
  static final int KEEPALIVE = 0x03;
  static final int REQUEST_RESPONSE = 0x04;
  static final int REQUEST_FNF = 0x05;
  static final int REQUEST_STREAM = 0x06;
  static final int REQUEST_CHANNEL = 0x07;
  static final int REQUEST_N = 0x08;
  static final int CANCEL = 0x09;
  static final int PAYLOAD = 0x0A;
  static final int ERROR = 0x0B;
  static final int METADATA_PUSH = 0x0C;
  static final int RESUME = 0x0D;
  static final int RESUME_OK = 0x0E;
  static final int EXT = 0x3F;

  // Flags.
  static final int I = 0x200;
  static final int M = 0x100;
  static final int F = 0x80;
  static final int C = 0x40;
  static final int N = 0x20;
  static final int SETUP_R = 0x80;
  static final int SETUP_L = 0x40;
  static final int KEEPALIVE_R = 0x80;

  // Error codes (Protocol.md "Error Codes").
  static final int INVALID_SETUP = 0x001;
  static final int UNSUPPORTED_SETUP = 0x002;
  static final int REJECTED_SETUP = 0x003;
  static final int REJECTED_RESUME = 0x004;
  static final int CONNECTION_ERROR = 0x101;
  static final int CONNECTION_CLOSE = 0x102;
  static final int APPLICATION_ERROR = 0x201;
  static final int REJECTED = 0x202;
  static final int CANCELED = 0x203;
  static final int INVALID = 0x204;

  WireFrame {
    if (bytes.length < HEADER) {
      throw new AssertionError("a frame shorter than its 6-byte header: " + bytes.length + " bytes");
    }
  }

  int size() {
    return bytes.length;
  }

  /** The stream id field with its reserved top bit. */
  int rawStreamId() {
    return u32(0);
  }

  int streamId() {
    return rawStreamId() & 0x7FFFFFFF;
  }

  int type() {
    return u16(4) >>> 10;
  }

  int flags() {
    return u16(4) & 0x3FF;
  }

  boolean has(int flag) {
    return (flags() & flag) != 0;
  }

  boolean isPayloadWith(int flag) {
    return type() == PAYLOAD && has(flag);
  }

  // ---- ERROR -----------------------------------------------------------------------------------

  int errorCode() {
    expect(ERROR);
    return u32(HEADER);
  }

  byte[] errorTextBytes() {
    expect(ERROR);
    return Arrays.copyOfRange(bytes, HEADER + 4, bytes.length);
  }

  String errorText() {
    return new String(errorTextBytes(), StandardCharsets.UTF_8);
  }

  // ---- REQUEST_N, initial N ----------------------------------------------------------------------

  int requestN() {
    expect(REQUEST_N);
    return u32(HEADER);
  }

  int initialRequestN() {
    if (type() != REQUEST_STREAM && type() != REQUEST_CHANNEL) {
      throw new AssertionError("no initial request N in " + this);
    }
    return u32(HEADER);
  }

  // ---- KEEPALIVE / LEASE -----------------------------------------------------------------------

  long keepAlivePosition() {
    expect(KEEPALIVE);
    return ((long) u32(HEADER) << 32) | (u32(HEADER + 4) & 0xFFFFFFFFL);
  }

  byte[] keepAliveData() {
    expect(KEEPALIVE);
    return Arrays.copyOfRange(bytes, HEADER + 8, bytes.length);
  }

  int leaseTtl() {
    expect(LEASE);
    return u32(HEADER);
  }

  int leaseRequests() {
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
  byte[] metadata() {
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

  byte[] data() {
    int at = payloadStart();
    if (type() == METADATA_PUSH) {
      return new byte[0];
    }
    if (has(M)) {
      at += 3 + u24(at);
    }
    return Arrays.copyOfRange(bytes, at, bytes.length);
  }

  String dataUtf8() {
    return new String(data(), StandardCharsets.UTF_8);
  }

  // ---- SETUP ------------------------------------------------------------------------------------

  int setupMajor() {
    expect(SETUP);
    return u16(HEADER);
  }

  int setupMinor() {
    expect(SETUP);
    return u16(HEADER + 2);
  }

  int setupKeepAlive() {
    expect(SETUP);
    return u32(HEADER + 4);
  }

  int setupLifetime() {
    expect(SETUP);
    return u32(HEADER + 8);
  }

  /** The MIME types right after the lifetime (and the resume token if R is set). */
  String setupMetadataMime() {
    expect(SETUP);
    int at = HEADER + 12 + (has(SETUP_R) ? 2 + u16(HEADER + 12) : 0);
    return new String(bytes, at + 1, u8(at), StandardCharsets.US_ASCII);
  }

  // ---- raw numbers -------------------------------------------------------------------------------

  int u8(int at) {
    return bytes[at] & 0xFF;
  }

  int u16(int at) {
    return (u8(at) << 8) | u8(at + 1);
  }

  int u24(int at) {
    return (u8(at) << 16) | (u8(at + 1) << 8) | u8(at + 2);
  }

  int u32(int at) {
    return (u16(at) << 16) | u16(at + 2);
  }

  private void expect(int type) {
    if (type() != type) {
      throw new AssertionError("expected a " + name(type) + " frame, got " + this);
    }
  }

  static String name(int type) {
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
