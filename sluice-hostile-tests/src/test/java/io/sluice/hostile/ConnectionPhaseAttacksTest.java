package io.sluice.hostile;

import static io.sluice.ErrorCode.CONNECTION_ERROR;
import static io.sluice.ErrorCode.INVALID_SETUP;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.test.FrameBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Attacks on connection setup, framing and stream ids (SECURITY-NOTES R1-R3, R10, R12, R16):
 * each attacker connection is cut off with the error the limit documents.
 */
class ConnectionPhaseAttacksTest extends HostileTestBase {

  @Test
  void neverSentSetup() throws Exception {
    scenario(
        "R1 1000 connections never send SETUP",
        port -> {
          List<Attacker> idle = new ArrayList<>();
          try {
            for (int i = 0; i < 1000; i++) {
              idle.add(Attacker.connect(port));
            }
            // Each one is cut by the server's own setup timeout (setupTimeoutMs=2000), not by
            // some other limit that happens to close idle connections.
            for (Attacker a : idle) {
              expectConnectionError(a, INVALID_SETUP, "no SETUP within 2000 ms");
            }
            return "1000/1000 got ERROR[INVALID_SETUP] 'no SETUP within 2000 ms', closed";
          } finally {
            for (Attacker a : idle) {
              a.close();
            }
          }
        });
    assertThat(server.stats().connections()).isLessThanOrEqualTo(1);
  }

