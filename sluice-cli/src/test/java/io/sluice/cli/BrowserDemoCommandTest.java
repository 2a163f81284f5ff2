package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.browserdemo.BrowserDemo;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code sluice demo --browser} as a user runs it (the page itself runs in a browser in
 * sluice-browser-demo's BrowserPageTest): it prints where to go and LISTENING, serves the page (or
 * says it is unavailable, as the jar's bundle decides) and prints a report a page posts.
 */
class BrowserDemoCommandTest {
  private static final long WAIT_SECONDS = 30; // hang guard only

  /** A PrintStream whose lines arrive in a queue. */
  private static final class Lines extends OutputStream {
    final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    @Override
    public synchronized void write(int b) {
      if (b == '\n') {
        lines.add(line.toString(StandardCharsets.UTF_8));
        line.reset();
      } else {
        line.write(b);
      }
    }

    String next() throws InterruptedException {
      String l = lines.poll(WAIT_SECONDS, TimeUnit.SECONDS);
      assertThat(l).as("a line within %d s", WAIT_SECONDS).isNotNull();
      return l;
    }
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void servesThePageAndPrintsWhatItReports() throws Exception {
    Lines lines = new Lines();
    PrintStream out = new PrintStream(lines, true, StandardCharsets.UTF_8);
    CompletableFuture<Void> stop = new CompletableFuture<>();
    CompletableFuture<Integer> exit =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return BrowserDemoCommand.run(0, stop, out);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
              }
            });
    assertThat(lines.next()).matches("sluice demo --browser: RSocket over WebSocket at ws://127\\.0\\.0\\.1:\\d+/rsocket");
    String second = lines.next();
    String listening = lines.next();
    assertThat(listening).matches("LISTENING \\d+");
    int port = Integer.parseInt(listening.substring("LISTENING ".length()));

    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(WAIT_SECONDS)).build();
    URI base = URI.create("http://127.0.0.1:" + port + "/");
    HttpResponse<String> page =
        http.send(HttpRequest.newBuilder(base).timeout(Duration.ofSeconds(WAIT_SECONDS)).build(),
            HttpResponse.BodyHandlers.ofString());
    if (page.statusCode() == 200) {
      assertThat(second).isEqualTo("open " + base + " in a browser (Ctrl-C stops the server)");
      assertThat(page.body()).contains("<script src=\"app.js\">");
    } else {
      assertThat(page.statusCode()).isEqualTo(503);
      assertThat(second).isEqualTo(BrowserDemo.PAGE_UNAVAILABLE);
      assertThat(page.body()).contains("unavailable");
    }

    String report =
        "result=pass\nstream.requested=10\nstream.received=10\nstream.inOrder=true\n"
            + "stream.messagesPerSecond=123\nresponse.requested=4\nresponse.ok=4\n"
            + "response.messagesPerSecond=45\nerror=\n";
    HttpResponse<String> posted =
        http.send(
            HttpRequest.newBuilder(base.resolve("/report"))
                .timeout(Duration.ofSeconds(WAIT_SECONDS))
                .POST(HttpRequest.BodyPublishers.ofString(report))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(posted.statusCode()).isEqualTo(204);
    assertThat(lines.next())
        .isEqualTo(
            "browser: pass, request-stream 10/10 messages in order, 123 msgs/s;"
                + " request-response 4/4 right, 45 msgs/s");

    stop.complete(null);
    assertThat(exit.get(WAIT_SECONDS, TimeUnit.SECONDS)).isZero();
  }

  @Test
  void aBusyPortFailsWithExitCode1() throws Exception {
    try (BrowserDemo taken = BrowserDemo.start("127.0.0.1", 0, r -> {})) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      int exit =
          BrowserDemoCommand.run(
              taken.address().getPort(),
              CompletableFuture.completedFuture(null),
              new PrintStream(bytes, true, StandardCharsets.UTF_8));
      assertThat(exit).isEqualTo(1);
      assertThat(bytes.toString(StandardCharsets.UTF_8)).startsWith("sluice demo --browser: cannot serve on 127.0.0.1:");
    }
  }
}
