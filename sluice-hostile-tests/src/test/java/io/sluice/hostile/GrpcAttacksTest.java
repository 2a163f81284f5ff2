package io.sluice.hostile;

import static io.sluice.hostile.GrpcFrames.call;
import static io.sluice.hostile.GrpcFrames.dataFrames;
import static io.sluice.hostile.GrpcFrames.message;
import static io.sluice.hostile.GrpcFrames.prefix;
import static io.sluice.transport.http2.RawH2Peer.SETTINGS_INITIAL_WINDOW_SIZE;
import static io.sluice.transport.http2.RawH2Peer.concat;
import static io.sluice.transport.http2.RawH2Peer.data;
import static io.sluice.transport.http2.RawH2Peer.repeat;
import static io.sluice.transport.http2.RawH2Peer.windowUpdate;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import com.google.protobuf.StringValue;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.http2.RawH2Peer;
import io.sluice.transport.http2.RawH2Peer.Hpack;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * Attacks only a gRPC server meets (issue 22 item 8), from a raw HTTP/2 client against a {@link
 * io.sluice.transport.grpc.GrpcServer} (h2c, its defaults) in the suite's
 * small-heap child JVM, while grpc-java ({@link GoodGrpcClient}) makes a unary and a 100-message
 * server-streaming call on its own connection: gzip bombs, oversize and lying message prefixes,
 * 1-byte DATA frames, thousands of headers, zero, tiny and garbage {@code grpc-timeout}s, unknown
 * encodings, gRPC-Web and HTTP/JSON bodies that never end on every stream of a connection, ten thousand calls opened and abandoned, and callers that never read what they asked
 * for (endless server streams, calls answered at once). Each checks bounded memory and no leak (the base class), the {@code grpc-status} the
 * attacker got on each of its calls, and, where the attack leaves it open, that the attacker's own
 * connection still answers a good call.
 */
class GrpcAttacksTest extends HostileTestBase {
  static final Duration WAIT = Duration.ofSeconds(30);
  static final int MAX_FRAME = 16_384;
  static final int MESSAGE_LIMIT = 16 << 20; // GrpcServices' default
  static final String OK = "0";
  static final String DEADLINE_EXCEEDED = "4";
  static final String RESOURCE_EXHAUSTED = "8";
  static final String UNIMPLEMENTED = "12";
  static final String INTERNAL = "13";
  /**
   * The longest a peer that never reads floods answered calls (a hang guard). The server must end
   * such a flood by itself well before: by stopping reading it ({@link #HELD}), from when on it
   * cannot grow what the server holds, or by cutting it, at its write-stall timeout (the default
   * 30 s here) once the answers it cannot send stop moving, or sooner by one of its HTTP/2 bounds.
   * Trailers-only answers are small: the kernel's buffers take them for a while before the
   * server's output starts to wait, hence more than the timeout; on a loaded machine the kernel
   * can still be taking them at this guard, which {@link #expectCutOrHeld} allows within what its
   * buffers hold (a clean-clone CI run read 1,350 batches in 90 s so; quieter runs were cut after
   * 1,406 batches in 38 to 72 s, or held after about 150).
   */
  static final Duration NEVER_READING_FLOOD = Duration.ofSeconds(90);

  /**
   * How long nothing must move (the flood's next batch not taken, the server's Count calls not
   * sending) for the server to count as holding a peer that never reads: it has stopped reading
   * from it, or writing to it, and waits for the peer to read.
   */
  static final Duration HELD = Duration.ofMillis(750);
  /** What a call opened and abandoned may cost the server (its stream, call and handler state). */
  static final long MAX_HEAP_PER_CALL = 2048;

  @Override
  String[] serverOptions() {
    return new String[] {"transport=grpc", PREFACE_TIMEOUT};
  }

  @Override
  ClientTransport wellBehavedTransport(int port) {
    throw new UnsupportedOperationException("the well-behaved client is grpc-java");
  }

  @Override
  void wellBehavedClient(int port) {
    GoodGrpcClient.serve(port);
  }

  @Override
  String rowPrefix() {
    return "gRPC: ";
  }

  // ---- helpers ----------------------------------------------------------------------------------

