package io.sluice.internal.frame;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Encodes with sluice-core's writers, then validates and decodes with its readers. Every frame is
 * decoded twice: as written, and copied between junk bytes with the reader index past the junk
 * (readers must use the reader and writer indexes, not 0 and the capacity).
 */
class FrameRoundTripTest extends FrameTestBase {

  private static final String BIG = "x".repeat(70_000); // needs all three bytes of a u24 length
  private static final String[] OPTIONAL_TEXT = {null, "", "meta✓"};
  private static final String[] TEXT = {"", "data", BIG};

  /** Runs {@code checks} on the frame and on an embedded copy; both must validate. */
  private void decodeBothWays(ByteBuf frame, Consumer<ByteBuf> checks) {
    for (ByteBuf f : List.of(frame, embedded(frame))) {
      assertThat(FrameValidator.validate(f)).as("validate %s", Frames.describe(f)).isNull();
      int readerIndex = f.readerIndex();
      int writerIndex = f.writerIndex();
      checks.accept(f);
      assertThat(f.readerIndex()).as("readers never move the reader index").isEqualTo(readerIndex);
      assertThat(f.writerIndex()).isEqualTo(writerIndex);
    }
  }

  private ByteBuf optional(String text) {
    return text == null ? null : utf8(text);
  }

  // ---- request and PAYLOAD frames ---------------------------------------------------------------

  static Stream<Arguments> payloadFrames() {
    List<Arguments> args = new ArrayList<>();
    int[] types = {
      FrameType.REQUEST_RESPONSE,
      FrameType.REQUEST_FNF,
      FrameType.REQUEST_STREAM,
      FrameType.REQUEST_CHANNEL,
      FrameType.PAYLOAD
    };
    int[] streamIds = {1, 2, Frames.MAX_STREAM_ID};
    int[] flagSets = {
      0,
      Frames.FLAG_FOLLOWS,
      Frames.FLAG_NEXT | Frames.FLAG_COMPLETE,
      Frames.FLAG_NEXT | Frames.FLAG_FOLLOWS,
      Frames.FLAG_IGNORE | Frames.FLAG_COMPLETE
    };
    int i = 0;
    for (int type : types) {
      for (String metadata : OPTIONAL_TEXT) {
        for (String data : TEXT) {
          args.add(
              Arguments.of(
                  type,
                  streamIds[i % streamIds.length],
                  flagSets[i % flagSets.length],
                  i % 2 == 0 ? 1 : Integer.MAX_VALUE,
                  metadata,
                  data));
          i++;
        }
      }
    }
    return args.stream();
  }

  @ParameterizedTest(name = "type {0} stream {1} flags {2} n {3}")
  @MethodSource("payloadFrames")
  void payloadFrame(int type, int streamId, int flags, int n, String metadata, String data) {
    ByteBuf md = optional(metadata);
    ByteBuf d = utf8(data);
    int allFlags = flags | (md != null ? Frames.FLAG_METADATA : 0);
    ByteBuf out = out();
    Frames.writeRequestHeader(out, streamId, type, allFlags, n);
    Frames.writePayload(out, md, d);

    assertThat(out.readableBytes())
        .isEqualTo(Frames.requestHeaderSize(type) + Frames.payloadSize(md, d));
    assertThat(d.readerIndex()).as("writePayload copies, it does not consume").isZero();
    decodeBothWays(
        out,
        f -> {
          assertThat(Frames.type(f)).isEqualTo(type);
          assertThat(Frames.streamId(f)).isEqualTo(streamId);
          assertThat(Frames.flags(f)).isEqualTo(allFlags);
          if (type == FrameType.REQUEST_STREAM || type == FrameType.REQUEST_CHANNEL) {
            assertThat(Frames.initialRequestN(f)).isEqualTo(n);
          }
          assertThat(str(Frames.metadata(f))).isEqualTo(metadata);
          assertThat(str(Frames.data(f))).isEqualTo(data);
          assertThat(Frames.describe(f)).startsWith(FrameType.name(type) + "{stream=" + streamId);
        });
  }

  // ---- SETUP
  // --------------------------------------------------------------------------------------

  static Stream<Arguments> setupFrames() {
    List<Arguments> args = new ArrayList<>();
    String[] tokens = {null, "", "resume-token"};
    String[] mimes = {"", "application/x.sluice", "m".repeat(255)};
    int i = 0;
    for (boolean lease : new boolean[] {false, true}) {
      for (String token : tokens) {
        for (String metadata : OPTIONAL_TEXT) {
          args.add(
              Arguments.of(
                  lease,
                  token,
                  mimes[i % 3],
                  mimes[(i + 1) % 3],
                  metadata,
                  TEXT[i % 2],
                  i % 2 == 0 ? 1 : Integer.MAX_VALUE));
          i++;
        }
      }
    }
    return args.stream();
  }