  @Test
  void framesBeforeSetup() throws Exception {
    byte[] rr = Attacker.prefixed(FrameBuilder.requestResponse(1).data("x".repeat(100)).toBytes());
    scenario(
        "R2 10k frames before SETUP",
        port -> {
          try (Attacker a = Attacker.connect(port)) {
            List<byte[]> frames = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
              frames.add(Attacker.withStreamId(rr, 2 * i + 1));
            }
            a.flood(Duration.ofSeconds(5), true, round -> Attacker.concat(frames));
            return expectConnectionError(a, INVALID_SETUP, "first frame must be SETUP");
          }
        });
  }

  @Test
  void oversizedFrameLength() throws Exception {
    scenario(
        "R3 frame length 16 MiB",
        port -> {
          try (Attacker a = Attacker.connect(port).setup()) {
            byte[] head = new byte[3 + 1000];
            head[0] = head[1] = head[2] = (byte) 0xFF;
            a.flood(Duration.ofSeconds(5), true, round -> head);
            return expectConnectionError(a, CONNECTION_ERROR, "exceeds the limit");
          }
        });
  }

  @Test
  void keepAliveNeverSent() throws Exception {
    scenario(
        "R10 no keepalive (100 ms interval, 1 s lifetime)",
        port -> {
          try (Attacker a = Attacker.connect(port).setup(100, 1000)) {
            return expectConnectionError(a, CONNECTION_ERROR, "keepalive max lifetime");
          }
        });
  }

  @Test
  void streamIdAbuse() throws Exception {
    byte[] even = Attacker.prefixed(FrameBuilder.requestResponse(2).data("even").toBytes());
    byte[] zero = Attacker.prefixed(FrameBuilder.requestResponse(0).data("zero").toBytes());
    scenario(
        "R12 even stream id from a client",
        port -> {
          try (Attacker a = Attacker.connect(port).setup()) {
            a.sendFully(even);
            return expectConnectionError(a, CONNECTION_ERROR, "parity");
          }
        });
    scenario(
        "R12 request on stream 0",
        port -> {
          try (Attacker a = Attacker.connect(port).setup()) {
            a.sendFully(zero);
            return expectConnectionError(a, CONNECTION_ERROR, "stream 0");
          }
        });
    byte[] live = Attacker.prefixed(FrameBuilder.requestStream(1, 1).data("count:1000000").toBytes());
    byte[] reuse = Attacker.prefixed(FrameBuilder.requestStream(1, 1).data("again").toBytes());
    byte[] unknownN = Attacker.prefixed(FrameBuilder.requestN(1001, 5).toBytes());
    byte[] unknownCancel = Attacker.prefixed(FrameBuilder.cancel(1003).toBytes());
    byte[] unknownPayload =
        Attacker.prefixed(FrameBuilder.payload(1005, true, false).data("p").toBytes());
    scenario(
        "R12 reuse of a live id and frames for unknown ids",
        port -> {
          try (Attacker a = Attacker.connect(port).setup()) {
            a.sendFully(live);
            List<byte[]> batch = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
              batch.add(reuse);
              batch.add(Attacker.withStreamId(unknownN, 1001 + 6 * i));
              batch.add(Attacker.withStreamId(unknownCancel, 1003 + 6 * i));
              batch.add(Attacker.withStreamId(unknownPayload, 1005 + 6 * i));
            }
            byte[] b = Attacker.concat(batch);
            a.flood(Duration.ofSeconds(10), true, round -> b);
            return expectConnectionError(a, CONNECTION_ERROR, "ignored or invalid frames");
          }
        });
  }

  @Test
  void malformedFramesOfEveryType() throws Exception {
    Map<String, byte[]> malformed = new LinkedHashMap<>();
    malformed.put("3-byte frame", new byte[] {0, 0, 1});
    malformed.put("reserved type 0", FrameBuilder.raw(0, 0x00, 0).toBytes());
    malformed.put("unknown type 0x20 without I", FrameBuilder.raw(1, 0x20, 0, (byte) 1).toBytes());
    malformed.put("SETUP truncated", FrameBuilder.raw(0, FrameBuilder.TYPE_SETUP, 0, (byte) 0, (byte) 1).toBytes());
    malformed.put("LEASE truncated", FrameBuilder.raw(0, FrameBuilder.TYPE_LEASE, 0, new byte[3]).toBytes());
    malformed.put("LEASE on a stream", FrameBuilder.raw(1, FrameBuilder.TYPE_LEASE, 0, new byte[8]).toBytes());
    malformed.put("KEEPALIVE truncated", FrameBuilder.raw(0, FrameBuilder.TYPE_KEEPALIVE, 0x80, new byte[5]).toBytes());
    malformed.put(
        "REQUEST_RESPONSE metadata length past the end",
        FrameBuilder.raw(1, FrameBuilder.TYPE_REQUEST_RESPONSE, FrameBuilder.FLAG_METADATA, (byte) 0, (byte) 0, (byte) 100, (byte) 1).toBytes());
    malformed.put(
        "REQUEST_FNF M flag without room for the length",
        FrameBuilder.raw(1, FrameBuilder.TYPE_REQUEST_FNF, FrameBuilder.FLAG_METADATA, (byte) 0).toBytes());
    malformed.put("REQUEST_STREAM truncated", FrameBuilder.raw(1, FrameBuilder.TYPE_REQUEST_STREAM, 0, (byte) 0, (byte) 0).toBytes());
    malformed.put("REQUEST_CHANNEL truncated", FrameBuilder.raw(1, FrameBuilder.TYPE_REQUEST_CHANNEL, 0, (byte) 0).toBytes());
    malformed.put("REQUEST_N truncated", FrameBuilder.raw(1, FrameBuilder.TYPE_REQUEST_N, 0, (byte) 0, (byte) 1).toBytes());
    malformed.put(
        "PAYLOAD M flag without room for the length",
        FrameBuilder.raw(1, FrameBuilder.TYPE_PAYLOAD, FrameBuilder.FLAG_METADATA | FrameBuilder.FLAG_NEXT, (byte) 0).toBytes());
    malformed.put("ERROR truncated", FrameBuilder.raw(1, FrameBuilder.TYPE_ERROR, 0, (byte) 0).toBytes());
    malformed.put("RESUME truncated", FrameBuilder.raw(0, FrameBuilder.TYPE_RESUME, 0, new byte[4]).toBytes());
    malformed.put("RESUME_OK truncated", FrameBuilder.raw(0, FrameBuilder.TYPE_RESUME_OK, 0, new byte[3]).toBytes());
    malformed.put("EXT truncated", FrameBuilder.raw(1, FrameBuilder.TYPE_EXT, 0, (byte) 0).toBytes());
    // What the server says: the frame validator's verdict, not some later failure the frame
    // happens to cause; a LEASE on a stream is well formed but only valid on stream 0.
    Map<String, String> because = Map.of("LEASE on a stream", "is only valid on stream 0");
    scenario(
        "R16 malformed frames of every type (" + malformed.size() + " kinds)",
        port -> {
          for (Map.Entry<String, byte[]> m : malformed.entrySet()) {
            try (Attacker a = Attacker.connect(port).setup()) {
              a.sendFully(Attacker.prefixed(m.getValue()));
              expectConnectionError(
                  a, CONNECTION_ERROR, because.getOrDefault(m.getKey(), "malformed frame: "));
            } catch (AssertionError e) {
              throw new AssertionError(m.getKey() + ": " + e.getMessage(), e);
            }
          }
          return "ERROR[CONNECTION_ERROR] 'malformed frame: ...' for each (LEASE on a stream:"
              + " '... is only valid on stream 0'), closed";
        });
  }
}
