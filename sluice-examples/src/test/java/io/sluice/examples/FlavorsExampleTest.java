package io.sluice.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FlavorsExampleTest {
  @Test
  void exampleRunsAsDocumented() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    assertThat(FlavorsExample.run(new PrintStream(bytes, true, StandardCharsets.UTF_8)))
        .containsExactly(
            "echo:futures",
            "flow 0",
            "flow 1",
            "flow 2",
            "echo:rx",
            "flowable 0",
            "flowable 1",
            "flowable 2",
            "observer 0",
            "observer 1",
            "observer 2");
  }
}