  @ParameterizedTest(name = "lease {0} token {1}")
  @MethodSource("setupFrames")
  void setup(
      boolean lease,
      String token,
      String metadataMime,
      String dataMime,
      String metadata,
      String data,
      int interval) {
    ByteBuf out = out();
    Setup.write(
        out,
        lease,
        interval,
        interval,
        optional(token),
        metadataMime,
        dataMime,
        optional(metadata),
        utf8(data));
    decodeBothWays(
        out,
        f -> {
          assertThat(Frames.type(f)).isEqualTo(FrameType.SETUP);
          assertThat(Frames.streamId(f)).isZero();
          assertThat(Setup.majorVersion(f)).isEqualTo(Frames.MAJOR_VERSION);
          assertThat(Setup.minorVersion(f)).isEqualTo(Frames.MINOR_VERSION);
          assertThat(Setup.keepAliveInterval(f)).isEqualTo(interval);
          assertThat(Setup.maxLifetime(f)).isEqualTo(interval);
          assertThat(Setup.leaseRequested(f)).isEqualTo(lease);
          assertThat(Setup.resumeRequested(f)).isEqualTo(token != null);
          assertThat(str(Setup.resumeToken(f))).isEqualTo(token);
          assertThat(Setup.metadataMimeType(f)).isEqualTo(metadataMime);
          assertThat(Setup.dataMimeType(f)).isEqualTo(dataMime);
          assertThat(Frames.hasFlag(f, Frames.FLAG_METADATA)).isEqualTo(metadata != null);
          assertThat(str(Frames.metadata(f))).isEqualTo(metadata);
          assertThat(str(Frames.data(f))).isEqualTo(data);
        });
  }

  @Test
  void setupSmallestIsMinSize() {
    ByteBuf out = out();
    Setup.write(out, false, 1, 1, null, "", "", null, null);
    assertThat(out.readableBytes()).isEqualTo(Setup.MIN_SIZE).isEqualTo(20);
    decodeBothWays(out, f -> assertThat(Setup.dataMimeType(f)).isEmpty());
  }

  // ---- LEASE, KEEPALIVE, REQUEST_N, CANCEL, ERROR
  // ------------------------------------------------

  @Test
  void lease() {
    for (int value : new int[] {0, 1, Integer.MAX_VALUE}) {
      for (String metadata : OPTIONAL_TEXT) {
        ByteBuf out = out();
        Frames.writeLease(out, value, Integer.MAX_VALUE - value, optional(metadata));
        decodeBothWays(
            out,
            f -> {
              assertThat(Frames.type(f)).isEqualTo(FrameType.LEASE);
              assertThat(Frames.streamId(f)).isZero();
              assertThat(Frames.leaseTtl(f)).isEqualTo(value);
              assertThat(Frames.leaseRequests(f)).isEqualTo(Integer.MAX_VALUE - value);
              assertThat(str(Frames.metadata(f))).isEqualTo(metadata);
              assertThat(Frames.data(f).readableBytes()).isZero();
            });
      }
    }
  }

  @Test
  void keepAlive() {
    for (boolean respond : new boolean[] {false, true}) {
      for (long position : new long[] {0, 1, Long.MAX_VALUE}) {
        for (String data : TEXT) {
          ByteBuf out = out();
          Frames.writeKeepAlive(out, respond, position, utf8(data));
          decodeBothWays(
              out,
              f -> {
                assertThat(Frames.type(f)).isEqualTo(FrameType.KEEPALIVE);
                assertThat(Frames.hasFlag(f, Frames.FLAG_KEEPALIVE_RESPOND)).isEqualTo(respond);
                assertThat(Frames.keepAliveLastPosition(f)).isEqualTo(position);
                assertThat(str(Frames.keepAliveData(f))).isEqualTo(data);
              });
        }
      }
    }
  }

  @Test
  void requestNAndCancel() {
    for (int n : new int[] {1, 2, Integer.MAX_VALUE}) {
      ByteBuf out = out();
      Frames.writeRequestN(out, 7, n);
      decodeBothWays(
          out,
          f -> {
            assertThat(Frames.type(f)).isEqualTo(FrameType.REQUEST_N);
            assertThat(Frames.streamId(f)).isEqualTo(7);
            assertThat(Frames.requestN(f)).isEqualTo(n);
          });
    }
    ByteBuf cancel = out();
    Frames.writeCancel(cancel, Frames.MAX_STREAM_ID);
    decodeBothWays(
        cancel,
        f -> {
          assertThat(Frames.type(f)).isEqualTo(FrameType.CANCEL);
          assertThat(Frames.streamId(f)).isEqualTo(Frames.MAX_STREAM_ID);
          assertThat(f.readableBytes()).isEqualTo(Frames.HEADER_SIZE);
        });
  }

  @Test
  void error() {
    int[] codes = {
      0x001, 0x002, 0x003, 0x004, 0x101, 0x102, 0x201, 0x202, 0x203, 0x204, 0x301, 0xFFFFFFFE
    };
    String[] messages = {null, "", "héllo ✓ 🚀", "e".repeat(10_000)};
    int i = 0;
    for (int code : codes) {
      String message = messages[i++ % messages.length];
      ByteBuf out = out();
      Frames.writeError(out, i, code, message);
      assertThat(out.readableBytes()).isEqualTo(Frames.errorSize(message));
      int streamId = i;
      decodeBothWays(
          out,
          f -> {
            assertThat(Frames.type(f)).isEqualTo(FrameType.ERROR);
            assertThat(Frames.streamId(f)).isEqualTo(streamId);
            assertThat(Frames.errorCode(f)).isEqualTo(code);
            assertThat(Frames.errorMessage(f)).isEqualTo(message == null ? "" : message);
          });
    }
  }

