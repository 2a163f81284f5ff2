package io.sluice.rpc.reactor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher users hand to their own protoc, {@code sluice-rpc-compiler/bin/protoc-gen-sluice},
 * runs the packaged plugin jar (built before this module) with protoc from Maven Central.
 */
class PluginLauncherTest {
  private static final Path COMPILER = Paths.get("../sluice-rpc-compiler").toAbsolutePath().normalize();

  @Test
  void protocRunsTheLauncherScript(@TempDir Path out) throws Exception {
    Path protoc = COMPILER.resolve("target/protoc/protoc");
    File launcher = COMPILER.resolve("bin/protoc-gen-sluice").toFile();
    assertThat(protoc.toFile().setExecutable(true)).isTrue();
    assertThat(launcher.canExecute()).as("bin/protoc-gen-sluice is executable in git").isTrue();
    Files.createDirectories(out.resolve("gen"));
    Path err = out.resolve("stderr.txt");
    Process p =
        new ProcessBuilder(
                protoc.toString(),
                "--plugin=protoc-gen-sluice=" + launcher,
                "-I" + COMPILER.resolve("src/test/proto"),
                "-I" + COMPILER.resolve("../sluice-rpc/src/main/resources").normalize(),
                "-I" + COMPILER.resolve("target/protoc/include"),
                "--sluice_out=" + out.resolve("gen"),
                "--sluice_opt=flavor=reactor,annotations=javax",
                "sluice/test/calc.proto")
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(err.toFile())
            .start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("protoc finished").isTrue();
    assertThat(p.exitValue()).as(Files.readString(err)).isZero();
    List<String> files;
    try (Stream<Path> s = Files.walk(out.resolve("gen"))) {
      files =
          s.filter(Files::isRegularFile)
              .map(f -> out.resolve("gen").relativize(f).toString())
              .sorted()
              .collect(Collectors.toList());
    }
    assertThat(files)
        .containsExactly(
            "io/sluice/rpc/it/calc/ReactorCalculator.java",
            "io/sluice/rpc/it/calc/ReactorCalculatorClient.java",
            "io/sluice/rpc/it/calc/ReactorCalculatorServer.java");
    assertThat(Files.readString(out.resolve("gen/io/sluice/rpc/it/calc/ReactorCalculator.java")))
        .contains("@javax.annotation.Generated(value = \"protoc-gen-sluice\"");
  }
}
