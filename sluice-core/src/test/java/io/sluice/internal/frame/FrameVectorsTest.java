package io.sluice.internal.frame;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

/**
 * Byte-exact vectors written by hand from the RSocket 1.0 spec (Protocol.md, "Frame Header Format"
 * and each frame's layout). The header's second field is {@code type << 10 | flags}; flag bits: I
 * 0x200, M 0x100, F/R 0x80, C/L 0x40, N 0x20. ASCII/UTF-8 bytes are spelled out in the comments.
 * Each vector is checked in both directions: sluice-core's writer produces exactly these bytes, and
 * its readers decode these bytes to the original values.
 */
class FrameVectorsTest extends FrameTestBase {

  // ---- SETUP (0x01 << 10 = 0x0400) ----------------------------------------------------------

  // "a/b" = 61 2f 62, "c/d" = 63 2f 64, "hi" = 68 69; 20000 = 0x4e20, 90000 = 0x15f90
  private static final String SETUP_PLAIN =
      "00000000 0400 0001 0000 00004e20 00015f90 03 612f62 03 632f64 6869";

  // flags M|R|L = 0x100|0x080|0x040 = 0x1c0; 1000 = 0x3e8, 5000 = 0x1388; token "tk" = 74 6b,
  // metadata "md" = 6d 64 behind u24 length 2, data "x" = 78
  private static final String SETUP_ALL =
      "00000000 05c0 0001 0000 000003e8 00001388 0002 746b 03 612f62 03 632f64 000002 6d64 78";

  @Test
  void setupPlain() {
    ByteBuf out = out();
    Setup.write(out, false, 20_000, 90_000, null, "a/b", "c/d", null, utf8("hi"));
    assertHex(out, SETUP_PLAIN);

    ByteBuf f = fromHex(SETUP_PLAIN);
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(f.getUnsignedShort(4)).isEqualTo(0x0400);
    assertThat(Frames.type(f)).isEqualTo(FrameType.SETUP);
    assertThat(Frames.streamId(f)).isZero();
    assertThat(Frames.flags(f)).isZero();
    assertThat(Setup.majorVersion(f)).isEqualTo(1);
    assertThat(Setup.minorVersion(f)).isZero();
    assertThat(Setup.keepAliveInterval(f)).isEqualTo(20_000);
    assertThat(Setup.maxLifetime(f)).isEqualTo(90_000);
    assertThat(Setup.resumeRequested(f)).isFalse();
    assertThat(Setup.leaseRequested(f)).isFalse();
    assertThat(Setup.resumeToken(f)).isNull();
    assertThat(Setup.metadataMimeType(f)).isEqualTo("a/b");
    assertThat(Setup.dataMimeType(f)).isEqualTo("c/d");
    assertThat(Frames.metadata(f)).isNull();
    assertThat(str(Frames.data(f))).isEqualTo("hi");
  }

  @Test
  void setupWithLeaseResumeAndMetadata() {
    ByteBuf out = out();
    Setup.write(out, true, 1000, 5000, utf8("tk"), "a/b", "c/d", utf8("md"), utf8("x"));
    assertHex(out, SETUP_ALL);

    ByteBuf f = fromHex(SETUP_ALL);
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(Frames.flags(f)).isEqualTo(0x1c0);
    assertThat(Setup.leaseRequested(f)).isTrue();
    assertThat(Setup.resumeRequested(f)).isTrue();
    assertThat(Setup.keepAliveInterval(f)).isEqualTo(1000);
    assertThat(Setup.maxLifetime(f)).isEqualTo(5000);
    assertThat(str(Setup.resumeToken(f))).isEqualTo("tk");
    assertThat(Setup.metadataMimeType(f)).isEqualTo("a/b");
    assertThat(Setup.dataMimeType(f)).isEqualTo("c/d");
    assertThat(str(Frames.metadata(f))).isEqualTo("md");
    assertThat(str(Frames.data(f))).isEqualTo("x");
  }