  /**
   * Connects with the stream and connection windows opened to 1 GiB, so that responses (and the
   * trailers queued behind them) are never held by this peer's flow control: it reads, but never
   * sends a WINDOW_UPDATE of its own.
   */
  static RawH2Peer handshake(int port) throws IOException {
    RawH2Peer p = RawH2Peer.handshake(port, SETTINGS_INITIAL_WINDOW_SIZE, 1 << 30);
    p.send(windowUpdate(0, (1 << 30) - 65_535));
    return p;
  }

  static byte[] stringValue(String v) {
    return StringValue.of(v).toByteArray();
  }

  /** A whole unary call of Unary ("hello") on {@code id}. */
  static byte[] goodCall(int id) {
    return concat(call(id, false, "Unary"), data(id, true, message(false, stringValue("hello"))));
  }

  /**
   * Sends {@code calls} (stream ids 1, 3, 5... in batches of {@code perBatch}, each batch fenced by
   * a PING) and waits for the grpc-status of each; returns how many calls got each status.
   */
  static Map<String, Integer> statuses(RawH2Peer p, int calls, int perBatch, IntFunction<byte[]> call)
      throws IOException {
    int sent = 0;
    while (sent < calls) {
      int from = sent;
      int n = Math.min(perBatch, calls - sent);
      p.send(repeat(n, i -> call.apply(2 * (from + i) + 1)));
      assertThat(p.pingFence(from)).as("the server answers a PING after %d calls", from + n).isTrue();
      sent += n;
    }
    p.await(q -> outcomes(q, calls).values().stream().noneMatch(o -> o.equals("none")), WAIT);
    Map<String, Integer> got = new TreeMap<>();
    outcomes(p, calls).values().forEach(o -> got.merge(o, 1, Integer::sum));
    return got;
  }

  /** By stream: its grpc-status, else {@code RST_STREAM(<code>)}, else "none". */
  static Map<Integer, String> outcomes(RawH2Peer p, int calls) {
    Map<Integer, String> o = new TreeMap<>();
    for (int i = 0; i < calls; i++) {
      int id = 2 * i + 1;
      String s = p.trailer(id, "grpc-status");
      Long reset = p.resets.get(id);
      o.put(id, s != null ? s : reset != null ? "RST_STREAM(" + RawH2Peer.name(reset) + ")" : "none");
    }
    return o;
  }

  /** The attacker's own connection still serves a good call, on stream {@code id}. */
  static String stillServes(RawH2Peer p, int id) throws IOException {
    p.send(goodCall(id));
    p.await(q -> q.trailer(id, "grpc-status") != null, WAIT);
    assertThat(p.trailer(id, "grpc-status")).as("a good call on the attacker's connection").isEqualTo(OK);
    return "a good call on the same connection then OK";
  }

  static String grpcMessage(RawH2Peer p, int id) {
    String m = p.trailer(id, "grpc-message");
    return m == null ? "" : " \"" + m + "\"";
  }

  // ---- compression ------------------------------------------------------------------------------

  @Test
  void gzipBomb() throws Exception {
    // A BytesValue of 64 MiB of zeros gzipped to about 64 KiB: it inflates to 4 times the limit.
    byte[] inflated = BytesValue.of(ByteString.copyFrom(new byte[64 << 20])).toByteArray();
    byte[] bomb = message(true, GrpcFrames.gzip(inflated));
    int calls = 32;
    scenario(
        "gzip bomb: " + (bomb.length >> 10) + " KiB of gzip inflating to 64 MiB (limit 16 MiB), " + calls
            + " calls on one connection",
        port -> {
          try (RawH2Peer p = handshake(port)) {
            Map<String, Integer> got = statuses(p, calls, 4, id -> concat(
                call(id, false, "Size", "grpc-encoding", "gzip"), dataFrames(id, bomb, MAX_FRAME, true)));
            assertThat(got).as("grpc-status of each bomb").isEqualTo(Map.of(RESOURCE_EXHAUSTED, calls));
            return calls + " x RESOURCE_EXHAUSTED" + grpcMessage(p, 1) + "; " + stillServes(p, 2 * calls + 1);
          }
        });
  }

