package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.ConnectionOptions;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code ./sluice server} and {@code ./sluice client} pass against each other. */
class EchoContractTest {

  /** The keepalive interval the contract tests run with ({@code --keepalive-ms}). */
  private static final int KEEPALIVE_MS = 250;

  private static String runClient(ConnectionOptions serverOptions, ConnectionOptions clientOptions) {
    ServerTransport.Bound server =
        SluiceServer.builder(TcpServerTransport.create("127.0.0.1", 0))
            .options(serverOptions)
            .acceptor((setup, requester) -> new EchoResponder(requester.alloc()))
            .bind()
            .block(Duration.ofSeconds(10));
    try {
      int port = ((InetSocketAddress) server.address()).getPort();
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      int failures =
          new EchoClient(
                  TcpClientTransport.create("127.0.0.1", port),
                  clientOptions,
                  true,
                  KEEPALIVE_MS,
                  new PrintStream(bytes, true, StandardCharsets.UTF_8))
              .run();
      String report = bytes.toString(StandardCharsets.UTF_8);
      assertThat(failures).as(report).isZero();
      return report;
    } finally {
      server.close();
    }
  }

  @Test
  void everyCasePasses() {
    String report = runClient(ConnectionOptions.defaults(), ConnectionOptions.defaults());
    assertThat(report)
        .contains(
            "PASS request-response\n",
            "PASS request-response-metadata",
            "PASS request-response-error",
            "PASS fire-and-forget",
            "PASS metadata-push",
            "PASS request-stream\n",
            "PASS request-stream-many",
            "PASS request-n-window",
            "PASS cancel-mid-stream",
            "PASS request-channel",
            "PASS large-request",
            "PASS large-response",
            "PASS keepalive",
            "13 passed, 0 failed");
  }

  @Test
  void everyCasePassesUnderTheServersAdaptiveAndFixedLeases() {
    ConnectionOptions client = ConnectionOptions.builder().lease(true).build();
    for (String[] lease : new String[][] {{"--lease"}, {"--lease-fixed", "2000:100000"}}) {
      String[] argv = new String[lease.length + 1];
      argv[0] = "server";
      System.arraycopy(lease, 0, argv, 1, lease.length);
      ConnectionOptions server = Main.serverOptions(Main.COMMANDS.get("server").parse(argv));
      assertThat(runClient(server, client)).as(String.join(" ", lease)).contains("13 passed, 0 failed");
    }
  }

  @Test
  void everyCasePassesFragmentedAndLeased() {
    ConnectionOptions small = ConnectionOptions.builder().mtu(1024).lease(true).build();
    assertThat(runClient(small, small)).contains("13 passed, 0 failed");
  }

  @Test
  void clientReportsFailuresAgainstAServerThatBreaksTheContract() {
    // A server whose responder answers nothing: the client must say FAIL, not hang or pass.
    ServerTransport.Bound server =
        SluiceServer.builder(TcpServerTransport.create("127.0.0.1", 0))
            .responder(new io.sluice.reactor.ReactorResponder() {})
            .bind()
            .block(Duration.ofSeconds(10));
    try {
      int port = ((InetSocketAddress) server.address()).getPort();
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      int failures =
          new EchoClient(
                  TcpClientTransport.create("127.0.0.1", port),
                  ConnectionOptions.defaults(),
                  false,
                  0,
                  new PrintStream(bytes, true, StandardCharsets.UTF_8))
              .run();
      String report = bytes.toString(StandardCharsets.UTF_8);
      assertThat(failures).isGreaterThan(0);
      assertThat(report).contains("FAIL request-response:").contains("passed, " + failures + " failed");
      // The windowed stream fails with the server's error as soon as it comes, not at a timeout.
      assertThat(report)
          .containsPattern("FAIL request-n-window: the stream failed \\(.*not implemented.*\\)"
              + " after 0 of 1 messages");
    } finally {
      server.close();
    }
  }

  /** Runs only the cases {@code only} names against {@code port}; returns the printed report. */
  private static String runCases(int port, int keepAliveMillis, java.util.function.Predicate<String> only) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    new EchoClient(
            TcpClientTransport.create("127.0.0.1", port),
            ConnectionOptions.defaults(),
            false,
            keepAliveMillis,
            new PrintStream(bytes, true, StandardCharsets.UTF_8))
        .run(only);
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void keepAliveCaseFailsAgainstAServerThatNeverAnswersKeepAlive() throws Exception {
    try (SilentKeepAlivePeer peer = new SilentKeepAlivePeer()) {
      String report = runCases(peer.port(), KEEPALIVE_MS, "keepalive"::equals);
      assertThat(report).contains("FAIL keepalive: ").contains("0 passed, 1 failed");
      // The client announced the interval it was given and a lifetime of a few intervals, sent
      // KEEPALIVEs, got no answer, and gave up on the connection at that lifetime.
      assertThat(peer.setupKeepAlive).isEqualTo(KEEPALIVE_MS);
      assertThat(peer.setupLifetime).isEqualTo(EchoClient.KEEPALIVE_LIFETIME_INTERVALS * KEEPALIVE_MS);
      assertThat(peer.keepAlives).hasPositiveValue();
      assertThat(report).contains("keepalive max lifetime");
    }
  }

  @Test
  void theSilentPeerOtherwiseAnswers() throws Exception {
    // The control for the test above: the same peer passes request-response, so what fails there
    // is the keepalive.
    try (SilentKeepAlivePeer peer = new SilentKeepAlivePeer()) {
      String report = runCases(peer.port(), KEEPALIVE_MS, "request-response"::equals);
      assertThat(report).contains("PASS request-response\n").contains("1 passed, 0 failed");
    }
  }
}