  @Test
  void setupWithDefaultMimeTypes() {
    // "application/binary" is 18 = 0x12 bytes:
    // 61 70 70 6c 69 63 61 74 69 6f 6e 2f 62 69 6e 61 72 79
    String mime = "12 6170706c69636174696f6e2f62696e617279";
    ByteBuf out = out();
    Setup.write(
        out, false, 20_000, 90_000, null, "application/binary", "application/binary", null, null);
    assertHex(out, "00000000 0400 0001 0000 00004e20 00015f90" + mime + mime);
  }

  // ---- LEASE (0x02 << 10 = 0x0800) -----------------------------------------------------------

  @Test
  void lease() {
    // 30000 ms = 0x7530, 100 requests = 0x64
    ByteBuf out = out();
    Frames.writeLease(out, 30_000, 100, null);
    assertHex(out, "00000000 0800 00007530 00000064");

    ByteBuf f = fromHex("00000000 0800 00007530 00000064");
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(Frames.type(f)).isEqualTo(FrameType.LEASE);
    assertThat(Frames.leaseTtl(f)).isEqualTo(30_000);
    assertThat(Frames.leaseRequests(f)).isEqualTo(100);
    assertThat(Frames.metadata(f)).isNull();
    assertThat(Frames.data(f).readableBytes()).isZero();
  }

  @Test
  void leaseWithMetadataHasNoLengthField() {
    // M = 0x100 -> 0x0900; metadata "m" = 6d directly after the counts, no u24 length
    String vector = "00000000 0900 00007530 00000064 6d";
    ByteBuf out = out();
    Frames.writeLease(out, 30_000, 100, utf8("m"));
    assertHex(out, vector);

    ByteBuf f = fromHex(vector);
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(str(Frames.metadata(f))).isEqualTo("m");
    assertThat(Frames.data(f).readableBytes()).isZero();
  }

  // ---- KEEPALIVE (0x03 << 10 = 0x0c00; R = 0x80 -> 0x0c80) -----------------------------------

  @Test
  void keepAliveRespond() {
    // "ping" = 70 69 6e 67
    String vector = "00000000 0c80 0000000000000000 70696e67";
    ByteBuf out = out();
    Frames.writeKeepAlive(out, true, 0, utf8("ping"));
    assertHex(out, vector);

    ByteBuf f = fromHex(vector);
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(f.getUnsignedShort(4)).isEqualTo(0x0c80);
    assertThat(Frames.type(f)).isEqualTo(FrameType.KEEPALIVE);
    assertThat(Frames.hasFlag(f, Frames.FLAG_KEEPALIVE_RESPOND)).isTrue();
    assertThat(Frames.keepAliveLastPosition(f)).isZero();
    assertThat(str(Frames.keepAliveData(f))).isEqualTo("ping");
  }

  @Test
  void keepAliveNoRespondWithPosition() {
    String vector = "00000000 0c00 0102030405060708";
    ByteBuf out = out();
    Frames.writeKeepAlive(out, false, 0x0102030405060708L, null);
    assertHex(out, vector);

    ByteBuf f = fromHex(vector);
    assertThat(Frames.hasFlag(f, Frames.FLAG_KEEPALIVE_RESPOND)).isFalse();
    assertThat(Frames.keepAliveLastPosition(f)).isEqualTo(0x0102030405060708L);
    assertThat(Frames.keepAliveData(f).readableBytes()).isZero();
  }

  @Test
  void keepAlivePositionIsU63() {
    ByteBuf out = out();
    Frames.writeKeepAlive(out, false, -1L, null);
    assertHex(out, "00000000 0c00 7fffffffffffffff");
    assertThat(Frames.keepAliveLastPosition(fromHex("00000000 0c00 ffffffffffffffff")))
        .isEqualTo(Long.MAX_VALUE);
  }

  // ---- REQUEST_RESPONSE 0x1000, REQUEST_FNF 0x1400, REQUEST_STREAM 0x1800, CHANNEL 0x1c00 ----

