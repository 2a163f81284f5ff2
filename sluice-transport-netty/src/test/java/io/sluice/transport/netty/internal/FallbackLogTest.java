package io.sluice.transport.netty.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a JVM logs when its default I/O engine falls back to NIO, read from a new JVM's log (netty
 * logs through java.util.logging on this class path, one line per record with the format set
 * below). Native I/O is switched off with netty's own {@code -Dio.netty.transport.noNative=true},
 * so the fallback happens whether or not the native jars load here.
 *
 * <p>The default (AUTO) falling back is expected wherever netty's native jars are absent, as in
 * the default build: one short INFO line, the causes at debug level only. A warning is for a
 * {@code -Dsluice.io} that named an engine (or a value) the JVM could not honour.
 */
class FallbackLogTest {
  record Run(String engine, List<String> log) {}

  private static Run run(Path work, String... properties) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("-Dio.netty.transport.noNative=true");
    cmd.add("-Djava.util.logging.SimpleFormatter.format=%4$s %5$s%6$s%n");
    cmd.addAll(List.of(properties));
    cmd.add(DefaultEngineMain.class.getName());
    Path out = work.resolve("out.txt");
    Path err = work.resolve("err.txt");
    Process p =
        new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("the JVM did not end");
    }
    assertThat(p.exitValue()).as("exit code; stderr: %s", Files.readString(err)).isZero();
    return new Run(
        Files.readString(out, StandardCharsets.UTF_8).strip(),
        Files.readAllLines(err, StandardCharsets.UTF_8).stream().filter(l -> !l.isBlank()).toList());
  }

  @Test
  void theDefaultFallingBackIsOneShortInfoLine(@TempDir Path work) throws Exception {
    Run r = run(work);
    assertThat(r.engine()).isEqualTo("nio");
    assertThat(r.log()).hasSize(1);
    String line = r.log().get(0);
    assertThat(line).startsWith("INFO sluice: ").contains("nio").doesNotContain("Exception").doesNotContain("Error");
    assertThat(line.length()).as(line).isLessThanOrEqualTo(120);
  }

  @Test
  void theCausesAreThereAtDebugLevel(@TempDir Path work) throws Exception {
    Path config = work.resolve("logging.properties");
    Files.writeString(
        config,
        "handlers=java.util.logging.ConsoleHandler\njava.util.logging.ConsoleHandler.level=ALL\n"
            + "io.sluice.transport.netty.internal.level=ALL\n");
    Run r = run(work, "-Djava.util.logging.config.file=" + config);
    assertThat(r.log()).anyMatch(l -> l.startsWith("INFO sluice: "));
    assertThat(r.log()).anyMatch(l -> l.startsWith("FINE sluice: ") && l.contains("epoll: ") && l.contains("io_uring: "));
    assertThat(r.log()).noneMatch(l -> l.startsWith("WARNING"));
  }

  @Test
  void anEngineNamedBySluiceIoThatCannotLoadIsAWarning(@TempDir Path work) throws Exception {
    Run r = run(work, "-Dsluice.io=epoll");
    assertThat(r.engine()).isEqualTo("nio");
    assertThat(r.log()).hasSize(1);
    assertThat(r.log().get(0))
        .startsWith("WARNING sluice: -Dsluice.io=epoll asked for epoll, which cannot load here (")
        .endsWith("using nio");
  }

  @Test
  void anUnknownSluiceIoIsAWarning(@TempDir Path work) throws Exception {
    Run r = run(work, "-Dsluice.io=kqueue");
    assertThat(r.engine()).isEqualTo("nio");
    assertThat(r.log()).hasSize(1);
    assertThat(r.log().get(0)).startsWith("WARNING sluice: -Dsluice.io=kqueue is not auto, nio, epoll or io_uring");
  }

  @Test
  void nioAskedForLogsNothing(@TempDir Path work) throws Exception {
    Run r = run(work, "-Dsluice.io=nio");
    assertThat(r.engine()).isEqualTo("nio");
    assertThat(r.log()).isEmpty();
  }
}
