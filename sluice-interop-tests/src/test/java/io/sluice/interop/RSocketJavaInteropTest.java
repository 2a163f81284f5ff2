package io.sluice.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cli.EchoClient;
import io.sluice.cli.EchoResponder;
import io.sluice.core.ConnectionOptions;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import io.sluice.transport.websocket.WebSocketClientTransport;
import io.sluice.transport.websocket.WebSocketServerTransport;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Sluice against the official rsocket-java 1.1.5 over TCP and WebSocket (rsocket-java's
 * WebsocketServerTransport / WebsocketClientTransport against Sluice's, path {@code /}), both
 * ways, for every case of the echo
 * contract: the four interactions, metadata push, request-n windows (1, then 3, then unbounded),
 * cancel mid-stream, application errors, 1 MiB payloads each way, and per variant fragmentation
 * (64 KiB MTU), leasing, and keepalive (Sluice's client idles until 11 KEEPALIVEs were answered,
 * the rsocket-java peer's for 3.5 intervals and wants 2).
 *
 * <p>The rsocket-java server takes only a transport and an MTU; the variants that share both share
 * one server process (four, not eight): it serves each connection alone and picks lease or not
 * from that connection's SETUP, so a variant's client meets what a fresh server would show it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RSocketJavaInteropTest {
  /** The rsocket-java server processes, by their arguments; stopped after the class. */
  private final Map<String, PeerProcess> servers = new LinkedHashMap<>();

  @AfterAll
  void stopServers() throws InterruptedException {
    for (PeerProcess p : servers.values()) {
      p.close();
    }
    servers.clear();
  }

  /** The rsocket-java echo server for {@code transport} and {@code mtu}: started on first use. */
  private PeerProcess server(String transport, int mtu) throws Exception {
    String common = "server --transport " + transport + " --host 127.0.0.1 --port 0";
    String args = mtu > 0 ? common + " --mtu " + mtu : common;
    PeerProcess p = servers.get(args);
    if (p == null) {
      p = PeerProcess.start(args.split(" "));
      servers.put(args, p);
    }
    return p;
  }

  static List<Arguments> variants() {
    return List.of(
        Arguments.of("tcp", "plain", 0, false, 0),
        Arguments.of("tcp", "fragmented-64KiB", 65536, false, 0),
        Arguments.of("tcp", "lease", 0, true, 0),
        Arguments.of("tcp", "keepalive-300ms", 0, false, 300),
        Arguments.of("tcp", "all", 65536, true, 300),
        Arguments.of("ws", "plain", 0, false, 0),
        Arguments.of("ws", "fragmented-64KiB", 65536, false, 0),
        Arguments.of("ws", "all", 65536, true, 300));
  }

  private static ConnectionOptions options(int mtu, boolean lease, int keepAliveMillis) {
    ConnectionOptions.Builder b = ConnectionOptions.builder().mtu(mtu).maxFrameSize(0xFFFFFF).lease(lease);
    if (keepAliveMillis > 0) {
      b.keepAlive(Duration.ofMillis(keepAliveMillis), Duration.ofSeconds(90));
    }
    return b.build();
  }

  @ParameterizedTest(name = "rsocket-java client -> Sluice server ({0}, {1})")
  @MethodSource("variants")
  void rsocketJavaClientAgainstSluiceServer(
      String transport, String name, int mtu, boolean lease, int keepAlive) throws Exception {
    boolean ws = transport.equals("ws");
    ServerTransport.Bound server =
        SluiceServer.builder(
                ws
                    ? WebSocketServerTransport.create("127.0.0.1", 0)
                    : TcpServerTransport.create("127.0.0.1", 0))
            .options(options(mtu, true, 0))
            .acceptor((setup, requester) -> new EchoResponder(requester.alloc()))
            .bind()
            .block(Duration.ofSeconds(10));
    try {
      int port = ((InetSocketAddress) server.address()).getPort();
      StringBuilder args =
          new StringBuilder("client --transport " + transport + " --host 127.0.0.1 --port " + port);
      if (mtu > 0) {
        args.append(" --mtu ").append(mtu);
      }
      if (lease) {
        args.append(" --lease");
      }
      if (keepAlive > 0) {
        args.append(" --keepalive-ms ").append(keepAlive);
      }
      try (PeerProcess peer = PeerProcess.start(args.toString().split(" "))) {
        int exit = peer.awaitExit(180);
        List<String> out = peer.output();
        assertThat(out.stream().filter(l -> l.startsWith("FAIL")).collect(Collectors.toList()))
            .as("failed cases, full output: %s", out)
            .isEmpty();
        assertThat(out).anyMatch(l -> l.matches("\\d+ passed, 0 failed"));
        assertThat(out).contains("PASS request-n-window", "PASS large-request", "PASS large-response");
        if (lease) {
          assertThat(out).contains("PASS lease");
        }
        if (keepAlive > 0) {
          assertThat(out).contains("PASS keepalive");
        }
        assertThat(exit).isZero();
      }
    } finally {
      server.close();
    }
  }

  @ParameterizedTest(name = "Sluice client -> rsocket-java server ({0}, {1})")
  @MethodSource("variants")
  void sluiceClientAgainstRSocketJavaServer(
      String transport, String name, int mtu, boolean lease, int keepAlive) throws Exception {
    PeerProcess peer = server(transport, mtu);
    int port = peer.awaitPort();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    int failures =
        new EchoClient(
                transport.equals("ws")
                    ? WebSocketClientTransport.create(URI.create("ws://127.0.0.1:" + port + "/"))
                    : TcpClientTransport.create("127.0.0.1", port),
                options(mtu, lease, keepAlive),
                true,
                keepAlive,
                out)
            .run();
    String report = bytes.toString(StandardCharsets.UTF_8);
    assertThat(failures).as("%s%nrsocket-java server's output: %s", report, peer.output()).isZero();
    assertThat(report).contains("PASS request-n-window", "PASS large-request", "PASS large-response");
    if (keepAlive > 0) {
      assertThat(report).contains("PASS keepalive");
    }
  }
}
