package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.test.ClosedPort;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code grpc-test-server} in its own JVM (as ./sluice starts it), over RSocket and over gRPC, and
 * {@code grpc-test-client} against it: the LISTENING line, one line per case, the totals and the
 * exit codes.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GrpcTestCommandsTest {
  private static Process server;
  private static Process grpcServer;
  private static int port;
  private static int grpcPort;

  @BeforeAll
  static void startServers() throws Exception {
    server = start("--transport", "rsocket");
    port = listening(server);
    grpcServer = start();
    grpcPort = listening(grpcServer);
  }

  private static Process start(String... options) throws Exception {
    List<String> cmd = ChildJvm.command("grpc-test-server", "--port", "0");
    cmd.addAll(List.of(options));
    return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
  }

  private static int listening(Process p) throws Exception {
    BufferedReader lines =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String first = lines.readLine();
    assertThat(first).startsWith("LISTENING ");
    return Integer.parseInt(first.substring("LISTENING ".length()).strip());
  }

  @AfterAll
  static void stopServers() throws Exception {
    for (Process p : new Process[] {server, grpcServer}) {
      if (p != null) {
        p.destroy();
        p.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void overGrpcByDefaultTheSameCasesPass() {
    Run r = client("--port", String.valueOf(grpcPort));
    List<String> lines = List.of(r.out.split("\n"));
    assertThat(lines).hasSize(18).contains("PASS large_unary", "PASS empty_stream", "PASS custom_metadata");
    assertThat(lines).filteredOn(l -> l.startsWith("FAIL ")).isEmpty();
    assertThat(lines.get(17)).isEqualTo("17 passed, 0 failed");
    assertThat(r.exit).as(r.err).isZero();
  }

  private record Run(int exit, String out, String err) {}

  private static Run client(String... options) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    String[] argv = new String[options.length + 1];
    argv[0] = "grpc-test-client";
    System.arraycopy(options, 0, argv, 1, options.length);
    int exit = Main.run(argv, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void passingCasesExitZero() {
    Run r = client("--port", String.valueOf(port), "--transport", "rsocket", "--test_case", "empty_unary,large_unary,ping_pong");
    assertThat(r.out.split("\n"))
        .containsExactly("PASS empty_unary", "PASS large_unary", "PASS ping_pong", "3 passed, 0 failed");
    assertThat(r.exit).as(r.err).isZero();
  }

  @Test
  void theDefaultRunsEveryCaseOverRsocketAndAllPass() {
    Run r = client("--host", "127.0.0.1", "--port", String.valueOf(port), "--transport", "rsocket");
    List<String> lines = List.of(r.out.split("\n"));
    assertThat(lines).hasSize(18).contains("PASS very_large_request", "PASS empty_stream", "PASS custom_metadata");
    assertThat(lines).filteredOn(l -> l.startsWith("FAIL ")).isEmpty();
    assertThat(lines.get(17)).isEqualTo("17 passed, 0 failed");
    assertThat(r.exit).as(r.err).isZero();
  }

  @Test
  void usageErrorsExitTwo() {
    assertThat(client("--port", String.valueOf(port), "--test_case", "empty_unary,nope").exit).isEqualTo(2);
    Run noPort = client("--test_case", "empty_unary");
    assertThat(noPort.exit).isEqualTo(2);
    assertThat(noPort.err).contains("--port is required");
  }

  @Test
  void anUnreachableServerFailsClearly() throws Exception {
    try (ClosedPort closed = ClosedPort.any()) {
      int free = closed.port();
      Run r = client("--port", String.valueOf(free), "--transport", "rsocket", "--test_case", "empty_unary");
      assertThat(r.exit).isEqualTo(1);
      assertThat(r.err).contains("cannot connect to 127.0.0.1:" + free + " (rsocket)");
      Run grpc = client("--port", String.valueOf(free), "--transport", "grpc", "--test_case", "empty_unary");
      assertThat(grpc.exit).isEqualTo(1);
      assertThat(grpc.err).contains("cannot connect to 127.0.0.1:" + free + " (grpc)");
    }
  }

  @Test
  void anUnknownTransportIsAUsageError() {
    Run r = client("--port", String.valueOf(port), "--transport", "carrier-pigeon");
    assertThat(r.exit).isEqualTo(2);
    assertThat(r.err).contains("--transport is grpc or rsocket, got carrier-pigeon");
  }
}
