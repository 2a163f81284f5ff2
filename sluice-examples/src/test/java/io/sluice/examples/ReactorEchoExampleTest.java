package io.sluice.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ReactorEchoExampleTest {
  @Test
  void exampleRunsAsDocumented() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    assertThat(ReactorEchoExample.run(new PrintStream(bytes, true, StandardCharsets.UTF_8)))
        .containsExactly(
            "echo:hi", "item 0", "item 1", "item 2", "a", "b", "client says: the example client");
  }
}
