package io.sluice.fuzz;

import static io.sluice.fuzz.InboundHarness.MODE_CLIENT;
import static io.sluice.fuzz.InboundHarness.MODE_SERVER_RAW;
import static io.sluice.fuzz.InboundHarness.MODE_SERVER_SETUP;
import static io.sluice.fuzz.InboundHarness.MODE_SERVER_SETUP_LEASE;
import static io.sluice.fuzz.InboundHarness.OPT_ADVANCE_TIME;
import static io.sluice.fuzz.InboundHarness.OPT_CLIENT_LEASE;
import static io.sluice.fuzz.InboundHarness.OPT_GRACEFUL;
import static io.sluice.fuzz.InboundHarness.OPT_LOCAL_REQUESTS;
import static io.sluice.fuzz.InboundHarness.OPT_MTU;

import io.sluice.ErrorCode;
import io.sluice.test.FrameBuilder;
import io.sluice.test.FrameBuilder.Builder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Generates the committed seed corpus of the inbound fuzz target: inputs in the {@link
 * InboundHarness} format (configuration byte, read size, then length-prefixed frames) covering
 * every frame type in the states where it means something: SETUP and its rejections, every
 * interaction in both directions, fragmented messages, REQUEST_N, CANCEL, PAYLOAD, ERROR,
 * KEEPALIVE, LEASE, METADATA_PUSH, RESUME, RESUME_OK, EXT, unknown types, and a few malformed
 * frames. Frames are built with sluice-test-support's {@link FrameBuilder}, which writes bytes
 * straight from the spec, independently of sluice-core's codecs.
 *
 * <p>Regenerate after changing this class (SeedCorpusTest fails while the committed files differ):
 *
 * <pre>
 * ./mvnw -pl sluice-fuzz test -Dtest=SeedCorpusTest -Dsluice.fuzz.writeSeeds=true
 * </pre>
 *
 * <p>The first data byte of a request picks what {@link EchoResponder} does with it, see there.
 */
final class SeedCorpus {
  private SeedCorpus() {}

  /** Where the seeds live, relative to the module directory (Jazzer's inputs directory). */
  static final Path DIRECTORY =
      Paths.get("src/test/resources/io/sluice/fuzz/InboundFuzzTestInputs/fuzzInbound/seeds");

  // Client-initiated ids a server sees, and the ids the harness's own requests get.
  private static final int C1 = 1;
  private static final int C3 = 3;
  private static final int C5 = 5;
  private static final int C7 = 7;
  private static final int C9 = 9;
  private static final int S2 = 2;
  private static final int S4 = 4;
  private static final int S6 = 6;
  private static final int S8 = 8;

  // First data bytes for EchoResponder.
  private static final String ECHO = "\0echo";
  private static final String FAIL = "\1fail";
  private static final String HOLD = "\2hold";
  private static final String CANCEL = "\3cancel";
  private static final String BIG = "\4big";
  private static final String MEDIUM = "\10medium";
  private static final String HUGE = "\14huge";
  private static final String THREE = "\3three";
  private static final String SIXTY = "\13sixty";
  private static final String THREE_THEN_ERROR = "\7three-then-error";
  private static final String NONE = "\0none";
  private static final String CHANNEL_CANCEL = "\2channel-cancel";

