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
                  100,
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
    } finally {
      server.close();
    }
  }
}
