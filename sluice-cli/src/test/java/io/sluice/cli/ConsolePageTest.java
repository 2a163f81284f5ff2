package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console page in a real browser: {@code ./sluice grpc-test-server --console} in its own JVM,
 * headless Chromium opening {@code /console/} with a link that calls a method, and the page's DOM
 * after the call (Chromium's {@code --dump-dom}): the services listed, the method's messages, the
 * answer or the status, the live figures counting the call. A screenshot of the page after a call
 * is kept in {@code target/console-page/console.png} for a person to look at. Also {@code ./sluice
 * server --transport any --console}: the one-port server serves the page too.
 *
 * <p>Needs Chromium ({@code $SLUICE_CHROMIUM} or {@code chromium} on the PATH): without it the
 * browser tests are skipped, saying so, unless {@code CI=true}, where that is a failure.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConsolePageTest {
  private static final long BROWSER_SECONDS = 90; // a hang guard: a run takes a few seconds
  private static final Path OUTPUT = Path.of("target", "console-page");

  private static Process server;
  private static int port;

  @BeforeAll
  static void startServer() throws Exception {
    server = start("grpc-test-server", "--port", "0", "--console");
    port = listening(server);
  }

  @AfterAll
  static void stopServer() throws Exception {
    stop(server);
  }

  private static Process start(String... args) throws IOException {
    List<String> cmd = ChildJvm.command(args);
    return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
  }

  private static int listening(Process p) throws IOException {
    String first = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
    assertThat(first).startsWith("LISTENING ");
    return Integer.parseInt(first.substring("LISTENING ".length()).strip());
  }

  private static void stop(Process p) throws InterruptedException {
    if (p != null) {
      p.destroy();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
  }

  private static Path chromium() {
    Optional<Path> found = findChromium();
    if (found.isEmpty()) {
      String why = "no Chromium: set SLUICE_CHROMIUM or put 'chromium' on the PATH (apt-get install chromium)";
      if ("true".equals(System.getenv("CI"))) {
        fail(why + " (CI=true: a failure, not a skip)");
      }
      System.err.println("ConsolePageTest: skipped, " + why);
      Assumptions.assumeTrue(false, why);
    }
    return found.orElseThrow();
  }

  private static Optional<Path> findChromium() {
    String override = System.getenv("SLUICE_CHROMIUM");
    if (override != null && !override.isBlank()) {
      return Files.isExecutable(Path.of(override)) ? Optional.of(Path.of(override)) : Optional.empty();
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path p = Path.of(dir.isEmpty() ? "." : dir, "chromium");
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /**
   * Runs headless Chromium on {@code url} with a fresh profile under {@code dir}, then {@code
   * mode} ({@code --dump-dom}, or {@code --screenshot=FILE}) once the page's timers and fetches
   * have had {@code budgetMs} of virtual time; returns what it printed on stdout.
   */
  private static String browse(Path chromium, String url, Path dir, String mode, int budgetMs) throws Exception {
    Path profile = Files.createTempDirectory(dir, "profile-");
    Path tmp = Files.createTempDirectory(dir, "tmp-");
    Path log = Files.createTempFile(dir, "chromium-", ".log");
    Path out = Files.createTempFile(dir, "stdout-", ".html");
    ProcessBuilder pb =
        new ProcessBuilder(
            chromium.toString(),
            "--headless",
            "--no-sandbox",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-gpu",
            "--hide-scrollbars",
            "--user-data-dir=" + profile,
            "--window-size=1400,900",
            "--virtual-time-budget=" + budgetMs,
            mode,
            url);
    pb.environment().put("TMPDIR", tmp.toString());
    Process p =
        pb.redirectOutput(out.toFile()).redirectError(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    try {
      if (!p.waitFor(BROWSER_SECONDS, TimeUnit.SECONDS)) {
        fail("Chromium did not finish within " + BROWSER_SECONDS + " s; its log:\n" + tail(log));
      }
    } finally {
      p.descendants().forEach(ProcessHandle::destroy);
      p.destroy();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    assertThat(p.exitValue()).as("Chromium's exit code; its log:\n%s", tail(log)).isZero();
    return Files.readString(out, StandardCharsets.UTF_8);
  }

  private static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
  }

  private static String link(String method, String json) {
    return "http://127.0.0.1:" + port + "/console/#call=" + method + "&data="
        + URLEncoder.encode(json, StandardCharsets.UTF_8).replace("+", "%20") + "&run";
  }

  /** The text of the element with {@code id} in a dumped DOM (tags inside it dropped). */
  private static String byId(String dom, String id) {
    int at = dom.indexOf("id=\"" + id + "\"");
    assertThat(at).as("element #%s in the page:\n%s", id, dom).isGreaterThanOrEqualTo(0);
    int start = dom.indexOf('>', at) + 1;
    String tag = dom.substring(dom.lastIndexOf('<', at) + 1, at).strip().split("\\s")[0];
    int end = dom.indexOf("</" + tag + ">", start);
    return dom.substring(start, end).replaceAll("<[^>]*>", " ").replace("&quot;", "\"").replace("&amp;", "&")
        .replaceAll("\\s+", " ").strip();
  }

  @Test
  void aCallFromThePageShowsTheAnswerAndTheFigures(@TempDir Path dir) throws Exception {
    Path chromium = chromium();
    String url = link("grpc.testing.TestService/UnaryCall", "{\"responseSize\": 3, \"fillServerId\": true}");
    String dom = browse(chromium, url, dir, "--dump-dom", 8000);
    assertThat(dom).contains("data-ready=\"true\"");
    assertThat(byId(dom, "services"))
        .contains("grpc.testing.TestService", "UnaryCall unary", "StreamingOutputCall server streaming",
            "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection");
    assertThat(byId(dom, "method-name")).isEqualTo("grpc.testing.TestService/UnaryCall");
    assertThat(byId(dom, "request-type")).isEqualTo("grpc.testing.SimpleRequest");
    assertThat(byId(dom, "request-fields")).contains("responseSize int32 2", "fillServerId bool 9");
    assertThat(byId(dom, "status")).startsWith("OK in ").endsWith(" ms");
    assertThat(byId(dom, "answer")).contains("\"body\": \"AAAA\"").contains("\"serverId\": \"sluice-");
    // The figures were read after the call: it is counted.
    assertThat(byId(dom, "method-figures")).containsPattern("grpc\\.testing\\.TestService/UnaryCall [1-9][0-9]* [0-9]+ ");
    assertThat(byId(dom, "connections")).matches("[1-9][0-9]*");
    assertThat(byId(dom, "figures-source")).isEqualTo("figures: the console's own counts (RpcInstrumentation)");

    // The screenshot, for a person: the same page after another call.
    Files.createDirectories(OUTPUT);
    Path png = OUTPUT.resolve("console.png").toAbsolutePath();
    Files.deleteIfExists(png);
    browse(chromium, url, dir, "--screenshot=" + png, 8000);
    assertThat(png).exists();
    assertThat(Files.size(png)).isGreaterThan(10_000);
    System.err.println("ConsolePageTest: screenshot of the console after a call: " + png);
  }

  @Test
  void aFailedCallShowsItsStatus(@TempDir Path dir) throws Exception {
    Path chromium = chromium();
    String url = link("grpc.testing.TestService/UnaryCall", "{\"responseStatus\": {\"code\": 7, \"message\": \"not you\"}}");
    String dom = browse(chromium, url, dir, "--dump-dom", 8000);
    assertThat(byId(dom, "status")).isEqualTo("PERMISSION_DENIED: not you");
    // A request the method's type does not have: the server's INVALID_ARGUMENT, shown as such.
    String bad = browse(chromium, link("grpc.testing.TestService/UnaryCall", "{\"noSuchField\": 1}"), dir, "--dump-dom", 8000);
    assertThat(byId(bad, "status")).startsWith("INVALID_ARGUMENT: ");
  }

  /** {@code ./sluice server --transport any --console}: the one port serves the page and its figures. */
  @Test
  void theOnePortServerServesTheConsoleToo() throws Exception {
    Process any = start("server", "--transport", "any", "--port", "0", "--console");
    try {
      int anyPort = listening(any);
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
      HttpResponse<String> page =
          http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + anyPort + "/console/"))
              .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.body()).contains("<title>Sluice console</title>");
      HttpResponse<String> services =
          http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + anyPort + "/console/api/services"))
              .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(services.body()).contains("\"name\":\"grpc.health.v1.Health\"");
      HttpResponse<String> figures =
          http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + anyPort + "/console/api/figures"))
              .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(figures.body()).matches("\\{\"source\":\".*\",\"connections\":[1-9][0-9]*,.*");
      // ./sluice call reaches the same port's gRPC (health and reflection come with --console).
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      int exit = Main.run(new String[] {"call", "127.0.0.1:" + anyPort, "grpc.health.v1.Health/Check"},
          new java.io.ByteArrayInputStream(new byte[0]), new java.io.PrintStream(out, true, StandardCharsets.UTF_8),
          System.err);
      assertThat(exit).isZero();
      assertThat(out.toString(StandardCharsets.UTF_8).strip()).isEqualTo("{\"status\":\"SERVING\"}");
    } finally {
      stop(any);
    }
  }
}
