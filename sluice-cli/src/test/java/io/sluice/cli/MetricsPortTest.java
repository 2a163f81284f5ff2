package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.test.GoTools;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --metrics-port}: {@code ./sluice server} and {@code ./sluice grpc-test-server}, each in
 * its own JVM as ./sluice starts it, under load from {@code ./sluice client} and {@code ./sluice
 * grpc-test-client}, serve Prometheus text at {@code http://127.0.0.1:P/metrics} with non-zero
 * frame, byte, stream and RPC series; and Prometheus' linter accepts each scrape (tools/metricslint,
 * the check {@code promtool check metrics} makes; see {@link #lintAccepts}).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class MetricsPortTest {
  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (Process p : started) {
      p.destroy();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** A server in its own JVM, started with {@code --metrics-port 0}. */
  private record Served(int port, int metricsPort) {}

  /**
   * Starts {@code args} with {@code --metrics-port 0}: the port it listens on comes from its
   * {@code LISTENING} line, the metrics port from the {@code METRICS <url>} line on its stderr
   * (the rest of its stderr goes on to this JVM's).
   */
  private Served serve(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(ChildJvm.command(args));
    cmd.add("--metrics-port");
    cmd.add("0");
    Process p = new ProcessBuilder(cmd).start();
    started.add(p);
    CompletableFuture<Integer> metricsPort = new CompletableFuture<>();
    Thread err = new Thread(() -> forwardStderr(p, metricsPort), "metrics-port-test-stderr");
    err.setDaemon(true);
    err.start();
    int port = listening(p);
    return new Served(port, metricsPort.get(60, TimeUnit.SECONDS));
  }

  private static void forwardStderr(Process p, CompletableFuture<Integer> metricsPort) {
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        System.err.println(line);
        if (line.startsWith("METRICS ")) {
          metricsPort.complete(URI.create(line.substring("METRICS ".length()).strip()).getPort());
        }
      }
      metricsPort.completeExceptionally(new IllegalStateException("the server's stderr ended without a METRICS line"));
    } catch (IOException e) {
      metricsPort.completeExceptionally(e);
    }
  }

  private static int listening(Process p) throws Exception {
    BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String first = lines.readLine();
    assertThat(first).startsWith("LISTENING ");
    return Integer.parseInt(first.substring("LISTENING ".length()).strip());
  }

  private static int run(String... argv) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = Main.run(argv, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(exit).as("%s\n%s\n%s", String.join(" ", argv), out, err).isZero();
    return exit;
  }

  static String scrape(int port) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(Duration.ofSeconds(60)).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
    return r.body();
  }

  /** The sum of the samples of {@code name} whose labels include every {@code k="v"} given. */
  static double sample(String text, String name, String... labels) {
    double sum = 0;
    boolean found = false;
    for (String line : text.split("\n")) {
      if (!line.startsWith(name + "{")) {
        continue;
      }
      String labelPart = line.substring(name.length(), line.lastIndexOf('}') + 1);
      boolean all = true;
      for (int i = 0; i < labels.length; i += 2) {
        if (!labelPart.contains(labels[i] + "=\"" + labels[i + 1] + "\"")) {
          all = false;
          break;
        }
      }
      if (all) {
        found = true;
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    assertThat(found).as("a %s sample with %s in\n%s", name, List.of(labels), text).isTrue();
    return sum;
  }

  @Test
  void serverUnderClientLoadServesFrameByteAndStreamSeries() throws Exception {
    Served server = serve("server", "--port", "0");
    int port = server.port();
    run("client", "--port", String.valueOf(port));
    String text = scrape(server.metricsPort());
    String[] server_ = {"transport", "tcp", "side", "server"};
    assertThat(sample(text, "sluice_frames_total", concat(server_, "type", "REQUEST_RESPONSE", "direction", "in"))).isPositive();
    assertThat(sample(text, "sluice_frames_total", concat(server_, "type", "PAYLOAD", "direction", "out"))).isPositive();
    assertThat(sample(text, "sluice_frames_total", concat(server_, "type", "SETUP", "direction", "in"))).isPositive();
    assertThat(sample(text, "sluice_bytes_total", concat(server_, "direction", "in"))).isPositive();
    assertThat(sample(text, "sluice_bytes_total", concat(server_, "direction", "out"))).isPositive();
    assertThat(sample(text, "sluice_streams_total", concat(server_, "interaction", "request_response", "outcome", "complete"))).isPositive();
    assertThat(sample(text, "sluice_streams_total", concat(server_, "interaction", "request_stream", "outcome", "complete"))).isPositive();
    assertThat(sample(text, "sluice_connections_opened_total", server_)).isPositive();
    assertThat(sample(text, "sluice_errors_total", concat(server_, "code", "APPLICATION_ERROR", "direction", "out"))).isPositive();
    lintAccepts(text);
  }

  @Test
  void grpcTestServerServesGrpcA66SeriesPerMethod() throws Exception {
    Served server = serve("grpc-test-server", "--port", "0");
    int port = server.port();
    run("grpc-test-client", "--port", String.valueOf(port), "--test_case", "empty_unary,large_unary,server_streaming");
    String text = scrape(server.metricsPort());
    String unary = "grpc.testing.TestService/UnaryCall";
    assertThat(sample(text, "grpc_server_call_started_total", "grpc_method", unary)).isEqualTo(1);
    assertThat(sample(text, "grpc_server_call_duration_seconds_count", "grpc_method", unary, "grpc_status", "OK")).isEqualTo(1);
    assertThat(sample(text, "grpc_server_call_rcvd_total_compressed_message_size_bytes_sum", "grpc_method", unary, "grpc_status", "OK"))
        .isGreaterThan(271_828); // large_unary sends a 271,828-byte payload
    assertThat(sample(text, "grpc_server_call_sent_total_compressed_message_size_bytes_count", "grpc_method",
            "grpc.testing.TestService/StreamingOutputCall", "grpc_status", "OK"))
        .isEqualTo(1);
    lintAccepts(text);
  }

  @Test
  void grpcTestServerOverRsocketServesRpcAndConnectionSeries() throws Exception {
    Served server = serve("grpc-test-server", "--port", "0", "--transport", "rsocket");
    int port = server.port();
    run("grpc-test-client", "--port", String.valueOf(port), "--transport", "rsocket", "--test_case", "empty_unary,large_unary");
    String text = scrape(server.metricsPort());
    assertThat(sample(text, "rpc_server_call_duration_seconds_count",
            "rpc_system", "sluice", "rpc_service", "grpc.testing.TestService", "rpc_method", "UnaryCall",
            "rpc_response_status_code", "OK"))
        .isEqualTo(1);
    assertThat(sample(text, "rpc_server_call_started_total", "rpc_method", "EmptyCall")).isEqualTo(1);
    assertThat(sample(text, "sluice_frames_total", "transport", "tcp", "side", "server", "type", "REQUEST_RESPONSE", "direction", "in"))
        .isGreaterThanOrEqualTo(2);
    lintAccepts(text);
  }

  private static String[] concat(String[] a, String... b) {
    String[] r = new String[a.length + b.length];
    System.arraycopy(a, 0, r, 0, a.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }

  /**
   * Prometheus' linter (client_golang's promlint, what {@code promtool check metrics} runs) on
   * {@code text}: clean. It runs as tools/metricslint, which {@code .ci/run} builds into {@code
   * SLUICE_GO_BIN} (seconds; promtool itself is all of Prometheus), or as promtool where a developer
   * has that instead; without either the check is skipped (with {@code CI=true} it fails).
   */
  private static void lintAccepts(String text) throws Exception {
    List<String> command =
        GoTools.find("metricslint").map(lint -> List.of(lint.toString()))
            .or(() -> GoTools.find("promtool").map(promtool -> List.of(promtool.toString(), "check", "metrics")))
            .orElseGet(() -> List.of(GoTools.require("metricslint",
                "build it with (cd tools/metricslint && GOBIN=\"$SLUICE_GO_BIN\" go install .)").toString()));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    try (var in = p.getOutputStream()) {
      in.write(text.getBytes(StandardCharsets.UTF_8));
    }
    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("%s said:\n%s", command, said).isZero();
    assertThat(said.strip()).as("%s findings", command).isEmpty();
  }
}