  private static byte[] seed(int config, int readSize, Builder<?>... frames) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(config);
    out.write(readSize);
    for (Builder<?> f : frames) {
      out.writeBytes(FrameBuilder.lengthPrefixed(f.toBytes()));
    }
    return out.toByteArray();
  }

  private static byte[] raw(int config, int readSize, byte[]... chunks) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(config);
    out.write(readSize);
    for (byte[] c : chunks) {
      out.writeBytes(c);
    }
    return out.toByteArray();
  }

  private static FrameBuilder.SetupBuilder setup() {
    return FrameBuilder.setup().keepAlive(1_000).lifetime(5_000);
  }

  private static byte[] repeat(char c, int n) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) c);
    return b;
  }

  /** Every seed, by file name, in a stable order. */
  static Map<String, byte[]> seeds() {
    Map<String, byte[]> s = new LinkedHashMap<>();
    serverBeforeSetup(s);
    serverEstablished(s);
    serverRequests(s);
    serverLease(s);
    client(s);
    return s;
  }

  // ---- mode 0: a server fed raw bytes -----------------------------------------------------------

  private static void serverBeforeSetup(Map<String, byte[]> s) {
    int m = MODE_SERVER_RAW;
    s.put("raw-setup", seed(m, 0, setup()));
    s.put(
        "raw-setup-request-response",
        seed(m, 0, setup(), FrameBuilder.requestResponse(C1).data(ECHO)));
    s.put(
        "raw-setup-with-payload",
        seed(
            m,
            0,
            setup().metadataMime("text/plain").dataMime("application/json").metadata("md").data("{}"),
            FrameBuilder.requestResponse(C1).data(ECHO)));
    s.put(
        "raw-setup-lease-then-requests",
        seed(
            m,
            0,
            setup().lease(true),
            FrameBuilder.requestResponse(C1).data(ECHO),
            FrameBuilder.requestResponse(C3).data(ECHO),
            FrameBuilder.requestResponse(C5).data(ECHO)));
    s.put("raw-setup-resume-token", seed(m, 0, setup().resumeToken(new byte[] {1, 2, 3, 4})));
    s.put("raw-setup-version-2", seed(m, 0, setup().version(2, 0)));
    s.put("raw-setup-zero-keepalive", seed(m, 0, setup().keepAlive(0)));
    s.put("raw-setup-on-stream-1", seed(m, 0, setup().streamId(1)));
    s.put("raw-setup-truncated-mime", seed(m, 0, setup().declaredDataMimeLength(200)));
    s.put("raw-resume", seed(m, 0, FrameBuilder.resume(new byte[] {9, 9}, 0, 0)));
    s.put("raw-request-before-setup", seed(m, 0, FrameBuilder.requestResponse(C1).data(ECHO)));
    s.put("raw-keepalive-before-setup", seed(m, 0, FrameBuilder.keepAlive(true, 0)));
    s.put(
        "raw-setup-in-1-byte-reads",
        seed(
            m,
            1,
            setup(),
            FrameBuilder.requestResponse(C1).data(ECHO),
            FrameBuilder.requestStream(C3, 2).data(THREE)));
    s.put(
        "raw-setup-in-7-byte-reads",
        seed(
            m,
            7,
            setup(),
            FrameBuilder.requestChannel(C1, 2).data(ECHO),
            FrameBuilder.payload(C1, true, true).data("x")));
    s.put(
        "raw-frame-too-large",
        raw(m, 0, FrameBuilder.lengthPrefixed(setup().toBytes()), new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0, 0}));
    s.put("raw-truncated-header", raw(m, 0, new byte[] {0, 0, 3, 0, 0, 0}));
    s.put("raw-nothing-then-setup-timeout", raw(m | OPT_ADVANCE_TIME, 0));
    s.put("raw-setup-then-keepalive-timers", seed(m | OPT_ADVANCE_TIME, 0, setup().keepAlive(1).lifetime(1)));
  }

  // ---- mode 1: a server after a valid SETUP ----------------------------------------------------

  private static void serverEstablished(Map<String, byte[]> s) {
    int m = MODE_SERVER_SETUP;
    s.put("s-request-response-echo", seed(m, 0, FrameBuilder.requestResponse(C1).data(ECHO)));
    s.put(
        "s-request-response-metadata",
        seed(m, 0, FrameBuilder.requestResponse(C1).metadata("md").data(ECHO)));
    s.put("s-request-response-error", seed(m, 0, FrameBuilder.requestResponse(C1).data(FAIL)));
    s.put(
        "s-request-response-unanswered", seed(m, 0, FrameBuilder.requestResponse(C1).data(HOLD)));
    s.put(
        "s-request-response-unanswered-then-cancel",
        seed(m, 0, FrameBuilder.requestResponse(C1).data(HOLD), FrameBuilder.cancel(C1)));
    s.put("s-request-response-canceled", seed(m, 0, FrameBuilder.requestResponse(C1).data(CANCEL)));
    s.put(
        "s-request-response-big-answer",
        seed(m, 0, FrameBuilder.requestResponse(C1).metadata("md").data(BIG)));
    s.put(
        "s-request-response-big-answer-fragmented",
        seed(m | OPT_MTU, 0, FrameBuilder.requestResponse(C1).metadata("md").data(BIG)));
    s.put(
        "s-request-response-huge-answer",
        seed(m, 0, FrameBuilder.requestResponse(C1).data(HUGE)));
    s.put(
        "s-request-response-huge-answer-fragmented",
        seed(m | OPT_MTU, 0, FrameBuilder.requestResponse(C1).data(HUGE)));
    {
      // A 3000-byte answer written on its own makes the channel unwritable (the stream waits),
      // then 2000-byte answers overflow the 64 KiB write batch mid-read.
      List<Builder<?>> frames = new ArrayList<>();
      frames.add(FrameBuilder.requestResponse(C1).data(BIG));
      frames.add(FrameBuilder.requestStream(C3, 1).data(THREE));
      for (int id = 5; id < 5 + 2 * 34; id += 2) {
        frames.add(FrameBuilder.requestResponse(id).data(MEDIUM));
      }
      s.put("s-batch-overflow-while-unwritable", seed(m, 0, frames.toArray(new Builder<?>[0])));
    }
    s.put("s-fire-and-forget", seed(m, 0, FrameBuilder.requestFnf(C1).metadata("m").data("fire")));
    s.put(
        "s-request-stream-request-n",
        seed(
            m,
            0,
            FrameBuilder.requestStream(C1, 1).data(THREE),
            FrameBuilder.requestN(C1, 1),
            FrameBuilder.requestN(C1, 5)));
    s.put(
        "s-request-stream-cancel",
        seed(m, 0, FrameBuilder.requestStream(C1, 1).data(THREE), FrameBuilder.cancel(C1)));
    s.put(
        "s-request-stream-error-at-end",
        seed(m, 0, FrameBuilder.requestStream(C1, 5).data(THREE_THEN_ERROR)));
    s.put(
        "s-request-stream-sixty-items",
        seed(m, 0, FrameBuilder.requestStream(C1, 0x7fffffff).data(SIXTY)));
    s.put("s-request-stream-empty", seed(m, 0, FrameBuilder.requestStream(C1, 1).data(NONE)));
    s.put(
        "s-request-stream-request-n-max",
        seed(
            m,
            0,
            FrameBuilder.requestStream(C1, 1).data(THREE),
            FrameBuilder.requestN(C1, 0x7fffffff)));
    s.put(
        "s-request-stream-request-n-zero",
        seed(m, 0, FrameBuilder.requestStream(C1, 1).data(THREE), FrameBuilder.requestN(C1, 0)));
    s.put("s-request-stream-initial-n-zero", seed(m, 0, FrameBuilder.requestStream(C1, 0).data(THREE)));
    s.put(
        "s-request-channel",
        seed(
            m,
            0,
            FrameBuilder.requestChannel(C1, 2).data(ECHO),
            FrameBuilder.payload(C1, true, false).data("b"),
            FrameBuilder.payload(C1, true, false).metadata("m").data("c"),
            FrameBuilder.requestN(C1, 5),
            FrameBuilder.payload(C1, false, true)));
    s.put(
        "s-request-channel-complete-at-once",
        seed(m, 0, FrameBuilder.requestChannel(C1, 1, true).data(ECHO)));
    s.put(
        "s-request-channel-next-complete",
        seed(
            m,
            0,
            FrameBuilder.requestChannel(C1, 3).data(ECHO),
            FrameBuilder.payload(C1, true, true).data("last")));
    s.put(
        "s-request-channel-responder-cancels",
        seed(
            m,
            0,
            FrameBuilder.requestChannel(C1, 2).data(CHANNEL_CANCEL),
            FrameBuilder.payload(C1, true, false).data("b")));
    s.put("s-request-channel-fails", seed(m, 0, FrameBuilder.requestChannel(C1, 2).data(FAIL)));
    s.put(
        "s-request-channel-peer-cancels",
        seed(
            m,
            0,
            FrameBuilder.requestChannel(C1, 1).data(ECHO),
            FrameBuilder.payload(C1, true, false).data("b"),
            FrameBuilder.cancel(C1)));
    s.put(
        "s-request-channel-peer-error",
        seed(
            m,
            0,
            FrameBuilder.requestChannel(C1, 2).data(ECHO),
            FrameBuilder.error(C1, ErrorCode.APPLICATION_ERROR, "boom")));
    s.put(
        "s-request-channel-overflow",
        seed(
            m,
            0,
            FrameBuilder.requestChannel(C1, 1).data(ECHO),
            FrameBuilder.payload(C1, true, false).data("1"),
            FrameBuilder.payload(C1, true, false).data("2"),
            FrameBuilder.payload(C1, true, false).data("3"),
            FrameBuilder.payload(C1, true, false).data("4")));
    s.put(
        "s-request-channel-payload-without-flags",
        seed(m, 0, FrameBuilder.requestChannel(C1, 1).data(ECHO), FrameBuilder.payload(C1).data("?")));
    s.put(
        "s-fragmented-request-response",
        seed(
            m,
            0,
            FrameBuilder.requestResponse(C1).follows(true).metadata("m1").data(ECHO),
            FrameBuilder.payload(C1, true, false).follows(true).metadata("m2").data("d2"),
            FrameBuilder.payload(C1, true, false).data("d3")));
    s.put(
        "s-fragmented-request-stream",
        seed(
            m,
            0,
            FrameBuilder.requestStream(C1, 2).follows(true).data(THREE),
            FrameBuilder.payload(C1, true, false).data("-tail")));
    s.put(
        "s-fragmented-request-channel-and-payload",
        seed(
            m,
            0,
            FrameBuilder.requestChannel(C1, 2).follows(true).data(ECHO),
            FrameBuilder.payload(C1, true, false).data("-tail"),
            FrameBuilder.payload(C1, true, false).follows(true).data("p1"),
            FrameBuilder.payload(C1, true, true).data("p2")));
    s.put(
        "s-fragmented-fire-and-forget",
        seed(
            m,
            0,
            FrameBuilder.requestFnf(C1).follows(true).data("f1"),
            FrameBuilder.payload(C1, true, false).data("f2")));
    s.put(
        "s-fragmented-too-large",
        seed(
            m,
            0,
            FrameBuilder.requestResponse(C1).follows(true).data(repeat('a', 400)),
            FrameBuilder.payload(C1, true, false).follows(true).data(repeat('b', 400)),
            FrameBuilder.payload(C1, true, false).data("end")));
    s.put(
        "s-fragmented-empty-fragment",
        seed(
            m,
            0,
            FrameBuilder.requestResponse(C1).follows(true).data(ECHO),
            FrameBuilder.payload(C1, true, false).follows(true)));
    s.put(
        "s-fragmented-in-2-byte-reads",
        seed(
            m,
            2,
            FrameBuilder.requestResponse(C1).follows(true).metadata("m").data(ECHO),
            FrameBuilder.payload(C1, true, false).data("d")));
    s.put("s-keepalive-respond", seed(m, 0, FrameBuilder.keepAlive(true, 0).data("ping")));
    s.put("s-keepalive", seed(m, 0, FrameBuilder.keepAlive(false, 0)));
    s.put("s-keepalive-on-stream", seed(m, 0, FrameBuilder.keepAlive(true, 0).streamId(C1)));
    s.put("s-lease-without-lease", seed(m, 0, FrameBuilder.lease(1_000, 5)));
    s.put("s-metadata-push", seed(m, 0, FrameBuilder.metadataPush("pushed")));
    s.put("s-metadata-push-on-stream", seed(m, 0, FrameBuilder.metadataPush("pushed").streamId(C3)));
    s.put(
        "s-error-connection-close-with-live-stream",
        seed(
            m,
            0,
            FrameBuilder.requestResponse(C1).data(HOLD),
            FrameBuilder.error(0, ErrorCode.CONNECTION_CLOSE, "bye")));
    s.put(
        "s-error-connection-error",
        seed(m, 0, FrameBuilder.error(0, ErrorCode.CONNECTION_ERROR, "broken")));
    s.put(
        "s-error-setup-code-ignored",
        seed(
            m,
            0,
            FrameBuilder.error(0, ErrorCode.INVALID_SETUP, "late"),
            FrameBuilder.requestResponse(C1).data(ECHO)));
    s.put(
        "s-error-on-unknown-stream",
        seed(m, 0, FrameBuilder.error(C5, ErrorCode.APPLICATION_ERROR, "who")));
    s.put(
        "s-ext",
        seed(
            m,
            0,
            FrameBuilder.ext(C1, 7).ignore(true).metadata("m").data("d"),
            FrameBuilder.ext(0, 8).ignore(true),
            FrameBuilder.ext(C3, 9).data("no-ignore"),
            FrameBuilder.requestResponse(C5).data(ECHO)));
    s.put(
        "s-unknown-type",
        seed(
            m,
            0,
            FrameBuilder.raw(0, 0x30, FrameBuilder.FLAG_IGNORE, (byte) 1, (byte) 2),
            FrameBuilder.requestResponse(C1).data(ECHO),
            FrameBuilder.raw(C3, 0x31, 0)));
    s.put("s-resume-after-setup", seed(m, 0, FrameBuilder.resume(new byte[] {1}, 0, 0)));
    s.put("s-resume-ok", seed(m, 0, FrameBuilder.resumeOk(0)));
    s.put("s-second-setup", seed(m, 0, setup(), FrameBuilder.requestResponse(C1).data(ECHO)));
    s.put("s-request-on-even-id", seed(m, 0, FrameBuilder.requestResponse(S2).data(ECHO)));
    s.put(
        "s-too-many-streams",
        seed(
            m,
            0,
            FrameBuilder.requestResponse(C1).data(HOLD),
            FrameBuilder.requestStream(C3, 1).data(THREE),
            FrameBuilder.requestChannel(C5, 1).data(ECHO),
            FrameBuilder.requestResponse(C7).data(HOLD),
            FrameBuilder.requestResponse(C9).data(HOLD),
            FrameBuilder.requestFnf(11).data("fnf")));
    s.put(
        "s-id-reuse",
        seed(
            m,
            0,
            FrameBuilder.requestResponse(C1).data(HOLD),
            FrameBuilder.requestStream(C1, 1).data(THREE)));
    s.put(
        "s-frames-on-unknown-ids",
        seed(
            m,
            0,
            FrameBuilder.payload(C5, true, false).data("p"),
            FrameBuilder.requestN(C7, 3),
            FrameBuilder.cancel(C9),
            FrameBuilder.payload(0, true, false).data("p0"),
            FrameBuilder.requestN(0, 1),
            FrameBuilder.cancel(0)));
    s.put(
        "s-bad-metadata-length",
        seed(m, 0, FrameBuilder.requestResponse(C1).metadata("md").declaredMetadataLength(100).data(ECHO)));
    s.put("s-truncated-request-n", seed(m, 0, FrameBuilder.requestN(C1, 1).truncate(8)));
    s.put(
        "s-graceful-close-with-live-stream",
        seed(m | OPT_GRACEFUL, 0, FrameBuilder.requestResponse(C1).data(HOLD)));
    s.put(
        "s-timers",
        seed(
            m | OPT_ADVANCE_TIME,
            0,
            FrameBuilder.keepAlive(true, 0),
            FrameBuilder.requestStream(C1, 1).data(THREE)));
    s.put(
        "s-every-type-in-3-byte-reads",
        seed(
            m | OPT_MTU,
            3,
            FrameBuilder.keepAlive(true, 0).data("k"),
            FrameBuilder.metadataPush("mp"),
            FrameBuilder.requestFnf(C1).data("f"),
            FrameBuilder.requestResponse(C3).data(BIG),
            FrameBuilder.requestStream(C5, 2).data(THREE),
            FrameBuilder.requestN(C5, 2),
            FrameBuilder.requestChannel(C7, 2).data(ECHO),
            FrameBuilder.payload(C7, true, true).data("c"),
            FrameBuilder.cancel(C5),
            FrameBuilder.lease(100, 1),
            FrameBuilder.ext(C9, 1).ignore(true),
            FrameBuilder.error(0, ErrorCode.CONNECTION_CLOSE, "done")));
  }

  // ---- mode 1 with the server's own requests (ids 2, 4, 6; FNF 8) --------------------------------

  private static void serverRequests(Map<String, byte[]> s) {
    int m = MODE_SERVER_SETUP | OPT_LOCAL_REQUESTS;
    s.put(
        "sr-answers",
        seed(
            m,
            0,
            FrameBuilder.payload(S2, true, true).data("r"),
            FrameBuilder.payload(S4, true, false).data("a"),
            FrameBuilder.payload(S4, true, false).metadata("m").data("b"),
            FrameBuilder.payload(S4, false, true),
            FrameBuilder.requestN(S6, 3),
            FrameBuilder.payload(S6, true, false).data("x"),
            FrameBuilder.payload(S6, false, true)));
    s.put(
        "sr-errors-and-cancel",
        seed(
            m,
            0,
            FrameBuilder.error(S2, ErrorCode.APPLICATION_ERROR, "no"),
            FrameBuilder.error(S4, 0x301, "custom"),
            FrameBuilder.requestN(S6, 1),
            FrameBuilder.cancel(S6)));
    s.put(
        "sr-fragmented-answers",
        seed(
            m,
            0,
            FrameBuilder.payload(S2, true, false).follows(true).metadata("m").data("frag1"),
            FrameBuilder.payload(S2, true, true).data("frag2"),
            FrameBuilder.payload(S4, true, false).follows(true).data("s1"),
            FrameBuilder.payload(S4, true, false).data("s2")));
    s.put(
        "sr-stream-overflow",
        seed(
            m,
            0,
            FrameBuilder.payload(S4, true, false).data("1"),
            FrameBuilder.payload(S4, true, false).data("2"),
            FrameBuilder.payload(S4, true, false).data("3"),
            FrameBuilder.payload(S4, true, false).data("4")));
    s.put("sr-payload-without-flags", seed(m, 0, FrameBuilder.payload(S4).data("?")));
    s.put(
        "sr-request-n-on-stream-requester",
        seed(m, 0, FrameBuilder.requestN(S4, 5), FrameBuilder.requestN(S2, 1)));
    s.put(
        "sr-graceful-close",
        seed(m | OPT_GRACEFUL, 0, FrameBuilder.payload(S4, true, false).data("a")));
    s.put(
        "sr-fragmented-mtu",
        seed(
            m | OPT_MTU,
            0,
            FrameBuilder.requestN(S6, 4),
            FrameBuilder.requestResponse(C1).data(BIG)));
  }

  // ---- mode 2: a server after a SETUP that asks for leases -------------------------------------

  private static void serverLease(Map<String, byte[]> s) {
    int m = MODE_SERVER_SETUP_LEASE;
    s.put(
        "sl-requests-within-and-beyond-lease",
        seed(
            m,
            0,
            FrameBuilder.requestResponse(C1).data(ECHO),
            FrameBuilder.requestFnf(C3).data("f"),
            FrameBuilder.requestResponse(C5).data(ECHO),
            FrameBuilder.requestStream(C7, 1).data(THREE)));
    s.put(
        "sl-lease-from-client-then-answers",
        seed(
            m | OPT_LOCAL_REQUESTS,
            0,
            FrameBuilder.lease(1_000, 5).metadata("lease-md"),
            FrameBuilder.payload(S2, true, true).data("r"),
            FrameBuilder.requestN(S6, 2)));
    s.put(
        "sl-lease-regrant",
        seed(m | OPT_ADVANCE_TIME, 0, FrameBuilder.requestResponse(C1).data(ECHO)));
  }

  // ---- mode 3: a client; the input plays the server ---------------------------------------------

  private static void client(Map<String, byte[]> s) {
    int m = MODE_CLIENT | OPT_LOCAL_REQUESTS;
    s.put(
        "c-answers",
        seed(
            m,
            0,
            FrameBuilder.payload(C1, true, true).data("r"),
            FrameBuilder.payload(C3, true, false).data("a"),
            FrameBuilder.payload(C3, false, true),
            FrameBuilder.requestN(C5, 3),
            FrameBuilder.payload(C5, true, false).data("x"),
            FrameBuilder.payload(C5, false, true)));
    s.put(
        "c-errors-and-cancel",
        seed(
            m,
            0,
            FrameBuilder.error(C1, ErrorCode.APPLICATION_ERROR, "no"),
            FrameBuilder.error(C3, ErrorCode.REJECTED, "busy"),
            FrameBuilder.cancel(C5),
            FrameBuilder.error(C5, ErrorCode.CANCELED, "gone")));
    s.put(
        "c-server-requests",
        seed(
            m,
            0,
            FrameBuilder.requestResponse(S2).data(ECHO),
            FrameBuilder.requestStream(S4, 2).data(THREE),
            FrameBuilder.requestChannel(S6, 1).data(ECHO),
            FrameBuilder.payload(S6, true, true).data("z"),
            FrameBuilder.requestFnf(S8).data("f"),
            FrameBuilder.metadataPush("mp")));
    s.put(
        "c-rejected-setup",
        seed(m, 0, FrameBuilder.error(0, ErrorCode.REJECTED_SETUP, "no thanks")));
    s.put(
        "c-lease",
        seed(
            m | OPT_CLIENT_LEASE,
            0,
            FrameBuilder.lease(1_000, 5),
            FrameBuilder.payload(C1, true, true).data("r"),
            FrameBuilder.requestResponse(S2).data(ECHO)));
    s.put(
        "c-lease-expired-timers",
        seed(m | OPT_CLIENT_LEASE | OPT_ADVANCE_TIME, 0, FrameBuilder.lease(1, 1)));
    s.put(
        "c-keepalive-and-setup-ignored",
        seed(m, 0, FrameBuilder.keepAlive(true, 0).data("k"), setup(), FrameBuilder.resumeOk(5)));
    s.put("c-request-on-odd-id", seed(m, 0, FrameBuilder.requestResponse(C9).data(ECHO)));
    s.put(
        "c-fragmented-answer",
        seed(
            m,
            0,
            FrameBuilder.payload(C1, true, false).follows(true).data("a1"),
            FrameBuilder.payload(C1, true, true).data("a2"),
            FrameBuilder.payload(C3, true, false).follows(true).metadata("m").data("b1"),
            FrameBuilder.payload(C3, true, false).data("b2")));
    s.put(
        "c-in-2-byte-reads",
        seed(
            m | OPT_MTU,
            2,
            FrameBuilder.payload(C1, true, true).data("r"),
            FrameBuilder.requestN(C5, 2),
            FrameBuilder.requestResponse(S2).data(BIG)));
    s.put(
        "c-timers-and-graceful-close",
        seed(
            m | OPT_ADVANCE_TIME | OPT_GRACEFUL,
            0,
            FrameBuilder.payload(C3, true, false).data("a")));
    s.put(
        "c-no-local-requests",
        seed(
            MODE_CLIENT,
            0,
            FrameBuilder.requestChannel(S2, 2).data(ECHO),
            FrameBuilder.error(0, ErrorCode.CONNECTION_CLOSE, "bye")));
  }

  /**
   * Writes the seeds into {@code args[0]} (default: {@link #DIRECTORY}, run from the module
   * directory), replacing the files there.
   */
  public static void main(String[] args) throws IOException {
    write(args.length > 0 ? Paths.get(args[0]) : DIRECTORY);
  }

  static void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    try (Stream<Path> old = Files.list(dir)) {
      for (Path p : (Iterable<Path>) old::iterator) {
        Files.delete(p);
      }
    }
    for (Map.Entry<String, byte[]> e : seeds().entrySet()) {
      Files.write(dir.resolve(e.getKey()), e.getValue());
    }
  }
}