  @Test
  void gzipBombsFromManyConnectionsAtOnce() throws Exception {
    byte[] inflated = BytesValue.of(ByteString.copyFrom(new byte[64 << 20])).toByteArray();
    byte[] bomb = message(true, GrpcFrames.gzip(inflated));
    int connections = 8;
    int calls = 8;
    scenario(
        "gzip bombs from " + connections + " connections at once, " + calls + " calls each (each inflates to 4 times"
            + " the 16 MiB limit)",
        port -> {
          List<java.util.concurrent.CompletableFuture<Map<String, Integer>>> all = new ArrayList<>();
          for (int c = 0; c < connections; c++) {
            all.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> {
              try (RawH2Peer p = handshake(port)) {
                return statuses(p, calls, calls, id -> concat(
                    call(id, false, "Size", "grpc-encoding", "gzip"), dataFrames(id, bomb, MAX_FRAME, true)));
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            }));
          }
          for (java.util.concurrent.CompletableFuture<Map<String, Integer>> f : all) {
            assertThat(f.join()).as("grpc-status of each bomb").isEqualTo(Map.of(RESOURCE_EXHAUSTED, calls));
          }
          ServerProcess.Stats s = server.stats();
          return connections * calls + " x RESOURCE_EXHAUSTED; server peak heap "
              + String.format("%.1f MiB", s.peakHeap() / 1048576.0) + " (of 256), no OutOfMemoryError";
        });
  }

  @Test
  void unknownEncodings() throws Exception {
    String[] names = {"br", "deflate", "snappy", "GZIP", "x-" + "e".repeat(2000)};
    int calls = 50;
    scenario(
        "unknown grpc-encoding (br, deflate, snappy, GZIP, a 2 KB name), " + calls + " calls",
        port -> {
          try (RawH2Peer p = handshake(port)) {
            Map<String, Integer> got = statuses(p, calls, 10, id -> concat(
                call(id, false, "Size", "grpc-encoding", names[(id / 2) % names.length]),
                data(id, true, message(true, GrpcFrames.gzip(new byte[16])))));
            assertThat(got).as("grpc-status of each call").isEqualTo(Map.of(UNIMPLEMENTED, calls));
            String accept = p.headers.get(1).get(0).get("grpc-accept-encoding").toString();
            assertThat(accept).as("grpc-accept-encoding of the refusal").contains("gzip");
            return calls + " x UNIMPLEMENTED" + grpcMessage(p, 1) + ", grpc-accept-encoding: " + accept + "; "
                + stillServes(p, 2 * calls + 1);
          }
        });
  }

  // ---- message prefixes -------------------------------------------------------------------------

  @Test
  void oversizeMessageDeclaredInThePrefix() throws Exception {
    long[] declared = {MESSAGE_LIMIT + 1L, 1L << 30, 0xFFFF_FFFFL};
    int calls = 60;
    scenario(
        "oversize messages declared in the prefix (16 MiB + 1, 1 GiB, 4 GiB - 1), no body sent, " + calls
            + " calls",
        port -> {
          try (RawH2Peer p = handshake(port)) {
            // Only the prefix: an answer proves the server refused before reading the body.
            Map<String, Integer> got = statuses(p, calls, 10, id -> concat(
                call(id, false, "Size"), data(id, false, prefix(false, declared[(id / 2) % declared.length]))));
            assertThat(got).as("grpc-status of each call").isEqualTo(Map.of(RESOURCE_EXHAUSTED, calls));
            return calls + " x RESOURCE_EXHAUSTED" + grpcMessage(p, 1) + " with the body never sent; "
                + stillServes(p, 2 * calls + 1);
          }
        });
  }

  @Test
  void lengthPrefixLies() throws Exception {
    int calls = 100;
    scenario(
        "length prefix lies: declares 1 MiB, sends 10 bytes, then END_STREAM, " + calls + " calls",
        port -> {
          try (RawH2Peer p = handshake(port)) {
            Map<String, Integer> got = statuses(p, calls, 20, id -> concat(
                call(id, false, "Size"), data(id, true, concat(prefix(false, 1 << 20), new byte[10]))));
            assertThat(got).as("grpc-status of each call").isEqualTo(Map.of(INTERNAL, calls));
            return calls + " x INTERNAL" + grpcMessage(p, 1) + "; " + stillServes(p, 2 * calls + 1);
          }
        });
    scenario(
        "length prefix lies: declares 1 MiB, sends 10 bytes, then nothing, on 250 calls",
        port -> {
          try (RawH2Peer p = handshake(port)) {
            p.send(repeat(250, i -> concat(
                call(2 * i + 1, false, "Size"), data(2 * i + 1, false, concat(prefix(false, 1 << 20), new byte[10])))));
            assertThat(p.pingFence(1)).isTrue();
            long open = server.stats().streams();
            assertThat(open).as("calls open at the server").isGreaterThanOrEqualTo(250);
            return "250 calls left open holding 10 bytes each (server: " + open + " calls open); "
                + stillServes(p, 501);
          }
        });
  }

  @Test
  void messagesAtTheLimitOnEveryStream() throws Exception {
    int streams = 64;
    int each = 4 << 20;
    byte[] chunk = new byte[MAX_FRAME];
    scenario(
        "messages at the limit on " + streams + " streams of one connection: each declares 16 MiB, sends 4 MiB,"
            + " never ends",
        port -> {
          try (RawH2Peer p = handshake(port)) {
            p.send(repeat(streams, i -> concat(call(2 * i + 1, false, "Size"),
                data(2 * i + 1, false, prefix(false, MESSAGE_LIMIT)))));
            long sent = 0;
            // Rounds of 16 KiB on each stream still reading, each fenced by a PING so that no DATA
            // is sent to a stream the server has ended (it would answer RST_STREAM(STREAM_CLOSED)).
            for (int k = 0; k < each / MAX_FRAME; k++) {
              List<byte[]> round = new ArrayList<>();
              for (int i = 0; i < streams; i++) {
                int id = 2 * i + 1;
                if (!p.resets.containsKey(id) && p.trailer(id, "grpc-status") == null) {
                  round.add(data(id, false, chunk));
                  sent += MAX_FRAME;
                }
              }
              assertThat(p.trySend(concat(round.toArray(new byte[0][])))).as("sent round %d", k).isTrue();
              assertThat(p.pingFence(1000 + k)).as("PING after round %d (GOAWAY: %s)", k, p.goAway).isTrue();
            }
            assertThat(p.pingFence(1)).as("the server answers a PING").isTrue();
            Map<String, Integer> got = new TreeMap<>();
            outcomes(p, streams).values().forEach(o -> got.merge(o, 1, Integer::sum));
            // The connection's budget (twice the 16 MiB limit) holds at most 8 messages of 4 MiB.
            assertThat(got.getOrDefault(RESOURCE_EXHAUSTED, 0)).as("calls cut (%s)", got)
                .isGreaterThanOrEqualTo(streams - 8);
            String cut = null;
            for (int i = 0; i < streams && cut == null; i++) {
              cut = p.trailer(2 * i + 1, "grpc-message");
            }
            assertThat(cut).contains("being read on this connection would hold more than 33554432 bytes");
            // The calls still reading hold the budget: even a small call on this connection is cut.
            int good = 2 * streams + 1;
            p.send(goodCall(good));
            p.await(q -> q.trailer(good, "grpc-status") != null, WAIT);
            assertThat(p.trailer(good, "grpc-status")).as("a good call on the attacker's connection")
                .isEqualTo(RESOURCE_EXHAUSTED);
            return (sent >> 20) + " MiB sent; " + got + " (8 = RESOURCE_EXHAUSTED \"" + cut
                + "\", none = still reading); a good call on the same connection then RESOURCE_EXHAUSTED too"
                + " (the budget is that connection's)";
          }
        });
  }

  /**
   * The request bodies of gRPC-Web and HTTP/JSON calls count against the same budget as gRPC's
   * messages: 64 streams of one connection each send a 4 MiB body that never ends.
   */
  @Test
  void grpcWebAndJsonBodiesAtTheLimitOnEveryStream() throws Exception {
    String[] types = {"application/grpc-web+proto", "application/json"};
    for (String type : types) {
      boolean json = type.equals("application/json");
      scenario(
          (json ? "HTTP/JSON" : "gRPC-Web") + " bodies on 64 streams of one connection: each sends 4 MiB, never ends",
          port -> bodiesThatNeverEnd(port, type, json));
    }
  }

  private String bodiesThatNeverEnd(int port, String type, boolean json) throws IOException {
    int streams = 64;
    int each = 4 << 20;
    byte[] chunk = new byte[MAX_FRAME];
    java.util.Arrays.fill(chunk, (byte) 'A'); // base64 letters: the inside of a JSON BytesValue
    // gRPC-Web: a message prefix declaring the limit; JSON: a string that is never closed.
    byte[] start = json ? new byte[] {'"'} : prefix(false, MESSAGE_LIMIT);
    try (RawH2Peer p = handshake(port)) {
      p.send(repeat(streams, i -> concat(
          RawH2Peer.headers(2 * i + 1, false, Hpack.block(GrpcFrames.webFields("Size", type))),
          data(2 * i + 1, false, start))));
      long sent = 0;
      // Rounds of 16 KiB on each stream not answered yet, each fenced by a PING (as above).
      for (int k = 0; k < each / MAX_FRAME; k++) {
        List<byte[]> round = new ArrayList<>();
        for (int i = 0; i < streams; i++) {
          int id = 2 * i + 1;
          if (!p.resets.containsKey(id) && p.status(id) == null) {
            round.add(data(id, false, chunk));
            sent += MAX_FRAME;
          }
        }
        if (round.isEmpty()) {
          break;
        }
        assertThat(p.trySend(concat(round.toArray(new byte[0][])))).as("sent round %d", k).isTrue();
        assertThat(p.pingFence(1000 + k)).as("PING after round %d (GOAWAY: %s)", k, p.goAway).isTrue();
      }
      Map<String, Integer> got = new TreeMap<>();
      outcomes(p, streams).values().forEach(o -> got.merge(o, 1, Integer::sum));
      // The connection's budget (twice the 16 MiB limit) holds at most 8 bodies of 4 MiB.
      assertThat(got.getOrDefault(RESOURCE_EXHAUSTED, 0)).as("calls refused (%s)", got)
          .isGreaterThanOrEqualTo(streams - 8);
      String status = p.status(1) != null ? p.status(1) : p.status(3);
      assertThat(p.goAway).as("GOAWAY").isNull();
      return (sent >> 20) + " MiB sent; " + got + " (8 = RESOURCE_EXHAUSTED" + (json ? ", :status " + status : "")
          + ", none = still sending, held); the connection stays open";
    }
  }

  @Test
  void messagesInOneByteDataFrames() throws Exception {
    byte[] body = BytesValue.of(ByteString.copyFrom(new byte[16 << 10])).toByteArray();
    byte[] framed = message(false, body);
    int calls = 8;
    scenario(
        "a 16 KiB message in " + framed.length + " one-byte DATA frames, " + calls + " calls",
        port -> {
          try (RawH2Peer p = handshake(port)) {
            Map<String, Integer> got =
                statuses(p, calls, 1, id -> concat(call(id, false, "Size"), dataFrames(id, framed, 1, true)));
            assertThat(got).as("grpc-status of each call").isEqualTo(Map.of(OK, calls));
            return calls + " x OK (each message read whole); " + stillServes(p, 2 * calls + 1);
          }
        });
  }

  // ---- metadata ---------------------------------------------------------------------------------

  @Test
  void thousandsOfHeadersAndHugeValues() throws Exception {
    scenario(
        "5,000 metadata entries (a 5 KB block referring to one table entry; 165 KB as a header list)",
        port -> {
          try (RawH2Peer p = handshake(port)) {
            java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
            b.writeBytes(Hpack.block(GrpcFrames.fields("Unary")));
            b.writeBytes(Hpack.indexedLiteral("x-h", ""));
            for (int i = 0; i < 5000; i++) {
              b.writeBytes(Hpack.indexed(62));
            }
            p.send(RawH2Peer.headers(1, false, b.toByteArray()));
            p.await(q -> q.status(1) != null, WAIT);
            assertThat(p.status(1)).as(":status").isEqualTo("431");
            return ":status 431 (the 8 KiB header list limit); " + stillServes(p, 3);
          }
        });
    String big = "v".repeat(7000);
    String badBase64 = "!".repeat(7000);
    scenario(
        "huge metadata values within the 8 KiB list: a 7 KB value, a 7 KB -bin value that is not base64",
        port -> {
          try (RawH2Peer p = handshake(port)) {
            Map<String, Integer> got = statuses(p, 100, 10, id -> concat(
                call(id, false, "Unary", id % 4 == 1 ? "x-big" : "x-big-bin", id % 4 == 1 ? big : badBase64),
                data(id, true, message(false, stringValue("hello")))));
            assertThat(got).as("grpc-status of each call").isEqualTo(Map.of(OK, 100));
            return "100 x OK (the bad -bin value is dropped); " + stillServes(p, 201);
          }
        });
  }

  // ---- deadlines --------------------------------------------------------------------------------

  @Test
  void zeroTinyAndGarbageTimeouts() throws Exception {
    // value -> the status it must get
    Map<String, String> timeouts = new LinkedHashMap<>();
    timeouts.put("0n", DEADLINE_EXCEEDED);
    timeouts.put("0H", DEADLINE_EXCEEDED);
    timeouts.put("1n", DEADLINE_EXCEEDED);
    timeouts.put("1u", DEADLINE_EXCEEDED);
    timeouts.put("abc", INTERNAL);
    timeouts.put("-1S", INTERNAL);
    timeouts.put("123456789S", INTERNAL);
    timeouts.put("1", INTERNAL);
    timeouts.put("S", INTERNAL);
    timeouts.put("1 S", INTERNAL);
    timeouts.put("9".repeat(4000) + "n", INTERNAL);
    List<String> values = new ArrayList<>(timeouts.keySet());
    int calls = 11 * 20;
    scenario(
        "grpc-timeout zero (0n, 0H), tiny (1n, 1u) and garbage (abc, -1S, 9 digits, no unit, 4 KB), "
            + calls + " calls of an endless stream",
        port -> {
          try (RawH2Peer p = handshake(port)) {
            Map<String, Integer> expected = new TreeMap<>();
            for (int i = 0; i < calls; i++) {
              expected.merge(timeouts.get(values.get(i % values.size())), 1, Integer::sum);
            }
            Map<String, Integer> got = statuses(p, calls, 11, id -> concat(
                call(id, false, "Count", "grpc-timeout", values.get((id / 2) % values.size())),
                data(id, true, message(false, stringValue("forever")))));
            Map<String, String> byTimeout = new TreeMap<>();
            outcomes(p, calls).forEach((id, o) -> byTimeout.merge(
                values.get((id / 2) % values.size()).substring(0, Math.min(12, values.get((id / 2) % values.size()).length())),
                o, (x, y) -> x.equals(y) ? x : x + "," + y));
            assertThat(got).as("grpc-status of the calls (by timeout: %s)", byTimeout).isEqualTo(expected);
            return got + " (4 = DEADLINE_EXCEEDED, 13 = INTERNAL)" + grpcMessage(p, 9) + "; " + stillServes(p, 2 * calls + 1);
          }
        });
  }

  // ---- abandoned calls --------------------------------------------------------------------------

  @Test
  void tenThousandCallsOpenedAndAbandoned() throws Exception {
    int connections = 40;
    int perConnection = 250;
    scenario(
        "10,000 calls opened and abandoned: HEADERS without END_STREAM and never a message, 250 on each of 40"
            + " connections",
        port -> {
          List<RawH2Peer> peers = new ArrayList<>();
          try {
            long before = server.stats().heapAfterGc();
            for (int c = 0; c < connections; c++) {
              RawH2Peer p = handshake(port);
              peers.add(p);
              p.send(repeat(perConnection, i -> call(2 * i + 1, false, "Unary")));
              assertThat(p.pingFence(c)).as("connection %d answers", c).isTrue();
            }
            ServerProcess.Stats s = server.stats();
            assertThat(s.streams()).as("calls open at the server").isGreaterThanOrEqualTo(connections * perConnection);
            for (RawH2Peer p : peers) {
              assertThat(p.goAway).isNull();
            }
            long perCall = (s.heapAfterGc() - before) / (connections * perConnection);
            assertThat(perCall).as("heap bytes per abandoned call").isLessThanOrEqualTo(MAX_HEAP_PER_CALL);
            String served = stillServes(peers.get(0), 501);
            for (RawH2Peer p : peers) {
              p.close();
            }
            // Gone with their connections: the server cancels them (poll with a hang guard).
            long left = s.streams();
            long end = System.nanoTime() + WAIT.toNanos();
            while (left > 2 && System.nanoTime() < end) { // 2: the well-behaved client's calls
              RawH2Peer.sleep(200);
              left = server.stats().streams();
            }
            assertThat(left).as("calls still open once their connections closed").isLessThanOrEqualTo(2);
            return s.streams() + " calls open at once, " + perCall + " bytes of heap each (after GC); " + served
                + "; the calls end as their connections close";
          } finally {
            for (RawH2Peer p : peers) {
              p.close();
            }
          }
        });
  }

  @Test
  void answeredCallsFloodWithoutReading() throws Exception {
    byte[] unknown = RawH2Peer.Hpack.block(GrpcFrames.fieldsFor("/sluice.hostile.Nowhere/Method"));
    scenario(
        "calls of an unknown method with END_STREAM (each answered trailers-only, no RST_STREAM), never reads",
        port -> {
          try (RawH2Peer p = RawH2Peer.connect(port, Http2AttacksTest.SMALL_RCVBUF)) {
            p.send(concat(RawH2Peer.PREFACE, RawH2Peer.settings()));
            HeldFlood flood = new HeldFlood(Http2AttacksTest.perStream(200, id -> RawH2Peer.headers(id, true, unknown)));
            p.flood(NEVER_READING_FLOOD, false, flood, flood::held);
            // Each answer at least a HEADERS frame: its 9-byte header and a byte of block.
            return expectCutOrHeld(p, flood, 200 * 10);
          }
        });
    scenario(
        "unary calls with END_STREAM (each answered: HEADERS, a message, trailers), windows opened to 2^31-1,"
            + " never reads",
        port -> {
          try (RawH2Peer p = RawH2Peer.connect(port, Http2AttacksTest.SMALL_RCVBUF)) {
            p.send(concat(RawH2Peer.PREFACE, RawH2Peer.settings(SETTINGS_INITIAL_WINDOW_SIZE, Integer.MAX_VALUE),
                windowUpdate(0, Integer.MAX_VALUE - 65_535)));
            HeldFlood flood = new HeldFlood(Http2AttacksTest.perStream(100, GrpcAttacksTest::goodCall));
            p.flood(NEVER_READING_FLOOD, false, flood, flood::held);
            // Each answer at least HEADERS and trailers (10 bytes each) and a DATA frame with the
            // message's 5-byte prefix (14).
            return expectCutOrHeld(p, flood, 100 * 34);
          }
        });
  }

  /**
   * A flood's batches, noting when the flood last took one: a flood from a peer that never reads
   * takes the next batch only once the server has read enough of the last one.
   */
  static final class HeldFlood implements RawH2Peer.BatchSource {
    private final RawH2Peer.BatchSource batches;
    private volatile long lastTaken = System.nanoTime();
    int taken;

    HeldFlood(RawH2Peer.BatchSource batches) {
      this.batches = batches;
    }

    @Override
    public byte[] next(int round) {
      lastTaken = System.nanoTime();
      taken++;
      return batches.next(round);
    }

    /** The server has stopped reading the flood: no batch taken for {@link #HELD}. */
    boolean held(RawH2Peer p) {
      return System.nanoTime() - lastTaken > HELD.toNanos();
    }
  }

  /**
   * A flood from a peer that never reads, which the server must have ended, cut (a write failed,
   * the connection closed) or held (it stopped reading), or else must be taking only as fast as
   * its answers leave: at the flood's hang guard it may still be reading only while what it read
   * is answers the kernel could still take. A server whose answers go into kernel buffers (on
   * Linux a socket's send buffer grows up to tcp_wmem's maximum, 4 MiB by default, while the peer
   * sends window probes, so the pace is the kernel's, and slow on a loaded machine) reads at most
   * {@link #kernelBoundBatches} batches; one that read without waiting for its output would pass
   * that bound within a second. The server's memory stays bounded meanwhile (the base class
   * checks that).
   *
   * @param answerBytesPerBatch the least a batch's answers take on the wire
   */
  private String expectCutOrHeld(RawH2Peer p, HeldFlood flood, int answerBytesPerBatch) {
    ServerProcess.Stats s = server.stats();
    String cause = server.closeCause(p.localPort);
    boolean held = flood.held(p);
    long bound = kernelBoundBatches(answerBytesPerBatch);
    assertThat(p.writeFailed || p.closed || held || flood.taken <= bound)
        .as("the server still reading the flood after %s s: %s batches read, more than the %s whose"
            + " answers the kernel's buffers could hold", NEVER_READING_FLOOD.toSeconds(), flood.taken, bound)
        .isTrue();
    return (p.writeFailed || p.closed ? "cut while flooding after " + flood.taken + " batches"
            : held ? "held: the server stopped reading after " + flood.taken + " batches"
            : "still reading at the hang guard, within what the kernel's buffers hold: " + flood.taken
                + " batches (at most " + bound + ")")
        + "; server peak direct " + String.format("%.1f MiB", s.peakDirect() / 1048576.0)
        + (cause != null ? "; server: " + cause : "");
  }

  /**
   * Twice the batches whose answers (at least {@code answerBytesPerBatch} each) fill the largest
   * send buffer the kernel gives a socket (tcp_wmem's maximum, but never less than Linux's default
   * 4 MiB, which also stands where it cannot be read) and this peer's receive buffer.
   */
  static long kernelBoundBatches(int answerBytesPerBatch) {
    long sendMax = 4L << 20;
    try {
      String[] wmem = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/net/ipv4/tcp_wmem"))
          .trim().split("\\s+");
      sendMax = Math.max(sendMax, Long.parseLong(wmem[wmem.length - 1]));
    } catch (java.io.IOException | RuntimeException e) {
      // not Linux, or not readable: the default maximum
    }
    long receive = 2L * Http2AttacksTest.SMALL_RCVBUF; // the kernel doubles what is asked
    return 2 * ((sendMax + receive) / answerBytesPerBatch + 1);
  }

  @Test
  void serverStreamsNeverRead() throws Exception {
    scenario(
        "one endless server stream, windows opened to 2^31-1, never reads",
        port -> neverReading(port, 1));
    scenario(
        "256 endless server streams on one connection, windows opened to 2^31-1, never reads",
        port -> neverReading(port, 256));
  }

  /**
   * {@code calls} endless Count calls with the stream and connection windows at their maximum, on a
   * connection whose socket receive buffer is small and that never reads; closed once the server
   * has stopped sending (held by the unread socket: it was a fixed 5 s).
   */
  private String neverReading(int port, int calls) throws Exception {
    try (RawH2Peer p = RawH2Peer.connect(port, Http2AttacksTest.SMALL_RCVBUF)) {
      p.send(concat(RawH2Peer.PREFACE, RawH2Peer.settings(SETTINGS_INITIAL_WINDOW_SIZE, Integer.MAX_VALUE),
          windowUpdate(0, Integer.MAX_VALUE - 65_535),
          repeat(calls, i -> concat(call(2 * i + 1, false, "Count"),
              data(2 * i + 1, true, message(false, stringValue("forever")))))));
      long sent = awaitCountHeld();
      ServerProcess.Stats s = server.stats();
      return calls + " calls held (the server stopped sending after " + sent + " messages in all): server peak direct " + String.format("%.1f MiB", s.peakDirect() / 1048576.0)
          + ", peak heap " + String.format("%.1f MiB", s.peakHeap() / 1048576.0);
    }
  }

  /**
   * Waits until the server's Count calls have sent nothing for {@link #HELD} (hang guard {@link
   * #WAIT}); returns the messages they sent in all. A server that kept answering a peer that never
   * reads would never get there.
   */
  private long awaitCountHeld() {
    long end = System.nanoTime() + WAIT.toNanos();
    long last = server.stats().get("countSent");
    long since = System.nanoTime();
    while (System.nanoTime() - since < HELD.toNanos()) {
      assertThat(System.nanoTime()).as("the server still sending after %s s", WAIT.toSeconds()).isLessThan(end);
      RawH2Peer.sleep(HELD.toMillis() / 3);
      long sent = server.stats().get("countSent");
      if (sent != last) {
        last = sent;
        since = System.nanoTime();
      }
    }
    return last;
  }
}
