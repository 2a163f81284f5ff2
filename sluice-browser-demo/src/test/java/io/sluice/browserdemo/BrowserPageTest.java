package io.sluice.browserdemo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The page in a real browser: headless Chromium opens it from {@link BrowserDemo}, the page runs
 * rsocket-js over the WebSocket, and the test reads the report the page posts back to the server
 * (key=value lines): every message of the stream in order, every request-response answered right.
 *
 * <p>Needs the page bundle (built with npm by this module's build) and Chromium. Outside CI a
 * missing one skips the test, saying which; with {@code CI=true} it fails (.ci/run installs both).
 */
class BrowserPageTest {
  /** How long the page may take; generous, the run takes a few seconds. Not an assertion. */
  private static final long REPORT_WAIT_SECONDS = 120;

  private static Path chromium;

  /**
   * Per test, so that a missing tool shows as skipped tests (with this reason in the report and
   * on stderr) rather than as a class that ran nothing.
   */
  @BeforeEach
  void requireBundleAndBrowser() {
    require(
        Page.fromJar().available(),
        "this build has no page bundle (page/app.js): npm was missing or failed when Maven built"
            + " sluice-browser-demo (see bundle.sh's warning in the build output)");
    Optional<Path> found = HeadlessChromium.find();
    String override = System.getenv(HeadlessChromium.BINARY_ENV);
    require(
        found.isPresent(),
        override == null || override.isBlank()
            ? "no Chromium: 'chromium' is not on PATH (apt-get install chromium; or set "
                + HeadlessChromium.BINARY_ENV + " to a Chromium binary)"
            : "no Chromium: " + HeadlessChromium.BINARY_ENV + "=" + override + " is not executable");
    chromium = found.orElseThrow();
  }

  private static void require(boolean present, String what) {
    if (present) {
      return;
    }
    if ("true".equals(System.getenv("CI"))) {
      fail(what + " (CI=true: .ci/run installs npm and Chromium, so this is a failure, not a skip)");
    }
    System.err.println("BrowserPageTest: skipped, " + what);
    Assumptions.assumeTrue(false, "skipped, " + what);
  }

  /** Opens the page with {@code query}, returns its report. */
  private static Properties runPage(String query, Path dir) throws Exception {
    CompletableFuture<String> report = new CompletableFuture<>();
    try (BrowserDemo demo = BrowserDemo.start("127.0.0.1", 0, report::complete)) {
      assertThat(demo.pageAvailable()).isTrue();
      URI page = demo.pageUri().resolve("/?" + query);
      try (HeadlessChromium browser = HeadlessChromium.open(chromium, page, dir)) {
        CompletableFuture.anyOf(report, browser.exited())
            .get(REPORT_WAIT_SECONDS, TimeUnit.SECONDS);
        if (!report.isDone()) {
          fail("Chromium exited before the page reported; its output:\n" + browser.logTail());
        }
      } catch (TimeoutException e) {
        fail("no report from the page within " + REPORT_WAIT_SECONDS + " s");
      }
    }
    return properties(report.join());
  }

  private static Properties properties(String text) throws IOException {
    Properties p = new Properties();
    p.load(new StringReader(text));
    return p;
  }

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void thePageRunsAStreamAndRequestResponsesOverWebSocket(@TempDir Path dir) throws Exception {
    Properties r = runPage("stream=20000&batch=256&responses=500&inflight=16", dir);
    assertThat(r.getProperty("error")).as("the page's error").isEmpty();
    assertThat(r)
        .containsEntry("result", "pass")
        .containsEntry("stream.requested", "20000")
        .containsEntry("stream.received", "20000")
        .containsEntry("stream.inOrder", "true")
        .containsEntry("stream.completed", "true")
        .containsEntry("response.requested", "500")
        .containsEntry("response.ok", "500")
        .containsEntry("response.wrong", "0")
        .containsEntry("response.errors", "0");
    assertThat(r.getProperty("browser")).contains("Chrome");
    // The rates the page showed: present and whole numbers (their size is not tested).
    assertThat(r.getProperty("stream.messagesPerSecond")).matches("[0-9]+");
    assertThat(r.getProperty("response.messagesPerSecond")).matches("[0-9]+");
  }

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void aStreamTheServerRefusesIsReportedAsAFailure(@TempDir Path dir) throws Exception {
    // One more than the server sends: its APPLICATION_ERROR must reach the page as a failure.
    Properties r = runPage("stream=" + (BrowserDemo.MAX_STREAM_COUNT + 1) + "&responses=1", dir);
    assertThat(r.getProperty("result")).isEqualTo("fail");
    assertThat(r.getProperty("stream.received")).isEqualTo("0");
    assertThat(r.getProperty("error")).contains("count:N");
  }
}
