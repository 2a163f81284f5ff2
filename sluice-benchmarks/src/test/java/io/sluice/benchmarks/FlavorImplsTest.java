package io.sluice.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.benchmarks.flavor.FlavorImpl;
import io.sluice.benchmarks.harness.Counter;
import io.sluice.benchmarks.harness.Impl;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each flavor impl and sluice-rpc, server and client in this JVM over TCP on 127.0.0.1: every
 * throughput interaction and both latency modes move messages. No timing is asserted.
 */
class FlavorImplsTest {
  private static final long ENOUGH = 200;

  @ParameterizedTest
  @ValueSource(
      strings = {
        "sluice-reactor", "sluice-futures", "sluice-rxjava", "sluice-mutiny", "sluice-grpc-stub",
        "sluice-rpc"
      })
  @Timeout(60) // hang guard only
  void everyInteractionMovesMessages(String name) throws Exception {
    Impl impl = BenchMain.impl(name);
    try (FlavorImpl closing = (FlavorImpl) impl) {
      Counter fnf = new Counter();
      int port = impl.serve("stream", 8, fnf);
      for (String interaction : List.of("stream", "channel", "rr")) {
        Counter received = new Counter();
        impl.load(port, interaction, 8, 64, received);
        awaitAtLeast(received::get, name + " " + interaction);
      }
      impl.load(port, "fnf", 8, 64, new Counter());
      awaitAtLeast(fnf::get, name + " fnf");
      for (String mode : List.of("rr", "stream24")) {
        AtomicLong ops = new AtomicLong();
        AtomicLong negative = new AtomicLong();
        impl.latency(port, mode, 8, 2, nanos -> {
          ops.incrementAndGet();
          if (nanos < 0) {
            negative.incrementAndGet();
          }
        });
        awaitAtLeast(ops::get, name + " latency " + mode);
        assertThat(negative.get()).isZero();
      }
    }
  }

  @Test
  void compareFlavorsRunsEveryFlavorAndRpcAt128Bytes() {
    assertThat(BenchMain.flavorCases())
        .containsOnlyKeys("stream 8", "rr 8", "stream 128", "rr 128");
    assertThat(BenchMain.flavorCases().get("rr 8"))
        .contains("sluice", "sluice-reactor", "sluice-futures", "sluice-rxjava", "sluice-mutiny",
            "sluice-grpc-stub", "sluice-rpc");
    assertThat(BenchMain.flavorCases().get("stream 128")).containsExactly("sluice", "sluice-rpc");
  }

  private static void awaitAtLeast(LongSupplier count, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (count.getAsLong() < ENOUGH && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(count.getAsLong()).as(what).isGreaterThanOrEqualTo(ENOUGH);
  }
}
