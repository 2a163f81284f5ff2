package io.sluice.cli;

import io.sluice.browserdemo.BrowserDemo;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * {@code sluice demo --browser}: serves the browser page and RSocket over WebSocket on one port of
 * 127.0.0.1 (sluice-browser-demo) until stopped, printing each report a page sends back.
 */
final class BrowserDemoCommand {
  static final int DEFAULT_PORT = 7880;

  private BrowserDemoCommand() {}

  /** Serves until killed, or for {@code seconds} when positive. */
  static int run(int port, int seconds, PrintStream out) throws InterruptedException {
    CompletableFuture<Void> stop = new CompletableFuture<>();
    if (seconds > 0) {
      stop.completeOnTimeout(null, seconds, TimeUnit.SECONDS);
    }
    return run(port, stop, out);
  }

  /** Serves until {@code stop} completes (or the server closes). */
  static int run(int port, CompletableFuture<?> stop, PrintStream out) throws InterruptedException {
    BrowserDemo demo;
    try {
      demo = BrowserDemo.start("127.0.0.1", port, report -> out.println(summary(report)));
    } catch (RuntimeException e) {
      out.println("sluice demo --browser: cannot serve on 127.0.0.1:" + port + ": " + e.getMessage());
      return 1;
    }
    try (demo) {
      String ws = demo.pageUri().resolve(BrowserDemo.RSOCKET_PATH).toString().replaceFirst("^http", "ws");
      out.println("sluice demo --browser: RSocket over WebSocket at " + ws);
      if (demo.pageAvailable()) {
        out.println("open " + demo.pageUri() + " in a browser (Ctrl-C stops the server)");
      } else {
        out.println(BrowserDemo.PAGE_UNAVAILABLE);
      }
      out.println("LISTENING " + demo.address().getPort());
      out.flush();
      CompletableFuture.anyOf(stop, demo.onClose()).get();
    } catch (ExecutionException e) {
      out.println("sluice demo --browser: " + e.getCause());
      return 1;
    }
    return 0;
  }

  /** One line for a page's report: "browser: pass, stream 1000000 in order at ... msgs/s, ...". */
  static String summary(String report) {
    Properties p = new Properties();
    try {
      p.load(new StringReader(report));
    } catch (IOException | IllegalArgumentException e) {
      return "browser report (unreadable): " + report.strip();
    }
    StringBuilder b = new StringBuilder("browser: ").append(p.getProperty("result", "?"));
    if (p.getProperty("stream.received") != null) {
      b.append(", request-stream ").append(p.getProperty("stream.received"))
          .append('/').append(p.getProperty("stream.requested"))
          .append(" messages").append("true".equals(p.getProperty("stream.inOrder")) ? " in order" : " OUT OF ORDER")
          .append(", ").append(p.getProperty("stream.messagesPerSecond")).append(" msgs/s");
    }
    if (p.getProperty("response.ok") != null) {
      b.append("; request-response ").append(p.getProperty("response.ok"))
          .append('/').append(p.getProperty("response.requested")).append(" right")
          .append(", ").append(p.getProperty("response.messagesPerSecond")).append(" msgs/s");
    }
    String error = p.getProperty("error", "");
    if (!error.isEmpty()) {
      b.append("; error: ").append(error);
    }
    return b.toString();
  }
}
