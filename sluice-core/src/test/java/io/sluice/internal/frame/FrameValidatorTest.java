package io.sluice.internal.frame;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.test.FrameBuilder;
import io.sluice.test.Hex;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * FrameValidator rejects malformed frames with a description, accepts frames at exactly their
 * minimum sizes, reports unknown types as {@link FrameValidator#UNKNOWN_TYPE}, and never throws.
 * When it accepts a frame, the flyweight readers for that frame's type must not throw either
 * (checked on random and mutated input, with buffers whose capacity ends at the frame so an
 * over-read cannot silently hit stale bytes).
 */
class FrameValidatorTest extends FrameTestBase {

  private static final int[] KNOWN_TYPES = {
    FrameType.SETUP,
    FrameType.LEASE,
    FrameType.KEEPALIVE,
    FrameType.REQUEST_RESPONSE,
    FrameType.REQUEST_FNF,
    FrameType.REQUEST_STREAM,
    FrameType.REQUEST_CHANNEL,
    FrameType.REQUEST_N,
    FrameType.CANCEL,
    FrameType.PAYLOAD,
    FrameType.ERROR,
    FrameType.METADATA_PUSH,
    FrameType.RESUME,
    FrameType.RESUME_OK,
    FrameType.EXT
  };

  private String validate(FrameBuilder.Builder<?> builder) {
    return FrameValidator.validate(track(builder.build(ALLOC)));
  }

  private void assertRejected(FrameBuilder.Builder<?> builder) {
    String problem = validate(builder);
    assertThat(problem)
        .as("validate(%s)", builder.hex())
        .isNotNull()
        .isNotEqualTo(FrameValidator.UNKNOWN_TYPE);
  }

  private void assertAccepted(FrameBuilder.Builder<?> builder) {
    assertThat(validate(builder)).as("validate(%s)", builder.hex()).isNull();
  }

  // ---- truncated header ----------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 3, 4, 5})
  void truncatedHeader(int size) {
    ByteBuf f = bytes(Hex.decode("00000001 2860".replace(" ", "")).clone());
    f.writerIndex(size);
    String problem = FrameValidator.validate(f);
    assertThat(problem).isNotNull().isNotEqualTo(FrameValidator.UNKNOWN_TYPE).contains("header");
  }

  // ---- metadata length
  // ---------------------------------------------------------------------------

  @Test
  void metadataLengthPastTheEnd() {
    assertRejected(FrameBuilder.payload(1, true, false).metadata("ab").declaredMetadataLength(3));
    assertRejected(
        FrameBuilder.payload(1, true, false).metadata("").declaredMetadataLength(0xFFFFFF));
    assertRejected(FrameBuilder.requestResponse(1).metadata("m").declaredMetadataLength(2));
    assertRejected(FrameBuilder.requestFnf(1).metadata("m").declaredMetadataLength(2));
    assertRejected(FrameBuilder.requestStream(1, 1).metadata("m").declaredMetadataLength(2));
    assertRejected(FrameBuilder.requestChannel(1, 1).metadata("m").declaredMetadataLength(2));
    assertRejected(FrameBuilder.ext(1, 1).metadata("m").declaredMetadataLength(2));
    assertRejected(FrameBuilder.setup().metadata("m").declaredMetadataLength(2));
    // the message names the problem
    assertThat(
            validate(FrameBuilder.payload(1, true, false).metadata("ab").declaredMetadataLength(3)))
        .contains("PAYLOAD")
        .contains("3 bytes of metadata");
  }

  @Test
  void metadataFlagWithoutRoomForTheLength() {
    // M set, but only 0, 1 or 2 of the 3 length bytes present
    for (int cut = 6; cut < 9; cut++) {
      assertRejected(FrameBuilder.payload(1, true, false).metadata("").truncate(cut));
      assertRejected(FrameBuilder.requestResponse(1).metadata("").truncate(cut));
    }
    assertRejected(FrameBuilder.requestStream(1, 1).metadata("").truncate(12));
    assertRejected(FrameBuilder.ext(1, 1).metadata("").truncate(12));
  }

  @Test
  void metadataThatExactlyFillsTheFrame() {
    assertAccepted(FrameBuilder.payload(1, true, false).metadata("abc"));
    assertAccepted(FrameBuilder.payload(1, true, false).metadata(""));
    // data is whatever follows the metadata: a length shorter than the rest is fine
    assertAccepted(FrameBuilder.payload(1, true, false).metadata("abc").declaredMetadataLength(1));
  }

  @Test
  void metadataLengthIgnoredWithoutTheMFlag() {
    // bytes that look like a huge metadata length are just data when M is clear
    ByteBuf f =
        track(FrameBuilder.payload(1, true, false).data(new byte[] {-1, -1, -1}).build(ALLOC));
    assertThat(FrameValidator.validate(f)).isNull();
    assertThat(Frames.data(f).readableBytes()).isEqualTo(3);
  }

  // ---- SETUP ------------------------------------------------------------------------------------

  @Test
  void setupTooShort() {
    // smallest SETUP: header 6 + version 4 + keepalive 4 + lifetime 4 + two MIME lengths = 20
    assertAccepted(FrameBuilder.setup().metadataMime("").dataMime(""));
    for (int cut = 6; cut < 20; cut++) {
      assertRejected(FrameBuilder.setup().metadataMime("").dataMime("").truncate(cut));
    }
  }

  @Test
  void setupMimePastTheEnd() {
    assertRejected(FrameBuilder.setup().metadataMime("").dataMime("").declaredDataMimeLength(1));
    assertRejected(FrameBuilder.setup().metadataMime("").dataMime("ab").declaredDataMimeLength(3));
    assertRejected(FrameBuilder.setup().metadataMime("abc").declaredMetadataMimeLength(200));
    assertRejected(
        FrameBuilder.setup().metadataMime("abc").dataMime("").declaredMetadataMimeLength(4));
    // MIME strings cut off by the end of the frame
    assertRejected(FrameBuilder.setup().metadataMime("text/plain").truncate(22));
    assertRejected(FrameBuilder.setup().metadataMime("a").dataMime("text/plain").truncate(24));
  }

  @Test
  void setupResumeTokenPastTheEnd() {
    assertAccepted(FrameBuilder.setup().resumeToken("tok".getBytes(StandardCharsets.US_ASCII)));
    assertAccepted(FrameBuilder.setup().resumeToken(new byte[0]).metadataMime("").dataMime(""));
    assertRejected(FrameBuilder.setup().resumeToken(new byte[] {1, 2}).declaredTokenLength(1_000));
    assertRejected(FrameBuilder.setup().resumeToken(new byte[] {1, 2}).declaredTokenLength(0xFFFF));
    // R set but no token written: the MIME bytes are read as a token length
    assertRejected(
        FrameBuilder.setup().metadataMime("").dataMime("").addFlags(Frames.FLAG_SETUP_RESUME));
  }

  // ---- RESUME
  // -------------------------------------------------------------------------------------

  @Test
  void resumeTokenPastTheEnd() {
    byte[] token = {1, 2, 3};
    assertAccepted(FrameBuilder.resume(token, 1, 2));
    assertAccepted(FrameBuilder.resume(new byte[0], 1, 2)); // exactly 28 bytes
    assertRejected(FrameBuilder.resume(token, 1, 2).declaredTokenLength(4));
    assertRejected(FrameBuilder.resume(token, 1, 2).declaredTokenLength(0xFFFF));
    for (int cut = 6; cut < 28 + token.length; cut++) {
      assertRejected(FrameBuilder.resume(token, 1, 2).truncate(cut));
    }
  }

  // ---- fixed-size frames ---------------------------------------------------------------------

  @Test
  void shortFixedFrames() {
    assertRejected(FrameBuilder.requestN(1, 1).truncate(9));
    assertRejected(FrameBuilder.requestN(1, 1).truncate(6));
    assertRejected(FrameBuilder.error(1, 0x201, "").truncate(9));
    assertRejected(FrameBuilder.error(0, 0x001, "").truncate(6));
    assertRejected(FrameBuilder.keepAlive(true, 0).truncate(13));
    assertRejected(FrameBuilder.keepAlive(false, 0).truncate(6));
    assertRejected(FrameBuilder.lease(1, 1).truncate(13));
    assertRejected(FrameBuilder.lease(1, 1).truncate(10));
    assertRejected(FrameBuilder.resumeOk(1).truncate(13));
    assertRejected(FrameBuilder.requestStream(1, 1).truncate(9));
    assertRejected(FrameBuilder.requestChannel(1, 1).truncate(9));
    assertRejected(FrameBuilder.ext(1, 1).truncate(9));
    assertThat(validate(FrameBuilder.requestN(1, 1).truncate(9)))
        .isEqualTo("REQUEST_N frame of 9 bytes is shorter than 10");
  }

  @Test
  void exactMinimumSizesAreAccepted() {
    assertAccepted(FrameBuilder.cancel(1)); // 6
    assertAccepted(FrameBuilder.requestResponse(1)); // 6
    assertAccepted(FrameBuilder.requestFnf(1)); // 6
    assertAccepted(FrameBuilder.payload(1, false, true)); // 6
    assertAccepted(FrameBuilder.metadataPush(new byte[0])); // 6
    assertAccepted(FrameBuilder.requestN(1, 1)); // 10
    assertAccepted(FrameBuilder.error(1, 0x201, "")); // 10
    assertAccepted(FrameBuilder.requestStream(1, 1)); // 10
    assertAccepted(FrameBuilder.requestChannel(1, 1)); // 10
    assertAccepted(FrameBuilder.ext(1, 1)); // 10
    assertAccepted(FrameBuilder.keepAlive(false, 0)); // 14
    assertAccepted(FrameBuilder.lease(0, 0)); // 14
    assertAccepted(FrameBuilder.resumeOk(0)); // 14
    assertThat(FrameBuilder.keepAlive(false, 0).toBytes()).hasSize(14);
    assertThat(FrameBuilder.resume(new byte[0], 0, 0).toBytes()).hasSize(28);
  }

  // ---- unknown types --------------------------------------------------------------------------

  @Test
  void unknownTypes() {
    Set<Integer> known = new TreeSet<>();
    for (int t : KNOWN_TYPES) {
      known.add(t);
    }
    for (int type = 0; type < 64; type++) {
      if (known.contains(type)) {
        continue;
      }
      for (int flags :
          new int[] {0, Frames.FLAG_IGNORE, Frames.FLAG_IGNORE | Frames.FLAG_METADATA}) {
        ByteBuf f = track(FrameBuilder.raw(1, type, flags, new byte[] {1, 2, 3, 4}).build(ALLOC));
        assertThat(FrameValidator.validate(f))
            .as("type 0x%x", type)
            .isSameAs(FrameValidator.UNKNOWN_TYPE);
        assertThat(Frames.describe(f)).startsWith("UNKNOWN(0x" + Integer.toHexString(type) + ")");
      }
    }
    // RESERVED (0x00) is not a frame type
    assertThat(FrameValidator.validate(fromHex("00000000 0000")))
        .isSameAs(FrameValidator.UNKNOWN_TYPE);
  }

  // ---- never throws ----------------------------------------------------------------------------

  /** 20,000 random byte arrays of 0..64 bytes (half with a known type forced into the header). */
  @Test
  void randomGarbageNeverThrows() {
    Random random = new Random(0x511CEL);
    Stats stats = new Stats();
    for (int i = 0; i < 20_000; i++) {
      byte[] frame = new byte[random.nextInt(65)];
      random.nextBytes(frame);
      if (frame.length >= Frames.HEADER_SIZE && random.nextBoolean()) {
        int type = KNOWN_TYPES[random.nextInt(KNOWN_TYPES.length)];
        frame[4] = (byte) ((type << 2) | (frame[4] & 0x03));
        if (frame.length >= 13 && random.nextBoolean()) {
          // small lengths where length fields live, so more frames get past validation
          for (int at = 6; at < 13; at++) {
            frame[at] = (byte) random.nextInt(3);
          }
        }
      }
      checkNeverThrows(frame, random.nextInt(4), stats);
    }
    assertThat(stats.accepted).as("the fuzz must reach the readers").isGreaterThan(1_000);
  }

  /** 20,000 valid frames of every type, truncated, extended or with one byte changed. */
  @Test
  void mutatedFramesNeverThrow() {
    Random random = new Random(42);
    Stats stats = new Stats();
    List<Supplier<FrameBuilder.Builder<?>>> valid = validFrames(random);
    for (int i = 0; i < 20_000; i++) {
      byte[] frame = valid.get(random.nextInt(valid.size())).get().toBytes();
      switch (random.nextInt(4)) {
        case 0:
          frame = java.util.Arrays.copyOf(frame, random.nextInt(frame.length + 1));
          break;
        case 1:
          frame[random.nextInt(frame.length)] = (byte) random.nextInt(256);
          break;
        case 2:
          frame[Frames.HEADER_SIZE - 2 + random.nextInt(2)] ^= (byte) (1 << random.nextInt(8));
          break;
        default:
          frame = java.util.Arrays.copyOf(frame, frame.length + random.nextInt(4));
          break;
      }
      checkNeverThrows(frame, random.nextInt(4), stats);
    }
    assertThat(stats.acceptedTypes)
        .as("every type reached the readers")
        .hasSize(KNOWN_TYPES.length);
  }

  private static List<Supplier<FrameBuilder.Builder<?>>> validFrames(Random random) {
    List<Supplier<FrameBuilder.Builder<?>>> frames = new ArrayList<>();
    frames.add(
        () ->
            FrameBuilder.setup()
                .lease(random.nextBoolean())
                .resumeToken(random.nextBoolean() ? randomBytes(random, 4) : null)
                .metadataMime("a/" + "b".repeat(random.nextInt(4)))
                .dataMime("c")
                .metadata(random.nextBoolean() ? randomBytes(random, 5) : null)
                .data(randomBytes(random, 5)));
    frames.add(
        () ->
            FrameBuilder.lease(random.nextInt(), random.nextInt())
                .metadata(randomBytes(random, 3)));
    frames.add(
        () ->
            FrameBuilder.keepAlive(
                random.nextBoolean(), random.nextLong(), randomBytes(random, 4)));
    frames.add(
        () ->
            FrameBuilder.requestResponse(1)
                .metadata(randomBytes(random, 3))
                .data(randomBytes(random, 3)));
    frames.add(
        () ->
            FrameBuilder.requestFnf(1)
                .metadata(randomBytes(random, 3))
                .data(randomBytes(random, 3)));
    frames.add(
        () -> FrameBuilder.requestStream(1, random.nextInt()).metadata(randomBytes(random, 3)));
    frames.add(
        () -> FrameBuilder.requestChannel(1, 5, random.nextBoolean()).data(randomBytes(random, 3)));
    frames.add(() -> FrameBuilder.requestN(1, random.nextInt()));
    frames.add(() -> FrameBuilder.cancel(random.nextInt()));
    frames.add(
        () ->
            FrameBuilder.payload(1, random.nextBoolean(), random.nextBoolean())
                .metadata(randomBytes(random, 3))
                .data(randomBytes(random, 3)));
    frames.add(() -> FrameBuilder.error(1, random.nextInt(), "oops"));
    frames.add(() -> FrameBuilder.metadataPush(randomBytes(random, 4)));
    frames.add(
        () -> FrameBuilder.resume(randomBytes(random, 4), random.nextLong(), random.nextLong()));
    frames.add(() -> FrameBuilder.resumeOk(random.nextLong()));
    frames.add(
        () ->
            FrameBuilder.ext(1, random.nextInt())
                .ignore(random.nextBoolean())
                .metadata(randomBytes(random, 2))
                .data(randomBytes(random, 2)));
    return frames;
  }

  private static byte[] randomBytes(Random random, int maxLength) {
    byte[] b = new byte[random.nextInt(maxLength + 1)];
    random.nextBytes(b);
    return b;
  }

  private static final class Stats {
    int accepted;
    final Set<Integer> acceptedTypes = new TreeSet<>();
  }

  /**
   * Validates {@code frame} (preceded by {@code offset} junk bytes, reader index past them,
   * capacity ending at the frame) and, if it is accepted, runs every reader for its type.
   */
  private static void checkNeverThrows(byte[] frame, int offset, Stats stats) {
    byte[] array = new byte[offset + frame.length];
    System.arraycopy(frame, 0, array, offset, frame.length);
    ByteBuf buf = Unpooled.wrappedBuffer(array).setIndex(offset, array.length);
    try {
      String problem;
      try {
        problem = FrameValidator.validate(buf);
      } catch (RuntimeException e) {
        throw new AssertionError("validate threw on " + Hex.encode(frame), e);
      }
      if (problem == null) {
        stats.accepted++;
        stats.acceptedTypes.add(Frames.type(buf));
        try {
          readEverything(buf);
        } catch (RuntimeException e) {
          throw new AssertionError(
              "validate accepted " + Hex.encode(frame) + " but a reader threw", e);
        }
      } else if (frame.length < Frames.HEADER_SIZE) {
        assertThat(problem).isNotEqualTo(FrameValidator.UNKNOWN_TYPE);
      }
    } finally {
      buf.release();
    }
  }

  /** Calls every reader that applies to the frame's type and checks the pieces add up. */
  private static void readEverything(ByteBuf f) {
    int size = f.readableBytes();
    Frames.streamId(f);
    Frames.flags(f);
    Frames.describe(f);
    int type = Frames.type(f);
    switch (type) {
      case FrameType.SETUP:
        Setup.majorVersion(f);
        Setup.minorVersion(f);
        Setup.keepAliveInterval(f);
        Setup.maxLifetime(f);
        Setup.leaseRequested(f);
        ByteBuf token = Setup.resumeToken(f);
        String mdMime = Setup.metadataMimeType(f);
        String dataMime = Setup.dataMimeType(f);
        int fixed =
            18
                + (token == null ? 0 : 2 + token.readableBytes())
                + 2
                + mdMime.length()
                + dataMime.length();
        assertPayloadFits(f, size, fixed);
        break;
      case FrameType.LEASE:
        Frames.leaseTtl(f);
        Frames.leaseRequests(f);
        ByteBuf leaseMetadata = Frames.metadata(f);
        assertThat(leaseMetadata == null ? 0 : leaseMetadata.readableBytes())
            .isEqualTo(Frames.hasFlag(f, Frames.FLAG_METADATA) ? size - 14 : 0);
        assertThat(Frames.data(f).readableBytes()).isZero();
        break;
      case FrameType.KEEPALIVE:
        Frames.keepAliveLastPosition(f);
        assertThat(Frames.keepAliveData(f).readableBytes()).isEqualTo(size - 14);
        break;
      case FrameType.REQUEST_RESPONSE:
      case FrameType.REQUEST_FNF:
      case FrameType.PAYLOAD:
        assertPayloadFits(f, size, 6);
        break;
      case FrameType.REQUEST_STREAM:
      case FrameType.REQUEST_CHANNEL:
        Frames.initialRequestN(f);
        assertPayloadFits(f, size, 10);
        break;
      case FrameType.REQUEST_N:
        Frames.requestN(f);
        break;
      case FrameType.CANCEL:
        break;
      case FrameType.ERROR:
        Frames.errorCode(f);
        Frames.errorMessage(f);
        break;
      case FrameType.METADATA_PUSH:
        ByteBuf pushed = Frames.metadata(f);
        if (pushed != null) {
          assertThat(pushed.readableBytes()).isEqualTo(size - 6);
        }
        assertThat(Frames.data(f).readableBytes()).isZero();
        break;
      case FrameType.RESUME:
        Frames.resumeMajor(f);
        Frames.resumeMinor(f);
        ByteBuf resumeToken = Frames.resumeToken(f);
        Frames.resumeLastReceivedServerPosition(f);
        Frames.resumeFirstAvailableClientPosition(f);
        assertThat(28 + resumeToken.readableBytes()).isLessThanOrEqualTo(size);
        break;
      case FrameType.RESUME_OK:
        Frames.resumeOkLastReceivedClientPosition(f);
        break;
      case FrameType.EXT:
        Frames.extendedType(f);
        assertPayloadFits(f, size, 10);
        break;
      default:
        throw new AssertionError("validate accepted unknown type " + type);
    }
  }

  /** Metadata (with its u24 length) and data exactly fill the frame after {@code fixed} bytes. */
  private static void assertPayloadFits(ByteBuf f, int size, int fixed) {
    ByteBuf metadata = Frames.metadata(f);
    ByteBuf data = Frames.data(f);
    assertThat(metadata == null).isEqualTo(!Frames.hasFlag(f, Frames.FLAG_METADATA));
    int metadataBytes = metadata == null ? 0 : 3 + metadata.readableBytes();
    assertThat(fixed + metadataBytes + data.readableBytes()).isEqualTo(size);
  }
}
