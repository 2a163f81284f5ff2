package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import io.sluice.transport.netty.IoMode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MainTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return Main.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void unknownCommandIsAUsageError() {
    assertThat(run("frobnicate")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown command 'frobnicate'");
  }

  @Test
  void badOptionsAreUsageErrors() {
    assertThat(run("client", "--port")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--port needs a value");
    assertThat(run("server", "--transport", "carrier-pigeon")).isEqualTo(2);
    assertThat(run("client", "--port", "70000")).isEqualTo(2);
    assertThat(run("client", "--mtu", "10", "--port", "1")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("mtu must be 0 or at least 64");
    assertThat(run("demo", "--seconds", "zero")).isEqualTo(2);
    assertThat(run("demo", "--browser", "--rpc")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("two different demos");
    assertThat(run("demo", "--port", "7880")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--port applies to --browser only");
    assertThat(run("demo", "--browser", "--port", "65536")).isEqualTo(2);
  }

  @Test
  void demoPrintsReceivedMessagesEverySecond() {
    assertThat(run("demo", "--seconds", "2")).isZero();
    String printed = out.toString(StandardCharsets.UTF_8);
    assertThat(printed.lines().filter(l -> l.startsWith("received messages: "))).hasSize(2);
    long total = Long.parseLong(printed.replaceAll("(?s).*total: (\\d+) messages.*", "$1"));
    assertThat(total).isPositive();
  }

  @Test
  void clientFailsWhenNothingListens() {
    // Port 1 on loopback: nothing listens there, so the connect case fails and the exit code is 1.
    assertThat(run("client", "--host", "127.0.0.1", "--port", "1")).isEqualTo(1);
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("FAIL connect").contains("0 passed, 1 failed");
  }

  @Test
  void ioNamesAnEngineAndAnUnknownOrUnloadableOneIsAUsageError() {
    assertThat(run("client", "--io", "kqueue", "--host", "127.0.0.1", "--port", "1")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--io: unknown I/O mode 'kqueue'");
    for (IoMode m : new IoMode[] {IoMode.EPOLL, IoMode.IO_URING}) {
      if (!m.isAvailable()) {
        assertThat(run("client", "--io", m.label(), "--port", "1")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--io " + m.label() + " cannot run here");
      }
    }
    // nio always runs: the client gets as far as connecting (nothing listens on port 1).
    assertThat(run("client", "--io", "nio", "--host", "127.0.0.1", "--port", "1")).isEqualTo(1);
  }
}
