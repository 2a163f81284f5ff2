package io.sluice.hostile;

import static io.sluice.ErrorCode.CONNECTION_ERROR;
import static io.sluice.ErrorCode.INVALID;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.test.FrameBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Fragmentation attacks (SECURITY-NOTES R4, R5). */
class FragmentAttacksTest extends HostileTestBase {
  private static final byte[] KIB = new byte[1024];

  private static byte[] first(int id) {
    return Attacker.prefixed(FrameBuilder.requestResponse(id).follows(true).data(KIB).toBytes());
  }

  private static byte[] more(int id, byte[] data) {
    return Attacker.prefixed(FrameBuilder.payload(id, true, false).follows(true).data(data).toBytes());
  }

  @Test
  void endlessFollowsChain() throws Exception {
    scenario(
        "R4 endless FOLLOWS chain (1 KiB fragments)",
        port -> {
          try (Attacker a = Attacker.connect(port).setup()) {
            a.sendFully(first(1));
            List<byte[]> batch = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
              batch.add(more(1, KIB));
            }
            byte[] b = Attacker.concat(batch);
            // 4 MiB get the stream its INVALID (hang guard 20 s); then 4 MiB more of the chain,
            // and a KEEPALIVE whose answer says the server has read them (it was 3 s of flood).
            a.flood(Duration.ofSeconds(20), true, round -> b, () -> !a.errors.isEmpty());
            assertThat(a.errors).isNotEmpty();
            assertThat(a.errors.get(0).streamId()).isEqualTo(1);
            assertThat(a.errors.get(0).code()).isEqualTo(INVALID);
            a.finishBatch();
            for (int i = 0; i < 64; i++) {
              a.sendFully(b);
              a.readAvailable();
            }
            assertThat(a.keepAliveFence(Duration.ofSeconds(30)))
                .as("the server answers a KEEPALIVE after the chain (closed: %s, errors: %s, server: %s)",
                    a.closed, a.errors, server.closeCause(a.localPort))
                .isTrue();
            // The rest of the chain is for a stream that ended: dropped, costing a table lookup.
            assertThat(a.errors).hasSize(1);
            return a.errors.get(0) + "; the rest of the chain dropped (" + (a.closed ? "closed" : "connection open") + ")";
          }
        });
  }

  @Test
  void followsChainsOnManyStreams() throws Exception {
    scenario(
        "R4 FOLLOWS chains on many streams (3 MiB each)",
        port -> {
          try (Attacker a = Attacker.connect(port).setup()) {
            List<byte[]> batch = new ArrayList<>();
            for (int s = 0; s < 8; s++) {
              int id = 2 * s + 1;
              batch.add(first(id));
              for (int i = 0; i < 3 * 1024; i++) {
                batch.add(more(id, KIB));
              }
            }
            byte[] b = Attacker.concat(batch);
            a.flood(Duration.ofSeconds(20), true, round -> b);
            return expectConnectionError(a, CONNECTION_ERROR, "fragmented messages in progress");
          }
        });
  }

  @Test
  void emptyFragmentsFlood() throws Exception {
    scenario(
        "R5 empty fragments flood",
        port -> {
          try (Attacker a = Attacker.connect(port).setup()) {
            List<byte[]> batch = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
              int id = 2 * i + 1;
              batch.add(Attacker.prefixed(FrameBuilder.requestResponse(id).follows(true).data("x").toBytes()));
              for (int k = 0; k < 4; k++) {
                batch.add(more(id, new byte[0]));
              }
            }
            byte[] b = Attacker.concat(batch);
            int[] base = {0};
            a.flood(
                Duration.ofSeconds(20),
                true,
                round -> {
                  // fresh stream ids each round
                  List<byte[]> shifted = new ArrayList<>();
                  int off = 2000 * round;
                  for (int i = 0; i < 1000; i++) {
                    int id = 2 * i + 1 + off;
                    shifted.add(Attacker.prefixed(FrameBuilder.requestResponse(id).follows(true).data("x").toBytes()));
                    shifted.add(more(id, new byte[0]));
                  }
                  return round == 0 ? b : Attacker.concat(shifted);
                });
            String outcome = expectConnectionError(a, CONNECTION_ERROR, "ignored or invalid");
            assertThat(a.errors.get(0).code()).isEqualTo(INVALID);
            assertThat(a.errors.get(0).message()).contains("empty fragment");
            return a.errors.get(0).toString().replaceAll("on \\d+", "on its stream") + " each, then " + outcome;
          }
        });
  }
}
