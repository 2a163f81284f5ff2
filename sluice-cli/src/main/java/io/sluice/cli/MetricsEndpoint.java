package io.sluice.cli;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.micrometer.SluiceMetrics;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * {@code --metrics-port P}: Sluice's meters in a {@link PrometheusMeterRegistry}, served as
 * Prometheus text at {@code http://127.0.0.1:P/metrics} by the JDK's small HTTP server on one
 * daemon thread (loopback only; 0 picks a free port, named on stderr as {@code METRICS <url>}).
 */
final class MetricsEndpoint implements AutoCloseable {
  private final PrometheusMeterRegistry registry;
  private final SluiceMetrics metrics;
  private final HttpServer server;
  private final ExecutorService executor;

  private MetricsEndpoint(int port) throws IOException {
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    metrics = SluiceMetrics.of(registry);
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
    server.createContext(
        "/metrics",
        exchange -> {
          try (exchange) {
            if (!exchange.getRequestMethod().equals("GET")) {
              exchange.sendResponseHeaders(405, -1);
              return;
            }
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream o = exchange.getResponseBody()) {
              o.write(body);
            }
          }
        });
    executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "sluice-metrics-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.start();
  }

  /** The endpoint {@code --metrics-port} asks for, or null without it. */
  static MetricsEndpoint start(Args a, PrintStream err) {
    int port = a.getInt("metrics-port", -1);
    if (port == -1) {
      return null;
    }
    if (port < 0 || port > 65535) {
      throw new Args.UsageException("--metrics-port must be in 0..65535");
    }
    try {
      MetricsEndpoint m = new MetricsEndpoint(port);
      err.println("METRICS http://127.0.0.1:" + m.port() + "/metrics");
      err.flush();
      return m;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve metrics on 127.0.0.1:" + port, e);
    }
  }

  SluiceMetrics metrics() {
    return metrics;
  }

  int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    registry.close();
  }
}