  // ---- METADATA_PUSH, RESUME, RESUME_OK, EXT --------------------------------------------------

  @Test
  void metadataPush() {
    for (String metadata : Arrays.asList("", "m", BIG)) {
      ByteBuf out = out();
      Frames.writeMetadataPush(out, utf8(metadata));
      decodeBothWays(
          out,
          f -> {
            assertThat(Frames.type(f)).isEqualTo(FrameType.METADATA_PUSH);
            assertThat(Frames.hasFlag(f, Frames.FLAG_METADATA)).isTrue();
            assertThat(str(Frames.metadata(f))).isEqualTo(metadata);
            assertThat(Frames.data(f).readableBytes()).isZero();
          });
    }
  }

  @Test
  void resume() {
    String[] tokens = {"", "t", "k".repeat(0xFFFF)};
    long[] positions = {0, 1, Long.MAX_VALUE};
    for (String token : tokens) {
      for (long position : positions) {
        ByteBuf out = out();
        Frames.writeResume(out, utf8(token), position, Long.MAX_VALUE - position);
        assertThat(out.readableBytes()).isEqualTo(28 + token.length());
        decodeBothWays(
            out,
            f -> {
              assertThat(Frames.type(f)).isEqualTo(FrameType.RESUME);
              assertThat(Frames.resumeMajor(f)).isEqualTo(1);
              assertThat(Frames.resumeMinor(f)).isZero();
              assertThat(str(Frames.resumeToken(f))).isEqualTo(token);
              assertThat(Frames.resumeLastReceivedServerPosition(f)).isEqualTo(position);
              assertThat(Frames.resumeFirstAvailableClientPosition(f))
                  .isEqualTo(Long.MAX_VALUE - position);
            });
      }
    }
  }

  @Test
  void resumeOk() {
    for (long position : new long[] {0, 42, Long.MAX_VALUE}) {
      ByteBuf out = out();
      Frames.writeResumeOk(out, position);
      decodeBothWays(
          out,
          f -> {
            assertThat(Frames.type(f)).isEqualTo(FrameType.RESUME_OK);
            assertThat(Frames.resumeOkLastReceivedClientPosition(f)).isEqualTo(position);
          });
    }
  }

  @Test
  void ext() {
    int i = 0;
    for (String metadata : OPTIONAL_TEXT) {
      for (String data : TEXT) {
        boolean ignore = i % 2 == 0;
        int extendedType = i % 2 == 0 ? 1 : Integer.MAX_VALUE;
        ByteBuf out = out();
        Frames.writeExt(out, i, extendedType, ignore, optional(metadata), utf8(data));
        int streamId = i;
        decodeBothWays(
            out,
            f -> {
              assertThat(Frames.type(f)).isEqualTo(FrameType.EXT);
              assertThat(Frames.streamId(f)).isEqualTo(streamId);
              assertThat(Frames.hasFlag(f, Frames.FLAG_IGNORE)).isEqualTo(ignore);
              assertThat(Frames.extendedType(f)).isEqualTo(extendedType);
              assertThat(str(Frames.metadata(f))).isEqualTo(metadata);
              assertThat(str(Frames.data(f))).isEqualTo(data);
            });
        i++;
      }
    }
  }

  // ---- several frames back to back -----------------------------------------------------------

  @Test
  void framesWrittenBackToBackDecodeAsSlices() {
    ByteBuf batch = out();
    int[] starts = new int[4];
    starts[0] = batch.writerIndex();
    Frames.writeRequestN(batch, 1, 5);
    starts[1] = batch.writerIndex();
    Frames.writeRequestHeader(
        batch, 3, FrameType.PAYLOAD, Frames.FLAG_METADATA | Frames.FLAG_NEXT, 0);
    Frames.writePayload(batch, utf8("m"), utf8("d"));
    starts[2] = batch.writerIndex();
    Frames.writeLease(batch, 10, 20, utf8("lease-md"));
    starts[3] = batch.writerIndex();

    ByteBuf requestN = batch.slice(starts[0], starts[1] - starts[0]);
    ByteBuf payload = batch.slice(starts[1], starts[2] - starts[1]);
    ByteBuf lease = batch.slice(starts[2], starts[3] - starts[2]);
    assertThat(FrameValidator.validate(requestN)).isNull();
    assertThat(FrameValidator.validate(payload)).isNull();
    assertThat(FrameValidator.validate(lease)).isNull();
    assertThat(Frames.requestN(requestN)).isEqualTo(5);
    assertThat(str(Frames.metadata(payload))).isEqualTo("m");
    assertThat(str(Frames.data(payload))).isEqualTo("d");
    assertThat(str(Frames.metadata(lease))).isEqualTo("lease-md");
  }
}
