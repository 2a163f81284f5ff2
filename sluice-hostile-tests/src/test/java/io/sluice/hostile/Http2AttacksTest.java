package io.sluice.hostile;

import static io.netty.handler.codec.http2.Http2Error.ENHANCE_YOUR_CALM;
import static io.netty.handler.codec.http2.Http2Error.PROTOCOL_ERROR;
import static io.sluice.transport.http2.RawH2Peer.CONTINUATION;
import static io.sluice.transport.http2.RawH2Peer.FLAG_END_HEADERS;
import static io.sluice.transport.http2.RawH2Peer.HEADERS;
import static io.sluice.transport.http2.RawH2Peer.PREFACE;
import static io.sluice.transport.http2.RawH2Peer.SETTINGS_INITIAL_WINDOW_SIZE;
import static io.sluice.transport.http2.RawH2Peer.concat;
import static io.sluice.transport.http2.RawH2Peer.data;
import static io.sluice.transport.http2.RawH2Peer.frame;
import static io.sluice.transport.http2.RawH2Peer.headers;
import static io.sluice.transport.http2.RawH2Peer.ping;
import static io.sluice.transport.http2.RawH2Peer.repeat;
import static io.sluice.transport.http2.RawH2Peer.requestBlock;
import static io.sluice.transport.http2.RawH2Peer.requestStream;
import static io.sluice.transport.http2.RawH2Peer.rsocketData;
import static io.sluice.transport.http2.RawH2Peer.rstStream;
import static io.sluice.transport.http2.RawH2Peer.settings;
import static io.sluice.transport.http2.RawH2Peer.windowUpdate;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2Error;
import io.sluice.test.FrameBuilder;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.http2.Http2ClientTransport;
import io.sluice.transport.http2.Http2ServerTransport;
import io.sluice.transport.http2.RawH2Peer;
import io.sluice.transport.http2.RawH2Peer.Hpack;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * HTTP/2 attacks (SECURITY-NOTES section 2) against {@link Http2ServerTransport} (h2c) in the
 * child JVM: a raw HTTP/2 client ({@link RawH2Peer}) on 127.0.0.1 attacks while a well-behaved
 * {@link Http2ClientTransport} client on its own connection completes a request-response and a
 * 100-item request-stream; each scenario checks the server's memory, its leak reports, and what the
 * attacker got: GOAWAY with netty's code then the close, or (a peer that never reads, whose GOAWAY
 * is queued behind what it did not read) the close. The server runs with the transport's defaults
 * except a short write-stall timeout ({@link #WRITE_STALL_TIMEOUT}), to keep runs short. The
 * requests the attacks send come from overridable methods ({@link #endless}, {@link
 * #requestFields}, ...), so a subclass runs the same attacks with another protocol's requests
 * ({@link GrpcHttp2AttacksTest}).
 */
class Http2AttacksTest extends HostileTestBase {
  static final Duration FLOOD = Duration.ofSeconds(20);
  static final Duration WAIT = Duration.ofSeconds(30);
  static final int SMALL_RCVBUF = 8 * 1024;
  static final int MAX_STREAMS = Http2ServerTransport.DEFAULT_MAX_CONCURRENT_STREAMS;
  /**
   * Streams per round of a rapid reset flood: enough that, with a PING fence per round on a
   * loaded machine, the flood passes the server's bound on early resets (1,000 per 10 s) well
   * within {@link #FLOOD}.
   */
  static final int RAPID_RESET_BATCH = 200;

  @Override
  String[] serverOptions() {
    return new String[] {"transport=h2", WRITE_STALL_TIMEOUT, PREFACE_TIMEOUT, DEADLINE_PREFACE_TIMEOUT};
  }

  @Override
  ClientTransport wellBehavedTransport(int port) {
    return Http2ClientTransport.create("127.0.0.1", port);
  }

  @Override
  String rowPrefix() {
    return "h2: ";
  }

  /** Connects the attacker: preface and SETTINGS, the server's SETTINGS acknowledged. */
  RawH2Peer connect(int port) throws IOException {
    return RawH2Peer.handshake(port);
  }

  /**
   * A peer that will never read: a small receive buffer, the preface and an empty SETTINGS sent,
   * the server's SETTINGS never read (so never acknowledged).
   */
  RawH2Peer connectNeverReading(int port) throws IOException {
    RawH2Peer p = RawH2Peer.connect(port, SMALL_RCVBUF);
    p.send(concat(PREFACE, settings()));
    return p;
  }

  /** The attacker got GOAWAY with {@code error}, then the server closed the connection. */
  static String expectGoAway(RawH2Peer p, Http2Error error) throws IOException {
    return expectGoAway(p, error, "");
  }

  /** As {@link #expectGoAway(RawH2Peer, Http2Error)}; {@code flood} says what was sent, for a failure. */
  static String expectGoAway(RawH2Peer p, Http2Error error, String flood) throws IOException {
    RawH2Peer.GoAway g = p.awaitGoAway(WAIT);
    assertThat(g).as("GOAWAY from the server (resets: %d%s)", p.resets.size(), flood).isNotNull();
    assertThat(RawH2Peer.name(g.errorCode())).as("GOAWAY code of %s", g).isEqualTo(error.name());
    assertThat(p.awaitClosed(WAIT)).as("server closed the attacker after its GOAWAY").isTrue();
    return g + ", then closed";
  }

  /**
   * For a peer that did not read: the server cut it while it flooded (a write failed), and reading
   * now ends in EOF or a reset.
   */
  String expectCut(RawH2Peer p) throws IOException {
    assertThat(p.writeFailed).as("the server cut the flooding peer (a write failed)").isTrue();
    assertThat(p.awaitClosed(WAIT)).as("server closed the attacker").isTrue();
    String cause = server.closeCause(p.localPort);
    return "cut while flooding (write failed); attacker then read " + (p.bytesRead >> 10) + " KiB, "
        + (p.goAway != null ? "ending in " + p.goAway : "no GOAWAY (queued behind unread output)")
        + (cause != null ? "; server: " + cause : "");
  }

  /** {@code count} units made by {@code unit(streamId)}, stream ids 1, 3, 5... across rounds. */
  static RawH2Peer.BatchSource perStream(int count, java.util.function.IntFunction<byte[]> unit) {
    return round -> repeat(count, i -> unit.apply(2 * (round * count + i) + 1));
  }

  static byte[] forever(int streamId) {
    return requestStream(streamId, 1, "forever");
  }

  // ---- what the attacks send: the stream mapping's requests; GrpcHttp2AttacksTest sends gRPC's ----

  /** A whole request on {@code streamId} whose answer never ends (the stream stays open). */
  byte[] endless(int streamId) {
    return forever(streamId);
  }

  /** A whole request on {@code streamId} answered without end as fast as the window allows. */
  byte[] firehose(int streamId) {
    return requestStream(streamId, Integer.MAX_VALUE, "forever");
  }

  /** The fields of a request's header block (an open request of the server's protocol). */
  String[] requestFields() {
    return new String[] {
      ":method", "POST", ":scheme", "http", ":authority", "127.0.0.1", ":path", "/rsocket/stream",
      "content-type", RawH2Peer.CONTENT_TYPE
    };
  }

  final byte[] requestHeaderBlock() {
    return Hpack.block(requestFields());
  }

  /** HEADERS (END_HEADERS, no END_STREAM) opening a request. */
  final byte[] openRequest(int streamId) {
    return headers(streamId, false, requestHeaderBlock());
  }

  /** A whole request ending with END_STREAM (the stream half-closed by the peer). */
  byte[] wholeRequest(int streamId) {
    return concat(openRequest(streamId),
        rsocketData(streamId, true, FrameBuilder.requestStream(1, 1).data("forever").toBytes()));
  }

  /** The header block of a request the server answers "not found". */
  byte[] notFoundBlock() {
    return requestBlock("/rsocket/nowhere");
  }

  /** What makes the server's own code (not netty's) reset a stream with PROTOCOL_ERROR. */
  byte[] selfResetRequest(int streamId) {
    return concat(openRequest(streamId),
        rsocketData(streamId, false, FrameBuilder.payload(1, true, false).data("x").toBytes()));
  }

  String selfResetDescription() {
    return "streams whose first RSocket frame is not a request (the mapping resets them)";
  }

  // ---- rapid reset and MadeYouReset --------------------------------------------------------------

  @Test
  void rapidReset() throws Exception {
    scenario(
        "rapid reset (CVE-2023-44487): request-stream HEADERS+DATA then RST_STREAM(CANCEL), in a loop",
        port -> {
          try (RawH2Peer p = connect(port)) {
            return rapidReset(p, this::endless);
          }
        });
  }

  /**
   * Rapid reset from {@code p}: rounds of {@link #RAPID_RESET_BATCH} streams opened by {@code open}
   * and reset at once, each round fenced by a PING, until the server's GOAWAY(ENHANCE_YOUR_CALM).
   */
  static String rapidReset(RawH2Peer p, java.util.function.IntFunction<byte[]> open) throws IOException {
    long start = System.nanoTime();
    int rounds = p.fencedFlood(FLOOD, perStream(RAPID_RESET_BATCH, id -> concat(open.apply(id), rstStream(id, Http2Error.CANCEL))));
    return expectGoAway(p, ENHANCE_YOUR_CALM, String.format("; flood: %d rounds of %d streams in %d ms",
        rounds, RAPID_RESET_BATCH, (System.nanoTime() - start) / 1_000_000));
  }

  @Test
  void madeYouResetWithWindowUpdateZero() throws Exception {
    scenario(
        "MadeYouReset (CVE-2025-55163): a stream then WINDOW_UPDATE 0 on it (server sends RST PROTOCOL_ERROR)",
        port -> {
          try (RawH2Peer p = connect(port)) {
            p.fencedFlood(FLOOD, perStream(50, id -> concat(endless(id), windowUpdate(id, 0))));
            assertThat(p.resets).containsEntry(1, PROTOCOL_ERROR.code());
            return p.resets.size() + " RST_STREAM(PROTOCOL_ERROR) then " + expectGoAway(p, ENHANCE_YOUR_CALM);
          }
        });
  }

  @Test
  void madeYouResetWithDataOnHalfClosedStreams() throws Exception {
    scenario(
        "MadeYouReset: a request with END_STREAM, then DATA on the half-closed stream (RST STREAM_CLOSED)",
        port -> {
          try (RawH2Peer p = connect(port)) {
            p.fencedFlood(FLOOD,
                perStream(50, id -> concat(wholeRequest(id), data(id, false, new byte[8]))));
            assertThat(p.resets).containsEntry(1, Http2Error.STREAM_CLOSED.code());
            return p.resets.size() + " RST_STREAM(STREAM_CLOSED) then " + expectGoAway(p, ENHANCE_YOUR_CALM);
          }
        });
  }

  @Test
  void madeYouResetWithTheMappingsOwnResets() throws Exception {
    scenario(
        "MadeYouReset: " + selfResetDescription(),
        port -> {
          try (RawH2Peer p = connect(port)) {
            p.fencedFlood(FLOOD, perStream(50, this::selfResetRequest));
            assertThat(p.resets).containsEntry(1, PROTOCOL_ERROR.code());
            return p.resets.size() + " RST_STREAM(PROTOCOL_ERROR) then " + expectGoAway(p, ENHANCE_YOUR_CALM);
          }
        });
  }

  // ---- CONTINUATION ------------------------------------------------------------------------------

  @Test
  void continuationFlood() throws Exception {
    byte[] kib = new byte[1024];
    scenario(
        "CONTINUATION flood: HEADERS without END_HEADERS, then 1 KiB CONTINUATIONs (VU#421644)",
        port -> {
          try (RawH2Peer p = connect(port)) {
            // 12 KiB: past netty's cut-off (1.25 times the 8 KiB header list limit). All in one
            // write, so the server has read it all when it closes (else the close would be a
            // reset, which can discard its GOAWAY before the attacker reads it).
            p.send(concat(frame(HEADERS, 0, 1, requestHeaderBlock()),
                repeat(12, i -> frame(CONTINUATION, 0, 1, kib))));
            return expectGoAway(p, PROTOCOL_ERROR);
          }
        });
    scenario(
        "CONTINUATION flood: zero-length CONTINUATIONs (CVE-2026-33871)",
        port -> {
          try (RawH2Peer p = connect(port)) {
            p.send(concat(frame(HEADERS, 0, 1, requestHeaderBlock()),
                repeat(20, i -> frame(CONTINUATION, 0, 1, new byte[0]))));
            return expectGoAway(p, ENHANCE_YOUR_CALM);
          }
        });
  }

  // ---- floods from a peer that never reads ------------------------------------------------------

  @Test
  void settingsFloodWithoutReading() throws Exception {
    scenario(
        "SETTINGS flood, never reads (CVE-2019-9515)",
        port -> {
          try (RawH2Peer p = connectNeverReading(port)) {
            p.flood(FLOOD, false, round -> repeat(1000, i -> settings(SETTINGS_INITIAL_WINDOW_SIZE, 65535)));
            return expectCut(p);
          }
        });
  }

  @Test
  void pingFloodWithoutReading() throws Exception {
    scenario(
        "PING flood, never reads (CVE-2019-9512)",
        port -> {
          try (RawH2Peer p = connectNeverReading(port)) {
            p.flood(FLOOD, false, round -> repeat(1000, i -> ping(false, round * 1000L + i)));
            return expectCut(p);
          }
        });
  }

  @Test
  void resetFloodWithoutReading() throws Exception {
    scenario(
        "RST_STREAM flood after HEADERS, never reads (CVE-2019-9514)",
        port -> {
          try (RawH2Peer p = connectNeverReading(port)) {
            p.flood(FLOOD, false, perStream(100, id -> concat(endless(id), rstStream(id, Http2Error.CANCEL))));
            return expectCut(p);
          }
        });
  }

  @Test
  void notFoundFloodWithoutReading() throws Exception {
    byte[] block = notFoundBlock();
    scenario(
        "404 flood (each answered with HEADERS + RST_STREAM(NO_ERROR)), never reads",
        port -> {
          try (RawH2Peer p = connectNeverReading(port)) {
            p.flood(FLOOD, false, perStream(200, id -> headers(id, false, block)));
            return expectCut(p);
          }
        });
  }

  /**
   * PINGs on a connection whose one stream the server answered once and then waits on: PINGs
   * count whether or not a stream is open, until the server next sends HEADERS or DATA. The stream
   * mapping's engine hears each PING as a KEEPALIVE and may cut the flood with its own limit (16 a
   * second) first; either way the server ends the connection with a GOAWAY.
   */
  @Test
  void pingFloodWithAStreamOpen() throws Exception {
    scenario(
        "PING flood beside an open stream that gets nothing more (reads every ACK)",
        port -> {
          try (RawH2Peer p = connect(port)) {
            p.send(endless(1));
            p.fencedFlood(FLOOD, round -> repeat(250, i -> ping(false, (1L << 40) + round * 1000L + i)));
            RawH2Peer.GoAway g = p.awaitGoAway(WAIT);
            assertThat(g).as("GOAWAY from the server").isNotNull();
            assertThat(p.awaitClosed(WAIT)).as("server closed the attacker after its GOAWAY").isTrue();
            return g + ", then closed";
          }
        });
  }

  /**
   * Frames netty answers with nothing, each cheap, from a peer that reads: WINDOW_UPDATE on the
   * connection, PRIORITY on idle streams and SETTINGS acks nobody asked for.
   */
  @Test
  void windowUpdatePrioritySettingsAckFlood() throws Exception {
    scenario(
        "WINDOW_UPDATE / PRIORITY / unsolicited SETTINGS ack flood (reads everything)",
        port -> {
          try (RawH2Peer p = connect(port)) {
            p.fencedFlood(FLOOD, round -> repeat(100, i -> concat(
                windowUpdate(0, 1), RawH2Peer.priority(2 * i + 1, 0, 16), RawH2Peer.settingsAck())));
            return expectGoAway(p, ENHANCE_YOUR_CALM);
          }
        });
  }

  @Test
  void emptyDataFlood() throws Exception {
    scenario(
        "empty DATA flood on an open stream (CVE-2019-9518)",
        port -> {
          try (RawH2Peer p = connect(port)) {
            p.send(endless(1));
            p.fencedFlood(FLOOD, round -> repeat(3, i -> data(1, false, new byte[0])));
            return expectGoAway(p, ENHANCE_YOUR_CALM);
          }
        });
  }

  // ---- streams before SETTINGS_ACK, headers ------------------------------------------------------

  @Test
  void streamsOpenedBeforeSettingsAck() throws Exception {
    int refusals = 201; // one more than netty's 200 RST_STREAM per 30 s it may send
    scenario(
        "request-streams up to the cap, then 201 more HEADERS, before acknowledging the server's SETTINGS"
            + " (CVE-2026-47244)",
        port -> {
          try (RawH2Peer p = RawH2Peer.connect(port, 0)) {
            // The preface and every stream in one write: nothing read, the server's SETTINGS never
            // acked. Streams beyond the cap carry HEADERS only: DATA behind a refused HEADERS is a
            // defect of its own (Http2ServerConformanceTest#dataBehindARefusedStreamIsIgnored).
            p.send(concat(PREFACE, settings(),
                repeat(MAX_STREAMS, i -> endless(2 * i + 1)),
                repeat(refusals, i -> openRequest(2 * (MAX_STREAMS + i) + 1))));
            String outcome = expectGoAway(p, ENHANCE_YOUR_CALM);
            for (int id = 1; id < 2 * MAX_STREAMS; id += 2) {
              assertThat(p.resets).as("stream %d is within the cap", id).doesNotContainKey(id);
            }
            long refused = p.resets.values().stream().filter(c -> c == Http2Error.REFUSED_STREAM.code()).count();
            assertThat(refused).as("streams refused").isEqualTo(refusals);
            return MAX_STREAMS + " streams taken (the cap), the next " + refused
                + " refused with RST_STREAM(REFUSED_STREAM), then " + outcome;
          }
        });
  }

  @Test
  void hpackBomb() throws Exception {
    // One 4,000-byte field enters the dynamic table, then 3,000 one-byte references to it: an
    // 8 KiB block that decodes to 12 MB.
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.writeBytes(requestHeaderBlock());
    b.writeBytes(Hpack.indexedLiteral("x-bomb", "b".repeat(4000)));
    for (int i = 0; i < 3000; i++) {
      b.writeBytes(Hpack.indexed(62));
    }
    byte[] block = b.toByteArray();
    scenario(
        "HPACK bomb: an 8 KiB header block decoding to 12 MB, on stream after stream",
        port -> {
          try (RawH2Peer p = connect(port)) {
            p.fencedFlood(FLOOD, perStream(50, id -> headers(id, false, block)));
            assertThat(p.status(1)).as(":status of the first bomb").isEqualTo("431");
            return "431 on each stream, then " + expectGoAway(p, ENHANCE_YOUR_CALM);
          }
        });
  }

  @Test
  void oversizeHeaderList() throws Exception {
    List<String> fields = new ArrayList<>(List.of(requestFields()));
    fields.addAll(List.of("x-big", "x".repeat(12_000)));
    byte[] big = headers(1, false, Hpack.block(fields.toArray(new String[0])));
    scenario(
        "oversize header list: 12 KB of headers (limit 8 KiB, netty's connection limit 10 KiB)",
        port -> {
          try (RawH2Peer p = connect(port)) {
            p.send(big);
            return expectGoAway(p, PROTOCOL_ERROR);
          }
        });
  }

  // ---- flow control -------------------------------------------------------------------------------

  @Test
  void zeroWindowThatNeverOpens() throws Exception {
    scenario(
        "zero window: endless request-stream, reads everything but never sends WINDOW_UPDATE",
        port -> {
          try (RawH2Peer p = connect(port)) {
            p.send(firehose(1));
            return expectWriteStall(p);
          }
        });
    scenario(
        "zero window: SETTINGS_INITIAL_WINDOW_SIZE 0, 256 endless request-streams, never a WINDOW_UPDATE",
        port -> {
          try (RawH2Peer p = RawH2Peer.handshake(port, SETTINGS_INITIAL_WINDOW_SIZE, 0)) {
            p.send(repeat(MAX_STREAMS, i -> firehose(2 * i + 1)));
            return expectWriteStall(p);
          }
        });
  }

  /**
   * The server's output queued behind a closed window: it closes the connection at its write-stall
   * timeout, telling the attacker (who reads) with a GOAWAY.
   */
  String expectWriteStall(RawH2Peer p) throws Exception {
    String cause = server.awaitCloseCause(p.localPort);
    assertThat(cause).as("server's close cause").isNotNull().contains("write stall");
    assertThat(p.awaitClosed(WAIT)).as("server closed the attacker").isTrue();
    long data = p.dataBytes.values().stream().mapToLong(Long::longValue).sum();
    assertThat(data).as("DATA bytes beyond the windows").isLessThanOrEqualTo(65_535);
    assertThat(p.goAway).as("GOAWAY before the close").isNotNull();
    return data + " DATA bytes (the windows), then " + p.goAway + ", closed; server: "
        + cause.replace("io.sluice.exceptions.ConnectionErrorException: ", "");
  }

  // ---- connection phase ---------------------------------------------------------------------------

  @Test
  void noPrefaceAndDribbledPreface() throws Exception {
    // Both kinds at once, on the listener with the short preface deadline: one wait, not two.
    byte[] preface = dribbledPreface();
    scenario(
        server.deadlinePort,
        "200 connections that never send the preface, and 100 dribbling it a byte every 100 ms, at once",
        port -> slowConnections(port, new int[] {200, 100}, new byte[][] {new byte[0], preface}));
  }

  /**
   * A preface to dribble a byte every 100 ms (or slower) for longer than twice the preface
   * deadline, all but its last byte: the magic and a first SETTINGS long enough (one setting
   * repeated, which HTTP/2 allows). A deadline that restarted on each byte would never cut it
   * while it dribbles; {@link #slowConnections} wants each cut before it sent all it would.
   */
  static byte[] dribbledPreface() {
    long bytes = 2 * SHORT_PREFACE.toMillis() / 100 + 20; // past twice the deadline, with margin
    int pairs = (int) Math.max(0, (bytes - PREFACE.length - 9 + 5) / 6);
    int[] idValuePairs = new int[2 * pairs];
    for (int i = 0; i < pairs; i++) {
      idValuePairs[2 * i] = SETTINGS_INITIAL_WINDOW_SIZE;
      idValuePairs[2 * i + 1] = 65_535;
    }
    byte[] preface = concat(PREFACE, settings(idValuePairs));
    assertThat((preface.length - 1) * 100L).isGreaterThan(2 * SHORT_PREFACE.toMillis());
    return preface;
  }

  /**
   * Opens {@code count} connections that send {@code bytes} a byte every 100 ms, never the last;
   * each must be closed by the server (its preface deadline) with nothing but its SETTINGS sent,
   * and before it sent all but the last byte (a dribble outlasting the deadline must not hold it).
   */
  static String slowConnections(int port, int count, byte[] bytes) throws Exception {
    return slowConnections(port, new int[] {count}, new byte[][] {bytes});
  }

  /**
   * {@link #slowConnections(int, int, byte[])} for several groups at once: {@code counts[g]}
   * connections sending {@code bytes[g]}; every connection of every group must be cut.
   */
  static String slowConnections(int port, int[] counts, byte[][] groupBytes) throws Exception {
    List<SocketChannel> slow = new ArrayList<>();
    List<byte[]> bytesOf = new ArrayList<>();
    List<Integer> groupOf = new ArrayList<>();
    try {
      for (int g = 0; g < counts.length; g++) {
        for (int i = 0; i < counts[g]; i++) {
          SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
          ch.configureBlocking(false);
          slow.add(ch);
          bytesOf.add(groupBytes[g]);
          groupOf.add(g);
        }
      }
      int count = slow.size();
      int[] sent = new int[count];
      boolean[] cut = new boolean[count];
      long[] read = new long[count];
      int cutCount = 0;
      ByteBuffer in = ByteBuffer.allocate(1024);
      long end = System.nanoTime() + WAIT.toNanos(); // hang guard
      while (cutCount < count && System.nanoTime() < end) {
        for (int i = 0; i < count; i++) {
          if (cut[i]) {
            continue;
          }
          SocketChannel ch = slow.get(i);
          int n;
          try {
            in.clear();
            n = ch.read(in);
            if (n > 0) {
              read[i] += n;
            } else if (n == 0 && sent[i] < bytesOf.get(i).length - 1) {
              ch.write(ByteBuffer.wrap(bytesOf.get(i), sent[i], 1));
              sent[i]++;
            }
          } catch (IOException e) {
            n = -1;
          }
          if (n < 0) {
            cut[i] = true;
            cutCount++;
          }
        }
        RawH2Peer.sleep(100);
      }
      long[] maxRead = new long[counts.length];
      int[] cutOf = new int[counts.length];
      int[] maxSent = new int[counts.length];
      for (int i = 0; i < count; i++) {
        int g = groupOf.get(i);
        maxRead[g] = Math.max(maxRead[g], read[i]);
        cutOf[g] += cut[i] ? 1 : 0;
        maxSent[g] = Math.max(maxSent[g], sent[i]);
      }
      for (int g = 0; g < counts.length; g++) {
        if (groupBytes[g].length > 1) {
          // Cut while it dribbled: a deadline restarting on each byte lets it send them all.
          assertThat(maxSent[g]).as("bytes a dribbling connection sent before its cut (group %d)", g)
              .isLessThan(groupBytes[g].length - 1);
        }
      }
      StringBuilder outcome = new StringBuilder();
      for (int g = 0; g < counts.length; g++) {
        assertThat(cutOf[g]).as("slow connections cut off (group %d)", g).isEqualTo(counts[g]);
        // The server's SETTINGS (and nothing that answers a frame: none arrived whole).
        assertThat(maxRead[g]).as("bytes the server sent a slow connection (group %d)", g).isLessThan(100);
        outcome.append(outcome.length() > 0 ? "; " : "").append(cutOf[g]).append('/').append(counts[g])
            .append(" closed at the preface deadline (").append(SHORT_PREFACE.toSeconds())
            .append(" s), the server sent each at most ").append(maxRead[g])
            .append(" bytes").append(maxRead[g] > 0 ? " (its SETTINGS)" : "")
            .append(groupBytes[g].length > 1
                ? ", each cut after at most " + maxSent[g] + " of its " + groupBytes[g].length + " bytes"
                : "");
      }
      assertThat(cutCount).as("slow connections cut off").isEqualTo(count);
      return outcome.toString();
    } finally {
      for (SocketChannel ch : slow) {
        ch.close();
      }
    }
  }
}
