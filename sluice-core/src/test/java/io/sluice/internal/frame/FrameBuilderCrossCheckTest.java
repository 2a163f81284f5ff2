package io.sluice.internal.frame;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.sluice.test.FrameBuilder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Cross-checks sluice-core's codecs against io.sluice.test.FrameBuilder, a second encoder written
 * byte by byte from the spec: frames it builds validate and decode with core's readers, and core's
 * writers produce the same bytes for the same inputs.
 */
class FrameBuilderCrossCheckTest extends FrameTestBase {

  private ByteBuf build(FrameBuilder.Builder<?> builder) {
    return track(builder.build(ALLOC));
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void setup() {
    ByteBuf f =
        build(
            FrameBuilder.setup()
                .keepAlive(1_500)
                .lifetime(60_000)
                .lease(true)
                .resumeToken(ascii("token"))
                .metadataMime("message/x.rsocket.composite-metadata.v0")
                .dataMime("application/json")
                .metadata("md")
                .data("{}"));
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(Frames.type(f)).isEqualTo(FrameType.SETUP);
    assertThat(Setup.majorVersion(f)).isEqualTo(1);
    assertThat(Setup.minorVersion(f)).isZero();
    assertThat(Setup.keepAliveInterval(f)).isEqualTo(1_500);
    assertThat(Setup.maxLifetime(f)).isEqualTo(60_000);
    assertThat(Setup.leaseRequested(f)).isTrue();
    assertThat(str(Setup.resumeToken(f))).isEqualTo("token");
    assertThat(Setup.metadataMimeType(f)).isEqualTo("message/x.rsocket.composite-metadata.v0");
    assertThat(Setup.dataMimeType(f)).isEqualTo("application/json");
    assertThat(str(Frames.metadata(f))).isEqualTo("md");
    assertThat(str(Frames.data(f))).isEqualTo("{}");

    ByteBuf core = out();
    Setup.write(
        core,
        true,
        1_500,
        60_000,
        utf8("token"),
        "message/x.rsocket.composite-metadata.v0",
        "application/json",
        utf8("md"),
        utf8("{}"));
    assertThat(hex(core)).isEqualTo(hex(f));
  }

  @Test
  void setupDefaultsWithoutOptions() {
    ByteBuf f = build(FrameBuilder.setup());
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(Setup.resumeRequested(f)).isFalse();
    assertThat(Setup.leaseRequested(f)).isFalse();
    assertThat(Setup.metadataMimeType(f)).isEqualTo(FrameBuilder.DEFAULT_MIME);
    assertThat(Frames.metadata(f)).isNull();
    assertThat(Frames.data(f).readableBytes()).isZero();

    ByteBuf core = out();
    Setup.write(
        core,
        false,
        20_000,
        90_000,
        null,
        FrameBuilder.DEFAULT_MIME,
        FrameBuilder.DEFAULT_MIME,
        null,
        null);
    assertThat(hex(core)).isEqualTo(hex(f));
  }

  @Test
  void lease() {
    ByteBuf f = build(FrameBuilder.lease(5_000, 12).metadata("lm"));
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(Frames.type(f)).isEqualTo(FrameType.LEASE);
    assertThat(Frames.leaseTtl(f)).isEqualTo(5_000);
    assertThat(Frames.leaseRequests(f)).isEqualTo(12);
    assertThat(str(Frames.metadata(f))).isEqualTo("lm");

    ByteBuf core = out();
    Frames.writeLease(core, 5_000, 12, utf8("lm"));
    assertThat(hex(core)).isEqualTo(hex(f));
  }

  @Test
  void keepAlive() {
    ByteBuf f = build(FrameBuilder.keepAlive(true, 77, ascii("data")));
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(Frames.type(f)).isEqualTo(FrameType.KEEPALIVE);
    assertThat(Frames.hasFlag(f, Frames.FLAG_KEEPALIVE_RESPOND)).isTrue();
    assertThat(Frames.keepAliveLastPosition(f)).isEqualTo(77);
    assertThat(str(Frames.keepAliveData(f))).isEqualTo("data");

    ByteBuf core = out();
    Frames.writeKeepAlive(core, true, 77, utf8("data"));
    assertThat(hex(core)).isEqualTo(hex(f));
  }

  @Test
  void requestFrames() {
    check(
        FrameBuilder.requestResponse(1).data("d"), FrameType.REQUEST_RESPONSE, 1, 0, -1, null, "d");
    check(
        FrameBuilder.requestFnf(3).metadata("m").data("d"),
        FrameType.REQUEST_FNF,
        3,
        Frames.FLAG_METADATA,
        -1,
        "m",
        "d");
    check(
        FrameBuilder.requestStream(5, 100).metadata(new byte[0]).follows(true),
        FrameType.REQUEST_STREAM,
        5,
        Frames.FLAG_METADATA | Frames.FLAG_FOLLOWS,
        100,
        "",
        "");
    check(
        FrameBuilder.requestChannel(7, Integer.MAX_VALUE, true).data("first"),
        FrameType.REQUEST_CHANNEL,
        7,
        Frames.FLAG_COMPLETE,
        Integer.MAX_VALUE,
        null,
        "first");
  }

  @Test
  void payloadFrames() {
    check(
        FrameBuilder.payload(2, true, true).data("x"),
        FrameType.PAYLOAD,
        2,
        Frames.FLAG_NEXT | Frames.FLAG_COMPLETE,
        -1,
        null,
        "x");
    check(
        FrameBuilder.payload(2, false, true),
        FrameType.PAYLOAD,
        2,
        Frames.FLAG_COMPLETE,
        -1,
        null,
        "");
    check(
        FrameBuilder.payload(4).next(true).follows(true).metadata("m".repeat(300)).data("d"),
        FrameType.PAYLOAD,
        4,
        Frames.FLAG_METADATA | Frames.FLAG_FOLLOWS | Frames.FLAG_NEXT,
        -1,
        "m".repeat(300),
        "d");
  }

  /** Decodes a request/PAYLOAD frame built by FrameBuilder, then re-encodes it with core. */
  private void check(
      FrameBuilder.Builder<?> builder,
      int type,
      int streamId,
      int flags,
      int initialN,
      String metadata,
      String data) {
    ByteBuf f = build(builder);
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(Frames.type(f)).isEqualTo(type);
    assertThat(Frames.streamId(f)).isEqualTo(streamId);
    assertThat(Frames.flags(f)).isEqualTo(flags);
    if (initialN >= 0) {
      assertThat(Frames.initialRequestN(f)).isEqualTo(initialN);
    }
    assertThat(str(Frames.metadata(f))).isEqualTo(metadata);
    assertThat(str(Frames.data(f))).isEqualTo(data);

    ByteBuf core = out();
    Frames.writeRequestHeader(core, streamId, type, flags, initialN);
    Frames.writePayload(core, metadata == null ? null : utf8(metadata), utf8(data));
    assertThat(hex(core)).isEqualTo(hex(f));
  }

  @Test
  void requestNAndCancel() {
    ByteBuf n = build(FrameBuilder.requestN(9, 32));
    assertThat(FrameValidator.validate(n)).isNull();
    assertThat(Frames.type(n)).isEqualTo(FrameType.REQUEST_N);
    assertThat(Frames.requestN(n)).isEqualTo(32);
    ByteBuf coreN = out();
    Frames.writeRequestN(coreN, 9, 32);
    assertThat(hex(coreN)).isEqualTo(hex(n));

    ByteBuf c = build(FrameBuilder.cancel(11));
    assertThat(FrameValidator.validate(c)).isNull();
    assertThat(Frames.type(c)).isEqualTo(FrameType.CANCEL);
    assertThat(Frames.streamId(c)).isEqualTo(11);
    ByteBuf coreC = out();
    Frames.writeCancel(coreC, 11);
    assertThat(hex(coreC)).isEqualTo(hex(c));
  }

  @Test
  void error() {
    ByteBuf f = build(FrameBuilder.error(0, 0x003, "rejected ✗"));
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(Frames.type(f)).isEqualTo(FrameType.ERROR);
    assertThat(Frames.errorCode(f)).isEqualTo(0x003);
    assertThat(Frames.errorMessage(f)).isEqualTo("rejected ✗");
    ByteBuf core = out();
    Frames.writeError(core, 0, 0x003, "rejected ✗");
    assertThat(hex(core)).isEqualTo(hex(f));
  }

  @Test
  void metadataPush() {
    ByteBuf f = build(FrameBuilder.metadataPush("push"));
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(Frames.type(f)).isEqualTo(FrameType.METADATA_PUSH);
    assertThat(str(Frames.metadata(f))).isEqualTo("push");
    ByteBuf core = out();
    Frames.writeMetadataPush(core, utf8("push"));
    assertThat(hex(core)).isEqualTo(hex(f));
  }

  @Test
  void resumeAndResumeOk() {
    ByteBuf f = build(FrameBuilder.resume(ascii("tok"), 100, 50));
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(Frames.type(f)).isEqualTo(FrameType.RESUME);
    assertThat(str(Frames.resumeToken(f))).isEqualTo("tok");
    assertThat(Frames.resumeLastReceivedServerPosition(f)).isEqualTo(100);
    assertThat(Frames.resumeFirstAvailableClientPosition(f)).isEqualTo(50);
    ByteBuf core = out();
    Frames.writeResume(core, utf8("tok"), 100, 50);
    assertThat(hex(core)).isEqualTo(hex(f));

    ByteBuf ok = build(FrameBuilder.resumeOk(Long.MAX_VALUE));
    assertThat(FrameValidator.validate(ok)).isNull();
    assertThat(Frames.resumeOkLastReceivedClientPosition(ok)).isEqualTo(Long.MAX_VALUE);
    ByteBuf coreOk = out();
    Frames.writeResumeOk(coreOk, Long.MAX_VALUE);
    assertThat(hex(coreOk)).isEqualTo(hex(ok));
  }

  @Test
  void ext() {
    ByteBuf f = build(FrameBuilder.ext(1, 0x1234).ignore(true).metadata("m").data("d"));
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(Frames.type(f)).isEqualTo(FrameType.EXT);
    assertThat(Frames.hasFlag(f, Frames.FLAG_IGNORE)).isTrue();
    assertThat(Frames.extendedType(f)).isEqualTo(0x1234);
    assertThat(str(Frames.metadata(f))).isEqualTo("m");
    assertThat(str(Frames.data(f))).isEqualTo("d");
    ByteBuf core = out();
    Frames.writeExt(core, 1, 0x1234, true, utf8("m"), utf8("d"));
    assertThat(hex(core)).isEqualTo(hex(f));
  }

  @Test
  void lengthPrefixedFrameSplitsBackIntoTheFrame() {
    ByteBuf onWire =
        track(FrameBuilder.payload(1, true, false).data("abc").buildLengthPrefixed(ALLOC));
    int length = Frames.getU24(onWire, onWire.readerIndex());
    assertThat(length).isEqualTo(onWire.readableBytes() - 3).isEqualTo(9);
    ByteBuf frame = onWire.slice(onWire.readerIndex() + 3, length);
    assertThat(FrameValidator.validate(frame)).isNull();
    assertThat(str(Frames.data(frame))).isEqualTo("abc");
  }

  @Test
  void streamIdTopBitIsIgnoredOnReceive() {
    ByteBuf f = build(FrameBuilder.requestN(1, 1).streamIdRaw(0x80000001));
    assertThat(Frames.streamId(f)).isEqualTo(1);
  }

  @Test
  void undefinedFlagBitsAreIgnored() {
    // PAYLOAD with N plus the I bit set: still a well-formed PAYLOAD
    ByteBuf f = build(FrameBuilder.payload(1, true, false).addFlags(Frames.FLAG_IGNORE).data("d"));
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(str(Frames.data(f))).isEqualTo("d");
    // KEEPALIVE with the (for it) meaningless C bit: position and data still read correctly
    ByteBuf k = build(FrameBuilder.keepAlive(false, 5).addFlags(0x40).data("x"));
    assertThat(FrameValidator.validate(k)).isNull();
    assertThat(Frames.keepAliveLastPosition(k)).isEqualTo(5);
    assertThat(str(Frames.keepAliveData(k))).isEqualTo("x");
  }
}