  @Test
  void requestResponse() {
    ByteBuf out = out();
    Frames.writeRequestHeader(out, 1, FrameType.REQUEST_RESPONSE, 0, 0);
    Frames.writePayload(out, null, utf8("hi"));
    assertHex(out, "00000001 1000 6869");

    ByteBuf withMetadata = out();
    Frames.writeRequestHeader(withMetadata, 1, FrameType.REQUEST_RESPONSE, Frames.FLAG_METADATA, 0);
    Frames.writePayload(withMetadata, utf8("m"), utf8("hi"));
    assertHex(withMetadata, "00000001 1100 000001 6d 6869");

    ByteBuf f = fromHex("00000001 1100 000001 6d 6869");
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(Frames.type(f)).isEqualTo(FrameType.REQUEST_RESPONSE);
    assertThat(Frames.streamId(f)).isEqualTo(1);
    assertThat(str(Frames.metadata(f))).isEqualTo("m");
    assertThat(str(Frames.data(f))).isEqualTo("hi");
  }

  @Test
  void requestFnf() {
    ByteBuf out = out();
    Frames.writeRequestHeader(out, 3, FrameType.REQUEST_FNF, 0, 0);
    Frames.writePayload(out, null, utf8("x"));
    assertHex(out, "00000003 1400 78");

    ByteBuf f = fromHex("00000003 1400 78");
    assertThat(Frames.type(f)).isEqualTo(FrameType.REQUEST_FNF);
    assertThat(Frames.streamId(f)).isEqualTo(3);
    assertThat(Frames.metadata(f)).isNull();
    assertThat(str(Frames.data(f))).isEqualTo("x");
  }

  @Test
  void requestStream() {
    // M -> 0x1900; initial N 16 = 0x10; metadata "ab" = 61 62; data "c" = 63
    String vector = "00000005 1900 00000010 000002 6162 63";
    ByteBuf out = out();
    Frames.writeRequestHeader(out, 5, FrameType.REQUEST_STREAM, Frames.FLAG_METADATA, 16);
    Frames.writePayload(out, utf8("ab"), utf8("c"));
    assertHex(out, vector);

    ByteBuf f = fromHex(vector);
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(Frames.type(f)).isEqualTo(FrameType.REQUEST_STREAM);
    assertThat(Frames.initialRequestN(f)).isEqualTo(16);
    assertThat(str(Frames.metadata(f))).isEqualTo("ab");
    assertThat(str(Frames.data(f))).isEqualTo("c");
  }

  @Test
  void requestChannelComplete() {
    // C = 0x40 -> 0x1c40
    ByteBuf out = out();
    Frames.writeRequestHeader(out, 7, FrameType.REQUEST_CHANNEL, Frames.FLAG_COMPLETE, 1);
    assertHex(out, "00000007 1c40 00000001");

    ByteBuf f = fromHex("00000007 1c40 00000001");
    assertThat(Frames.type(f)).isEqualTo(FrameType.REQUEST_CHANNEL);
    assertThat(Frames.hasFlag(f, Frames.FLAG_COMPLETE)).isTrue();
    assertThat(Frames.initialRequestN(f)).isEqualTo(1);
    assertThat(Frames.data(f).readableBytes()).isZero();
  }

  @Test
  void requestChannelFollowsWithMetadata() {
    // M|F = 0x180 -> 0x1d80; N = 2^31-1
    ByteBuf out = out();
    Frames.writeRequestHeader(
        out,
        9,
        FrameType.REQUEST_CHANNEL,
        Frames.FLAG_METADATA | Frames.FLAG_FOLLOWS,
        Integer.MAX_VALUE);
    Frames.writePayload(out, utf8(""), null);
    assertHex(out, "00000009 1d80 7fffffff 000000");
    ByteBuf f = fromHex("00000009 1d80 7fffffff 000000");
    assertThat(Frames.initialRequestN(f)).isEqualTo(Integer.MAX_VALUE);
    assertThat(Frames.metadata(f).readableBytes()).isZero();
    assertThat(Frames.data(f).readableBytes()).isZero();
  }

  // ---- REQUEST_N (0x08 << 10 = 0x2000), CANCEL (0x2400) --------------------------------------

  @Test
  void requestN() {
    ByteBuf out = out();
    Frames.writeRequestN(out, 5, Integer.MAX_VALUE);
    assertHex(out, "00000005 2000 7fffffff");

    ByteBuf f = fromHex("00000005 2000 00000003");
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(f.getUnsignedShort(4)).isEqualTo(0x2000);
    assertThat(Frames.type(f)).isEqualTo(FrameType.REQUEST_N);
    assertThat(Frames.requestN(f)).isEqualTo(3);
    // u31: the reserved top bit is ignored on receive
    assertThat(Frames.requestN(fromHex("00000005 2000 80000003"))).isEqualTo(3);
  }

