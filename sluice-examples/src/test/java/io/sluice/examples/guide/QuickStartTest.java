package io.sluice.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.test.Ports;
import org.junit.jupiter.api.Test;

/** README's example runs and prints what it says. */
class QuickStartTest {
  @Test
  void echoes() throws Exception {
    int port = Ports.outsideEphemeralRange(); // the example binds it later: see Ports
    assertThat(QuickStart.run(port)).isEqualTo("echo:hi");
  }
}
