package io.sluice.benchmarks.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.benchmarks.harness.Args;
import org.junit.jupiter.api.Test;

class ScaleOptionsTest {
  private static ScaleOptions parse(String... argv) {
    return ScaleOptions.parse(argv, 1);
  }

  @Test
  void parsesAScaleRun() {
    ScaleOptions o = parse("bench", "--scale", "--connections", "10000",
        "--streams-per-connection", "100", "--rate", "1", "--hold", "300", "--ramp-steps", "5",
        "--impl", "rsocket-java", "--heap-histo");
    assertThat(o.sweep()).isFalse();
    assertThat(o.impl()).isEqualTo("rsocket-java");
    assertThat(o.connections()).isEqualTo(10_000);
    assertThat(o.streamsPerConnection()).isEqualTo(100);
    assertThat(o.rate()).isEqualTo(1.0);
    assertThat(o.holdSeconds()).isEqualTo(300);
    assertThat(o.rampSteps()).isEqualTo(5);
    assertThat(o.heapHisto()).isTrue();
  }

  @Test
  void defaults() {
    ScaleOptions o = parse("bench", "--scale", "--connections", "5");
    assertThat(o.impl()).isEqualTo("sluice");
    assertThat(o.streamsPerConnection()).isEqualTo(1);
    assertThat(o.rate()).isEqualTo(1.0);
    assertThat(o.holdSeconds()).isEqualTo(30);
    assertThat(o.rampSteps()).isEqualTo(4);
    assertThat(o.heapHisto()).isFalse();
    ScaleOptions sweep = parse("bench", "--scale-sweep", "--rate", "0.5");
    assertThat(sweep.sweep()).isTrue();
    assertThat(sweep.holdSeconds()).isEqualTo(10);
    assertThat(sweep.rate()).isEqualTo(0.5);
    assertThat(sweep.svg()).isEqualTo("docs/img/scale-sweep.svg");
  }

  @Test
  void rejectsWhatMakesNoSense() {
    assertThatThrownBy(() -> parse("bench", "--scale"))
        .isInstanceOf(Args.UsageException.class).hasMessageContaining("--connections");
    assertThatThrownBy(() -> parse("bench", "--scale", "--scale-sweep", "--connections", "1"))
        .isInstanceOf(Args.UsageException.class).hasMessageContaining("one of");
    assertThatThrownBy(() -> parse("bench", "--scale", "--connections", "1", "--impl", "grpc-java"))
        .isInstanceOf(Args.UsageException.class).hasMessageContaining("rsocket-java");
    assertThatThrownBy(() -> parse("bench", "--scale", "--connections", "0"))
        .isInstanceOf(Args.UsageException.class).hasMessageContaining("1..100000");
    assertThatThrownBy(() -> parse("bench", "--scale", "--connections", "1", "--rate", "0"))
        .isInstanceOf(Args.UsageException.class).hasMessageContaining("--rate");
    assertThatThrownBy(() -> parse("bench", "--scale", "--connections", "1", "--rate", "fast"))
        .isInstanceOf(Args.UsageException.class).hasMessageContaining("'fast'");
    assertThatThrownBy(
            () -> parse("bench", "--scale", "--connections", "1", "--streams-per-connection", "9000"))
        .isInstanceOf(Args.UsageException.class).hasMessageContaining("0..8192");
    assertThatThrownBy(() -> parse("bench", "--scale-sweep", "--connections", "10"))
        .isInstanceOf(Args.UsageException.class).hasMessageContaining("--scale-sweep picks");
    assertThatThrownBy(() -> parse("bench", "--scale", "--connections", "1", "--size", "8"))
        .isInstanceOf(Args.UsageException.class).hasMessageContaining("--size");
  }

  @Test
  void rampStepsEndAtTheFullSizeWithoutRepeats() {
    assertThat(ScaleOptions.rampConnections(10_000, 4)).containsExactly(2500, 5000, 7500, 10_000);
    assertThat(ScaleOptions.rampConnections(3, 10)).containsExactly(1, 2, 3);
    assertThat(ScaleOptions.rampConnections(1, 1)).containsExactly(1);
  }

  @Test
  void addressesKeepEachUnderItsShareOfPorts() {
    assertThat(ScaleAddresses.needed(1)).isEqualTo(1);
    assertThat(ScaleAddresses.needed(16_000)).isEqualTo(1);
    assertThat(ScaleAddresses.needed(16_001)).isEqualTo(2);
    assertThat(ScaleAddresses.host(0)).isEqualTo("127.0.0.1");
    assertThat(ScaleAddresses.host(3)).isEqualTo("127.0.0.4");
  }
}
