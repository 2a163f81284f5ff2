package io.sluice.benchmarks.many;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.benchmarks.harness.Args;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The many-connections command line and the spreading of calls over connections. */
class ManyOptionsTest {
  private static final Set<String> SCALE = Set.of("streams-per-connection", "hold", "scale");

  private static ManyOptions parse(String... args) {
    return ManyOptions.parse(args, 0, SCALE);
  }

  @Test
  void withoutConcurrencyAndSizeItRunsTheIssuesThreeShapes() {
    ManyOptions o = parse("--connections", "16");
    assertThat(o.connections()).isEqualTo(16);
    assertThat(o.shapes()).containsExactly(
        new ManyOptions.Shape(32, 16), new ManyOptions.Shape(512, 16),
        new ManyOptions.Shape(16, 131_072));
    assertThat(o.warmup()).isEqualTo(30);
    assertThat(o.seconds()).isEqualTo(10);
  }

  @Test
  void givenShapeIsTheOnlyRowAndTheOtherHalfDefaults() {
    ManyOptions o = parse("--connections", "16", "--concurrency", "64", "--response-size", "1024",
        "--warmup", "5", "--seconds", "3");
    assertThat(o.shapes()).containsExactly(new ManyOptions.Shape(64, 1024));
    assertThat(o.warmup()).isEqualTo(5);
    assertThat(o.seconds()).isEqualTo(3);
    assertThat(parse("--connections", "16", "--concurrency", "48").shapes())
        .containsExactly(new ManyOptions.Shape(48, 16));
    assertThat(parse("--connections", "16", "--response-size", "0").shapes())
        .containsExactly(new ManyOptions.Shape(32, 0));
  }

  @Test
  void contradictionsAndOutOfRangeValuesAreClearUsageErrors() {
    assertThatThrownBy(() -> parse("--concurrency", "32"))
        .isInstanceOf(Args.UsageException.class).hasMessageContaining("go with --connections C");
    assertThatThrownBy(() -> parse("--connections", "16", "--concurrency", "8"))
        .isInstanceOf(Args.UsageException.class)
        .hasMessageContaining("--concurrency 8 is less than --connections 16");
    assertThatThrownBy(() -> parse("--connections", "64"))
        .isInstanceOf(Args.UsageException.class)
        .hasMessageContaining("--concurrency 32 (a default shape; give --concurrency)");
    assertThatThrownBy(() -> parse("--connections", "1", "--concurrency", "8193"))
        .isInstanceOf(Args.UsageException.class).hasMessageContaining("at most 8192");
    assertThatThrownBy(() -> parse("--connections", "16", "--response-size", "1048577"))
        .isInstanceOf(Args.UsageException.class).hasMessageContaining("--response-size must be in 0..1048576");
    assertThatThrownBy(() -> parse("--connections", "16", "--concurrency", "512",
            "--response-size", "1048576"))
        .isInstanceOf(Args.UsageException.class).hasMessageContaining("MiB of answers in flight");
    assertThatThrownBy(() -> parse("--connections", "0"))
        .isInstanceOf(Args.UsageException.class).hasMessageContaining("--connections must be in 1..1024");
    assertThatThrownBy(() -> parse("--connections", "16", "--streams-per-connection", "2"))
        .isInstanceOf(Args.UsageException.class)
        .hasMessageContaining("--streams-per-connection goes with --scale");
    assertThatThrownBy(() -> parse("--connections", "16", "--impl", "sluice"))
        .isInstanceOf(Args.UsageException.class)
        .hasMessageContaining("--impl does not go with --connections");
    assertThatThrownBy(() -> parse("--connections"))
        .isInstanceOf(Args.UsageException.class).hasMessageContaining("needs a value");
  }

  @Test
  void theModeIsChosenByScaleBeingAbsent() {
    assertThat(ManyOptions.handles(new String[] {"bench", "--connections", "16"}, 1)).isTrue();
    assertThat(ManyOptions.handles(new String[] {"bench", "--response-size", "16"}, 1)).isTrue();
    assertThat(ManyOptions.handles(new String[] {"bench", "--compare"}, 1)).isFalse();
    ManyOptions.rejectWithScale(new String[] {"bench", "--scale", "--connections", "9"}, 1);
    assertThatThrownBy(() -> ManyOptions.rejectWithScale(
            new String[] {"bench", "--scale", "--connections", "9", "--concurrency", "9"}, 1))
        .isInstanceOf(Args.UsageException.class)
        .hasMessageContaining("--concurrency belongs to the many-connections mode");
  }

  @Test
  void callsAreSpreadAsEvenlyAsWholeCallsAllow() {
    assertThat(ManyOptions.spread(32, 16)).containsOnly(2).hasSize(16);
    assertThat(ManyOptions.spread(512, 16)).containsOnly(32).hasSize(16);
    assertThat(ManyOptions.spread(16, 16)).containsOnly(1).hasSize(16);
    int[] uneven = ManyOptions.spread(35, 16);
    assertThat(Arrays.stream(uneven).sum()).isEqualTo(35);
    assertThat(Arrays.stream(uneven).max().getAsInt() - Arrays.stream(uneven).min().getAsInt())
        .isEqualTo(1);
    assertThat(uneven).startsWith(3, 3, 3).endsWith(2);
    for (int calls : List.of(1, 7, 100, 65_536)) {
      for (int connections : List.of(1, 3, 16)) {
        if (calls >= connections) {
          int[] s = ManyOptions.spread(calls, connections);
          assertThat(Arrays.stream(s).sum()).as(calls + "/" + connections).isEqualTo(calls);
          assertThat(Arrays.stream(s).min().getAsInt()).isPositive();
        }
      }
    }
    assertThatThrownBy(() -> ManyOptions.spread(3, 4)).isInstanceOf(IllegalArgumentException.class);
  }
}
