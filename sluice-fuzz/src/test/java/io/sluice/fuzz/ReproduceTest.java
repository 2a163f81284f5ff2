package io.sluice.fuzz;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Runs one input through {@link InboundHarness}, printing what the engine sent, for debugging a
 * finding. Skipped unless {@code -Dsluice.fuzz.input=} names a file or gives the input as hex:
 *
 * <pre>
 * ./mvnw -pl sluice-fuzz test -Dtest=ReproduceTest -Dsluice.fuzz.input=path/to/crash-...
 * ./mvnw -pl sluice-fuzz test -Dtest=ReproduceTest -Dsluice.fuzz.input=0100000006000000012400
 * </pre>
 */
class ReproduceTest {
  static {
    LogCapture.install();
  }

  @Test
  @EnabledIfSystemProperty(named = "sluice.fuzz.input", matches = ".+")
  void reproduce() throws IOException {
    String spec = System.getProperty("sluice.fuzz.input");
    Path file = Path.of(spec);
    if (!file.isAbsolute() && !Files.exists(file)) {
      file = Path.of(System.getProperty("basedir", ".")).resolve(spec);
    }
    byte[] input = Files.isRegularFile(file) ? Files.readAllBytes(file) : HexFormat.of().parseHex(spec);
    System.setProperty("sluice.fuzz.verbose", "true");
    InboundHarness.run(input, true);
  }
}
