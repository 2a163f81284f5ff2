package io.sluice.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --markdown}: README's raw table from {@code --compare}'s medians, and the machine line. */
class MarkdownTableTest {

  private static Orchestrator.Result result(String impl, String interaction, long median) {
    return new Orchestrator.Result(impl, interaction, 8, 512, median, 0, 0, 0, 0, 0, 0);
  }

  @Test
  void theRawTableHasTheEightByteRowsOfSluiceAndRsocketJavaUnderTheMachineAndCommand() {
    Map<String, Map<String, Orchestrator.Result>> rows = new LinkedHashMap<>();
    for (String interaction : List.of("stream", "rr")) {
      for (int size : List.of(8, 140)) {
        Map<String, Orchestrator.Result> row = new LinkedHashMap<>();
        row.put("sluice", result("sluice", interaction, interaction.equals("stream") ? 6_850_000 : 1_550_000));
        row.put("grpc-java", result("grpc-java", interaction, 100_000));
        row.put("rsocket-java", result("rsocket-java", interaction, interaction.equals("stream") ? 280_000 : 0));
        row.put("spring-rsocket", result("spring-rsocket", interaction, 90_000));
        rows.put(interaction + " " + size + " B", row);
      }
    }
    List<String> lines = BenchMain.rawTable(rows, "2026-12-02, Some CPU, 2 vCPUs", 20, 10, true);

    assertThat(lines.get(0))
        .startsWith("**Raw RSocket against rsocket-java** (`./sluice bench --compare --markdown --warmup 20`)")
        .contains("measured 2026-12-02, Some CPU, 2 vCPUs")
        .contains("pinned to one vCPU each");
    assertThat(lines.subList(1, lines.size()))
        .containsExactly(
            "",
            "| interaction | Sluice | rsocket-java | ratio |",
            "|---|---|---|---|",
            "| stream 8 B | " + Orchestrator.rate(6_850_000) + " | " + Orchestrator.rate(280_000) + " | 24.5x |",
            "| rr 8 B | " + Orchestrator.rate(1_550_000) + " | " + Orchestrator.rate(0) + " | n/a |");
  }

  @Test
  void theCpuModelIsTheFirstModelNameOfCpuinfoOrSaidToBeUnknown(@TempDir Path dir) throws Exception {
    Path cpuinfo = dir.resolve("cpuinfo");
    Files.writeString(
        cpuinfo,
        "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R)  Xeon(R) CPU @ 2.80GHz\n"
            + "processor\t: 1\nmodel name\t: Other\n",
        StandardCharsets.UTF_8);
    assertThat(Machine.cpuModel(cpuinfo)).isEqualTo("Intel(R) Xeon(R) CPU @ 2.80GHz");
    Files.writeString(cpuinfo, "processor\t: 0\nmodel name\t:\n", StandardCharsets.UTF_8);
    assertThat(Machine.cpuModel(cpuinfo)).isEqualTo("CPU model unknown");
    assertThat(Machine.cpuModel(dir.resolve("missing"))).isEqualTo("CPU model unknown");
    assertThat(Machine.describe())
        .matches("\\d{4}-\\d{2}-\\d{2}, .+, \\d+ vCPUs, .+, JDK .+");
  }

  @Test
  void markdownGoesWithTheThroughputCompareOnly() throws Exception {
    for (String[] argv :
        List.of(
            new String[] {"bench", "--markdown"},
            new String[] {"bench", "--compare-flavors", "--markdown"},
            new String[] {"bench", "--compare", "--latency", "--markdown"})) {
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int rc =
          BenchMain.run(
              argv,
              new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8));
      assertThat(rc).as(String.join(" ", argv)).isEqualTo(2);
      assertThat(err.toString(StandardCharsets.UTF_8)).contains("--markdown goes with");
    }
  }
}
