package io.sluice.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cli.EchoResponder;
import io.sluice.cli.ResumeCountClient;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Resumption;
import io.sluice.reactor.SluiceServer;
import io.sluice.test.CutProxy;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Resumption with the official rsocket-java 1.1.5, both ways, across cuts made by a {@link
 * CutProxy} between the two: rsocket-java's resumable client streams {@code seq:N} from a Sluice
 * server, and Sluice's resumable client streams it from rsocket-java's server ({@code --resume}).
 * Every message must arrive once, in order; the proxy must have seen the reconnects. The count is
 * {@code -Dsluice.resume.interop.messages} (default 30,000); rsocket-java's client is cut {@link
 * #CUTS} times, Sluice's client once: rsocket-java 1.1.5's server answers a second RESUME of the
 * same session "unknown resume token", with its own client too (docs/compatibility.md).
 */
class RSocketJavaResumeInteropTest {
  private static final int MESSAGES = Integer.getInteger("sluice.resume.interop.messages", 30_000);
  private static final int CUTS = 3;

  /**
   * Cuts the proxy's newest connection up to {@code maxCuts} times, alternating between the middle
   * of a frame and a frame boundary, waiting for each reconnect, until {@code done}.
   */
  private static int cutWhileRunning(
      CutProxy proxy, int maxCuts, BooleanSupplier started, BooleanSupplier done) throws Exception {
    int cuts = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    // Not before the first message: a cut inside the SETUP leaves no session to resume.
    while (!started.getAsBoolean() && !done.getAsBoolean() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    for (int i = 0; i < maxCuts && !done.getAsBoolean() && System.nanoTime() < deadline; i++) {
      Thread.sleep(20);
      int before = proxy.connections();
      if (proxy.cut(i % 2 == 0 ? CutProxy.Mode.MID_FRAME : CutProxy.Mode.FRAME_BOUNDARY, 200)) {
        cuts++;
      }
      while (proxy.connections() == before && !done.getAsBoolean() && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
    }
    return cuts;
  }

  @Test
  void rsocketJavaClientResumesToASluiceServerAcrossCuts() throws Exception {
    ServerTransport.Bound server =
        SluiceServer.builder(TcpServerTransport.create("127.0.0.1", 0))
            .options(ConnectionOptions.builder().resumption(Resumption.defaults()).build())
            .acceptor((setup, requester) -> new EchoResponder(requester.alloc()))
            .bind()
            .block(Duration.ofSeconds(10));
    try (CutProxy proxy = new CutProxy((InetSocketAddress) server.address())) {
      String[] args =
          ("resume-client --host 127.0.0.1 --port " + proxy.port() + " --count " + MESSAGES)
              .split(" ");
      try (PeerProcess peer = PeerProcess.start(args)) {
        CompletableFuture<Integer> exit =
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return peer.awaitExit(300);
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                });
        int cuts =
            cutWhileRunning(proxy, CUTS, () -> peer.output().contains("RECEIVING"), exit::isDone);
        int code = exit.get(330, TimeUnit.SECONDS);
        List<String> out = peer.output();
        assertThat(out).as("peer output").contains("PASS stream " + MESSAGES + " messages in order");
        assertThat(code).isZero();
        assertThat(cuts).as("cuts made while the stream ran").isPositive();
        // The first and one per cut at least (a reconnect cut before its RESUME landed adds one).
        assertThat(proxy.connections()).as("connections").isGreaterThan(cuts);
      }
    } finally {
      server.close();
    }
  }

  @Test
  void sluiceClientResumesToAnRSocketJavaServerAcrossCuts() throws Exception {
    try (PeerProcess peer =
        PeerProcess.start("server --host 127.0.0.1 --port 0 --resume".split(" "))) {
      int port = peer.awaitPort();
      try (CutProxy proxy = new CutProxy(new InetSocketAddress("127.0.0.1", port))) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        CompletableFuture<Void> started = new CompletableFuture<>();
        CompletableFuture<Integer> run =
            CompletableFuture.supplyAsync(
                () ->
                    ResumeCountClient.run(
                        TcpClientTransport.create("127.0.0.1", proxy.port()),
                        ConnectionOptions.builder().build(),
                        MESSAGES,
                        out,
                        () -> started.complete(null)));
        // One cut: rsocket-java 1.1.5's server forgets the session at the second (docs/compatibility.md).
        int cuts = cutWhileRunning(proxy, 1, started::isDone, run::isDone);
        int code = run.get(300, TimeUnit.SECONDS);
        String report = bytes.toString(StandardCharsets.UTF_8);
        assertThat(report)
            .as("%s; peer: %s", report, peer.output())
            .contains("PASS stream " + MESSAGES + " messages in order");
        assertThat(code).isZero();
        assertThat(cuts).isPositive();
        assertThat(report).contains("RESUMED " + cuts);
      }
    }
  }
}
