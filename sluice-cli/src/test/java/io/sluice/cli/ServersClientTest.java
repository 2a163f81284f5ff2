package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.ConnectionOptions;
import io.sluice.reactor.SluiceServer;
import io.sluice.test.ClosedPort;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code ./sluice client --servers}: the echo contract through the balancer over three servers. */
class ServersClientTest {
  private final List<ServerTransport.Bound> servers = new ArrayList<>();
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @AfterEach
  void close() {
    servers.forEach(ServerTransport.Bound::close);
  }

  private int echoServer() {
    ServerTransport.Bound b =
        SluiceServer.builder(TcpServerTransport.create("127.0.0.1", 0))
            .options(ConnectionOptions.defaults())
            .acceptor((setup, requester) -> new EchoResponder(requester.alloc()))
            .bind()
            .block(Duration.ofSeconds(10));
    servers.add(b);
    return ((InetSocketAddress) b.address()).getPort();
  }

  private int run(String... args) {
    return Main.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void theEchoContractPassesThroughTheBalancer() {
    int a = echoServer();
    int b = echoServer();
    int c = echoServer();
    int code =
        run("client", "--servers", "127.0.0.1:" + a + ",127.0.0.1:" + b + ",127.0.0.1:" + c, "--large");
    String report = out.toString(StandardCharsets.UTF_8);
    assertThat(code).as(report + err).isZero();
    assertThat(report)
        .contains(
            "PASS request-response\n",
            "PASS metadata-push",
            "PASS request-stream-many",
            "PASS request-channel",
            "PASS large-response",
            "SKIP fire-and-forget",
            "11 passed, 0 failed",
            "server 127.0.0.1:" + a + ": ",
            "server 127.0.0.1:" + b + ": ",
            "server 127.0.0.1:" + c + ": ");
  }

  @Test
  void noReachableServerFailsClearlyAndBounded() throws Exception {
    // The wait for a first server, shortened from its 10 s: nothing would connect in any case.
    System.setProperty(ServersClient.CONNECT_WAIT_PROPERTY, "500");
    int code;
    int a;
    // A port where nothing listens, held so from the start: a stopped server's port may be taken
    // by another socket (another test JVM's) before it can be held.
    try (ClosedPort closed = ClosedPort.any()) {
      a = closed.port();
      code = run("client", "--servers", "127.0.0.1:" + a);
    } finally {
      System.clearProperty(ServersClient.CONNECT_WAIT_PROPERTY);
    }
    String report = out.toString(StandardCharsets.UTF_8);
    assertThat(code).isEqualTo(1);
    assertThat(report).contains("FAIL connect: no server of --servers connected: 127.0.0.1:" + a);
  }

  @Test
  void misuseIsAUsageError() {
    assertThat(run("client", "--servers", "127.0.0.1:1", "--port", "7000")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--servers replaces --host and --port");
    assertThat(run("client", "--servers", "127.0.0.1")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--servers takes host:port");
    assertThat(run("client", "--servers", "127.0.0.1:1", "--transport", "uds")).isEqualTo(2);
    assertThat(run("client", "--servers", "127.0.0.1:1", "--keepalive-ms", "100")).isEqualTo(2);
  }
}
