package io.sluice.hostile;

import static io.sluice.ErrorCode.CONNECTION_ERROR;
import static io.sluice.ErrorCode.INVALID;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.test.FrameBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * Floods, most of them from a peer that never reads (SECURITY-NOTES R6-R9, R11, R13, R14). The
 * server's write-stall timeout is {@link #WRITE_STALL_TIMEOUT} here (default 30 s) to keep the
 * run short.
 */
class FloodAttacksTest extends HostileTestBase {
  private static final Duration FLOOD = Duration.ofSeconds(20);
  private static final int SMALL_RCVBUF = 8 * 1024;

  /** {@code count} frames made by {@code frame(i)} for i from {@code round * count}. */
  private static Attacker.BatchSource batches(int count, IntFunction<byte[]> frame) {
    return round -> {
      List<byte[]> b = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        b.add(frame.apply(round * count + i));
      }
      return Attacker.concat(b);
    };
  }

  /**
   * Whether the server reported that it cut {@code a}'s connection (open when this is called):
   * what ends a flood from a peer that does not read, whose writes fail only once the server gives
   * up on draining its output to it, seconds later.
   */
  private java.util.function.BooleanSupplier cutReported(Attacker a) {
    server.forgetClose(a.localPort);
    return () -> server.closeCause(a.localPort) != null;
  }

  /**
   * For a peer that does not read: the server must close the connection with CONNECTION_ERROR
   * (reported by the server, since an ERROR queued behind unread output never reaches the peer).
   */
  private String expectServerCut(Attacker a, String... anyOf) throws Exception {
    // The server's report first: reading now would make it writable again.
    String cause = server.awaitCloseCause(a.localPort);
    assertThat(a.awaitClosed(Duration.ofSeconds(60))).as("server closed the attacker").isTrue();
    assertThat(cause).as("server's close cause").isNotNull().contains("CONNECTION_ERROR");
    assertThat(anyOf).anySatisfy(part -> assertThat(cause).contains(part));
    Attacker.Error e = a.connectionError();
    return "server: " + cause.replace("ConnectionErrorException ", "")
        + "; attacker read " + (a.bytesRead >> 10) + " KiB, "
        + (e != null ? "then " + e : "no ERROR (still queued behind unread output), then EOF/reset");
  }

  @Test
  void requestResponseFloodWithoutReading() throws Exception {
    byte[] rr = Attacker.prefixed(FrameBuilder.requestResponse(1).data("big").toBytes());
    scenario(
        "R6 request-response flood, never reads",
        port -> {
          try (Attacker a = Attacker.connect(port, SMALL_RCVBUF).setup()) {
            a.flood(FLOOD, false, batches(1000, i -> Attacker.withStreamId(rr, 2 * i + 1)), cutReported(a));
            return expectServerCut(a, "write stall");
          }
        });
  }

  @Test
  void requestStreamWithRequestNFloodWithoutReading() throws Exception {
    byte[] rn = Attacker.prefixed(FrameBuilder.requestN(1, 42).toBytes());
    scenario(
        "R7 request-stream + REQUEST_N(42) flood, never reads",
        port -> {
          try (Attacker a = Attacker.connect(port, SMALL_RCVBUF).setup()) {
            a.sendFully(Attacker.prefixed(FrameBuilder.requestStream(1, 1).data("forever").toBytes()));
            a.flood(FLOOD, false, batches(5000, i -> rn), cutReported(a));
            return expectServerCut(a, "REQUEST_N frames", "write stall");
          }
        });
  }

  @Test
  void requestChannelIgnoringRequestN() throws Exception {
    byte[] open = Attacker.prefixed(FrameBuilder.requestChannel(1, 1).data("x").toBytes());
    byte[] p = Attacker.prefixed(FrameBuilder.payload(1, true, false).data("unasked").toBytes());
    scenario(
        "R8 request-channels ignore request-n (20 unasked PAYLOADs each)",
        port -> {
          try (Attacker a = Attacker.connect(port).setup()) {
            // A new channel per 21 frames: each one's firehose is a stream violation.
            a.flood(FLOOD, true, batches(2100, i -> {
              int id = 2 * (i / 21) + 1;
              return Attacker.withStreamId(i % 21 == 0 ? open : p, id);
            }));
            String outcome = expectConnectionError(a, CONNECTION_ERROR, "ignored or invalid");
            assertThat(a.errors.get(0).streamId()).isEqualTo(1);
            assertThat(a.errors.get(0).code()).isEqualTo(INVALID);
            return a.errors.get(0).toString().replace("on 1:", "on each:") + ", then " + outcome;
          }
        });
  }

  @Test
  void keepAliveFloodWithoutReading() throws Exception {
    byte[] big = Attacker.prefixed(FrameBuilder.keepAlive(true, 0).data(new byte[9 * 1024]).toBytes());
    scenario(
        "R9 KEEPALIVE R=1 with 9 KiB data, never reads",
        port -> {
          try (Attacker a = Attacker.connect(port, SMALL_RCVBUF).setup()) {
            a.flood(FLOOD, false, batches(100, i -> big), cutReported(a));
            return expectConnectionError(a, CONNECTION_ERROR, "KEEPALIVE data larger than 1024");
          }
        });
    byte[] small = Attacker.prefixed(FrameBuilder.keepAlive(true, 0).data(new byte[512]).toBytes());
    scenario(
        "R9 KEEPALIVE R=1 flood (512 B data), never reads",
        port -> {
          try (Attacker a = Attacker.connect(port, SMALL_RCVBUF).setup()) {
            a.flood(FLOOD, false, batches(100, i -> small), cutReported(a));
            return expectConnectionError(a, CONNECTION_ERROR, "KEEPALIVE frames");
          }
        });
  }

  @Test
  void metadataPushFlood() throws Exception {
    byte[] mp = Attacker.prefixed(FrameBuilder.metadataPush(new byte[4096]).toBytes());
    scenario(
        "R11 METADATA_PUSH flood (4 KiB each)",
        port -> {
          try (Attacker a = Attacker.connect(port).setup()) {
            a.flood(FLOOD, true, batches(100, i -> mp));
            return expectConnectionError(a, CONNECTION_ERROR, "METADATA_PUSH frames");
          }
        });
  }

  @Test
  void requestStreamCancelLoop() throws Exception {
    byte[] rs = Attacker.prefixed(FrameBuilder.requestStream(1, 1).data("forever").toBytes());
    byte[] cancel = Attacker.prefixed(FrameBuilder.cancel(1).toBytes());
    scenario(
        "R13 REQUEST_STREAM + CANCEL loop",
        port -> {
          try (Attacker a = Attacker.connect(port).setup()) {
            a.flood(
                FLOOD,
                true,
                batches(
                    2000,
                    i -> {
                      int id = 2 * (i / 2) + 1;
                      return Attacker.withStreamId(i % 2 == 0 ? rs : cancel, id);
                    }));
            return expectConnectionError(a, CONNECTION_ERROR, "CANCEL frames");
          }
        });
  }

  @Test
  void thousandsOfStreamsNeverRead() throws Exception {
    byte[] rs = Attacker.prefixed(FrameBuilder.requestStream(1, Integer.MAX_VALUE).data("forever").toBytes());
    scenario(
        "R14 10,000 endless streams, never reads",
        port -> {
          try (Attacker a = Attacker.connect(port, SMALL_RCVBUF).setup()) {
            List<byte[]> b = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
              b.add(Attacker.withStreamId(rs, 2 * i + 1));
            }
            a.sendFully(Attacker.concat(b));
            String cut = expectServerCut(a, "write stall");
            // Counted by the responder as streams start and end, not sampled: a cut before the first
            // sample cannot hide them.
            long streams = server.stats().get("peakRequestStreams");
            assertThat(streams).as("most request-streams live at once on one connection").isBetween(1L, 8192L);
            return "server held at most " + streams + " live streams (cap 8192); " + cut;
          }
        });
  }
}