  @Test
  void cancel() {
    ByteBuf out = out();
    Frames.writeCancel(out, 9);
    assertHex(out, "00000009 2400");
    ByteBuf f = fromHex("00000009 2400");
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(Frames.type(f)).isEqualTo(FrameType.CANCEL);
    assertThat(Frames.streamId(f)).isEqualTo(9);
  }

  // ---- PAYLOAD (0x0a << 10 = 0x2800; N|C = 0x60 -> 0x2860) -----------------------------------

  @Test
  void payloadNextComplete() {
    // "ok" = 6f 6b
    ByteBuf out = out();
    Frames.writeRequestHeader(
        out, 1, FrameType.PAYLOAD, Frames.FLAG_NEXT | Frames.FLAG_COMPLETE, 0);
    Frames.writePayload(out, null, utf8("ok"));
    assertHex(out, "00000001 2860 6f6b");

    ByteBuf f = fromHex("00000001 2860 6f6b");
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(f.getUnsignedShort(4)).isEqualTo(0x2860);
    assertThat(Frames.type(f)).isEqualTo(FrameType.PAYLOAD);
    assertThat(Frames.hasFlag(f, Frames.FLAG_NEXT)).isTrue();
    assertThat(Frames.hasFlag(f, Frames.FLAG_COMPLETE)).isTrue();
    assertThat(Frames.hasFlag(f, Frames.FLAG_FOLLOWS)).isFalse();
    assertThat(Frames.metadata(f)).isNull();
    assertThat(str(Frames.data(f))).isEqualTo("ok");
  }

  @Test
  void payloadFlagCombinations() {
    assertThat(header(FrameType.PAYLOAD, Frames.FLAG_NEXT)).isEqualTo("2820");
    assertThat(header(FrameType.PAYLOAD, Frames.FLAG_COMPLETE)).isEqualTo("2840");
    assertThat(
            header(
                FrameType.PAYLOAD, Frames.FLAG_METADATA | Frames.FLAG_FOLLOWS | Frames.FLAG_NEXT))
        .isEqualTo("29a0");
    assertThat(header(FrameType.REQUEST_STREAM, Frames.FLAG_FOLLOWS)).isEqualTo("1880");
    assertThat(header(FrameType.EXT, Frames.FLAG_IGNORE | Frames.FLAG_METADATA)).isEqualTo("ff00");
    // only 10 flag bits: extra bits never reach the type
    assertThat(header(FrameType.CANCEL, 0xFFFF)).isEqualTo("27ff");
  }

  private String header(int type, int flags) {
    ByteBuf out = out();
    Frames.writeHeader(out, 0, type, flags);
    return hex(out).substring(8);
  }

  // ---- ERROR (0x0b << 10 = 0x2c00) -----------------------------------------------------------

  @Test
  void error() {
    // INVALID_SETUP = 0x001, "bad" = 62 61 64
    ByteBuf out = out();
    Frames.writeError(out, 0, 0x001, "bad");
    assertHex(out, "00000000 2c00 00000001 626164");

    // APPLICATION_ERROR = 0x201, "é" = c3 a9 (UTF-8, no terminator)
    ByteBuf app = out();
    Frames.writeError(app, 3, 0x201, "é");
    assertHex(app, "00000003 2c00 00000201 c3a9");

    ByteBuf f = fromHex("00000003 2c00 00000201 c3a9");
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(Frames.type(f)).isEqualTo(FrameType.ERROR);
    assertThat(Frames.errorCode(f)).isEqualTo(0x201);
    assertThat(Frames.errorMessage(f)).isEqualTo("é");

    ByteBuf noMessage = out();
    Frames.writeError(noMessage, 1, 0xFFFFFFFE, null);
    assertHex(noMessage, "00000001 2c00 fffffffe");
    assertThat(Frames.errorCode(noMessage)).isEqualTo(0xFFFFFFFE);
    assertThat(Frames.errorMessage(noMessage)).isEmpty();
  }

