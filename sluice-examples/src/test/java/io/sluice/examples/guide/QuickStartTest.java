package io.sluice.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** README's example runs and prints what it says. */
class QuickStartTest {
  @Test
  void echoes() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    assertThat(QuickStart.run(port)).isEqualTo("echo:hi");
  }
}
