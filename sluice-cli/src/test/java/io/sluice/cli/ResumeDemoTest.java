package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code ./sluice demo --resume}: the stream keeps counting across the relay's cuts. */
class ResumeDemoTest {
  @Test
  void theStreamKeepsCountingAcrossCuts() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"demo", "--resume", "--cut-every-ms", "200", "--count", "100000"},
            new ByteArrayInputStream(new byte[0]),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    List<String> lines = Arrays.asList(out.toString(StandardCharsets.UTF_8).split("\n"));
    assertThat(lines).as("%s", lines).anyMatch(l -> l.matches("PASS stream 100000 messages in order \\(\\d+ cuts\\)"));
    assertThat(code).isZero();
    // Each cut during the stream is resumed: RESUMED 1, 2, ... in order.
    List<String> resumed = lines.stream().filter(l -> l.startsWith("RESUMED ")).toList();
    assertThat(resumed).as("%s", lines).isNotEmpty();
    for (int i = 0; i < resumed.size(); i++) {
      assertThat(resumed.get(i)).isEqualTo("RESUMED " + (i + 1));
    }
  }

  @Test
  void itsOptionsBelongToResume() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
    PrintStream o = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    ByteArrayInputStream in = new ByteArrayInputStream(new byte[0]);
    assertThat(Main.run(new String[] {"demo", "--cut-every-ms", "100"}, in, o, e)).isEqualTo(2);
    assertThat(Main.run(new String[] {"demo", "--resume", "--rpc"}, in, o, e)).isEqualTo(2);
    assertThat(Main.run(new String[] {"demo", "--resume", "--count", "0"}, in, o, e)).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--resume only", "two different demos");
  }
}