  // ---- METADATA_PUSH (0x0c << 10 = 0x3000; M -> 0x3100) --------------------------------------

  @Test
  void metadataPush() {
    ByteBuf out = out();
    Frames.writeMetadataPush(out, utf8("md"));
    assertHex(out, "00000000 3100 6d64");

    ByteBuf f = fromHex("00000000 3100 6d64");
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(f.getUnsignedShort(4)).isEqualTo(0x3100);
    assertThat(Frames.type(f)).isEqualTo(FrameType.METADATA_PUSH);
    assertThat(str(Frames.metadata(f))).isEqualTo("md");
    assertThat(Frames.data(f).readableBytes()).isZero();
  }

  // ---- RESUME (0x0d << 10 = 0x3400), RESUME_OK (0x3800) --------------------------------------

  @Test
  void resume() {
    String vector = "00000000 3400 0001 0000 0002 746b 0000000000000010 0000000000000020";
    ByteBuf out = out();
    Frames.writeResume(out, utf8("tk"), 0x10, 0x20);
    assertHex(out, vector);

    ByteBuf f = fromHex(vector);
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(Frames.type(f)).isEqualTo(FrameType.RESUME);
    assertThat(Frames.resumeMajor(f)).isEqualTo(1);
    assertThat(Frames.resumeMinor(f)).isZero();
    assertThat(str(Frames.resumeToken(f))).isEqualTo("tk");
    assertThat(Frames.resumeLastReceivedServerPosition(f)).isEqualTo(0x10);
    assertThat(Frames.resumeFirstAvailableClientPosition(f)).isEqualTo(0x20);
  }

  @Test
  void resumeOk() {
    ByteBuf out = out();
    Frames.writeResumeOk(out, 0x1234);
    assertHex(out, "00000000 3800 0000000000001234");
    ByteBuf f = fromHex("00000000 3800 0000000000001234");
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(Frames.type(f)).isEqualTo(FrameType.RESUME_OK);
    assertThat(Frames.resumeOkLastReceivedClientPosition(f)).isEqualTo(0x1234);
  }

  // ---- EXT (0x3f << 10 = 0xfc00; I -> 0xfe00) ------------------------------------------------

  @Test
  void ext() {
    ByteBuf out = out();
    Frames.writeExt(out, 1, Integer.MAX_VALUE, true, null, utf8("d"));
    assertHex(out, "00000001 fe00 7fffffff 64");

    ByteBuf withMetadata = out();
    Frames.writeExt(withMetadata, 2, 5, false, utf8("m"), utf8("d"));
    assertHex(withMetadata, "00000002 fd00 00000005 000001 6d 64");

    ByteBuf f = fromHex("00000002 fd00 00000005 000001 6d 64");
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(Frames.type(f)).isEqualTo(FrameType.EXT);
    assertThat(Frames.extendedType(f)).isEqualTo(5);
    assertThat(Frames.hasFlag(f, Frames.FLAG_IGNORE)).isFalse();
    assertThat(str(Frames.metadata(f))).isEqualTo("m");
    assertThat(str(Frames.data(f))).isEqualTo("d");
  }

  // ---- stream id ------------------------------------------------------------------------------

  @Test
  void streamIdTopBitClearedOnSendIgnoredOnReceive() {
    ByteBuf out = out();
    Frames.writeCancel(out, 0x80000003);
    assertHex(out, "00000003 2400");
    assertThat(Frames.streamId(fromHex("80000003 2400"))).isEqualTo(3);
    assertThat(Frames.streamId(fromHex("7fffffff 2400"))).isEqualTo(Integer.MAX_VALUE);
  }

  // ---- u24 length prefix ----------------------------------------------------------------------

  @Test
  void u24() {
    ByteBuf out = out();
    Frames.writeU24(out, 0xABCDEF);
    Frames.writeU24(out, 6);
    assertHex(out, "abcdef 000006");
    assertThat(Frames.getU24(out, 0)).isEqualTo(0xABCDEF);
    assertThat(Frames.getU24(out, 3)).isEqualTo(6);
    assertThat(Frames.MAX_FRAME_SIZE).isEqualTo(16_777_215);
  }
}
