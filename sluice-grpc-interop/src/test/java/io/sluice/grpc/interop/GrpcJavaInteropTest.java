package io.sluice.grpc.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.test.Ports;
import io.sluice.transport.grpc.GrpcChannel;
import io.sluice.transport.grpc.GrpcServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;

/**
 * The interop runs against grpc-java's own peers (peers/grpc-java-peer/run.sh, grpc-interop-testing
 * 1.79.0 in its own JVMs): grpc-java's TestServiceClient, over netty and over OkHttp, against
 * {@link TestServiceImpl} on Sluice's gRPC server, and the Sluice-stub cases over Sluice's gRPC
 * client against grpc-java's TestServiceServer. grpc-java's client runs its cases in one JVM per
 * transport (run.sh's CasesRunner: a fresh client and channel per case), not one JVM per case.
 * Part of every build: the peers/grpc-java-peer module, built before this one, copies the peer into
 * its target/lib; outside the reactor the test fetches it with Maven first, passing {@code -Dsluice.grpcJavaInterop.mvnArgs=...}.
 * {@code -Dsluice.grpcJavaInterop=false} skips it.
 *
 * <p>grpc-java's client is run with the cases its own server passes here (shared/GRPC-NOTES.md; the
 * three others need a caching proxy or a compressed-message probe neither server answers). The two
 * ORCA cases run with the service config selecting grpc-java's test balancer (run.sh adds it):
 * orca_per_rpc reads the endpoint-load-metrics-bin trailer, orca_oob the OpenRcaService stream.
 */
@DisabledIfSystemProperty(named = "sluice.grpcJavaInterop", matches = "false")
class GrpcJavaInteropTest {
  /** grpc-java's cases its own TestServiceServer passes here (24 of the 27 without credentials). */
  static final List<String> GRPC_JAVA_CASES =
      List.of(
          "empty_unary", "large_unary", "client_compressed_unary_noprobe", "server_compressed_unary",
          "client_streaming", "client_compressed_streaming_noprobe", "server_streaming",
          "server_compressed_streaming", "ping_pong", "empty_stream", "custom_metadata",
          "status_code_and_message", "special_status_message", "unimplemented_method",
          "unimplemented_service", "cancel_after_begin", "cancel_after_first_response",
          "timeout_on_sleeping_server", "very_large_request", "pick_first_unary", "rpc_soak",
          "channel_soak", "orca_per_rpc", "orca_oob");

  private static final Path PEER = Path.of("../peers/grpc-java-peer").toAbsolutePath();
  private static final Duration RUN_LIMIT = Duration.ofMinutes(5);

  private record Ran(int exit, String out) {}

  private static Ran runSh(String... args) throws IOException, InterruptedException {
    return runSh(java.util.Map.of(), RUN_LIMIT, args);
  }

  private static Ran runSh(java.util.Map<String, String> env, Duration limit, String... args)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("bash", PEER.resolve("run.sh").toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("MVN_ARGS", System.getProperty("sluice.grpcJavaInterop.mvnArgs", ""));
    pb.environment().putAll(env);
    Path out = Files.createTempFile("run-sh", ".txt");
    try {
      Process p = pb.redirectOutput(out.toFile()).start();
      if (!p.waitFor(limit.toSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("run.sh " + String.join(" ", args) + " did not finish");
      }
      return new Ran(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
    }
  }

  private static void fetchPeer() throws Exception {
    if (!Files.isRegularFile(PEER.resolve("target/lib/grpc-interop-testing-1.79.0.jar"))) {
      Ran fetched = runSh("fetch");
      assertThat(fetched.exit).as(fetched.out).isZero();
    }
  }

  /**
   * grpc-java's client over netty and over OkHttp at the same time, each against a server of its
   * own (the ORCA cases set and read per-server load reports: two clients of one server would see
   * each other's), so that the two runs, each mostly waiting (deadlines, soak pacing), overlap.
   */
  @Test
  void grpcJavasClientPassesAgainstSluicesServer() throws Exception {
    fetchPeer();
    String cases = String.join(",", GRPC_JAVA_CASES);
    try (TestServiceImpl nettyService = new TestServiceImpl("sluice");
        TestServiceImpl okhttpService = new TestServiceImpl("sluice")) {
      GrpcServer.Running nettyServer =
          InteropGrpc.serve("127.0.0.1", 0, InteropServices.registry(nettyService));
      GrpcServer.Running okhttpServer = null;
      try {
        okhttpServer = InteropGrpc.serve("127.0.0.1", 0, InteropServices.registry(okhttpService));
        int okhttpPort = okhttpServer.port();
        java.util.concurrent.CompletableFuture<Ran> okhttpRun =
            java.util.concurrent.CompletableFuture.supplyAsync(() -> {
              try {
                return runSh("client", "--okhttp", "--port", String.valueOf(okhttpPort), "--cases", cases);
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
              }
            });
        Ran netty;
        try {
          netty = runSh("client", "--port", String.valueOf(nettyServer.port()), "--cases", cases);
        } finally {
          okhttpRun.handle((r, e) -> null).join(); // its process ends before the servers close
        }
        Ran okhttp = okhttpRun.join();
        assertThat(netty.out).as(netty.out).contains(GRPC_JAVA_CASES.size() + " passed, 0 failed");
        assertThat(netty.exit).isZero();
        assertThat(okhttp.out).as(okhttp.out).contains(GRPC_JAVA_CASES.size() + " passed, 0 failed");
        assertThat(okhttp.exit).isZero();
      } finally {
        nettyServer.close();
        if (okhttpServer != null) {
          okhttpServer.close();
        }
      }
    }
  }

  /**
   * CasesRunner's case deadline: against a server that accepts the connection and never answers,
   * grpc-java's empty_unary (no deadline of its own) waits for ever; each case fails at the
   * deadline with a message saying so, and the next one runs.
   */
  @Test
  void aCaseThatHangsFailsAtItsDeadlineAndTheNextCaseRuns() throws Exception {
    fetchPeer();
    List<java.net.Socket> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (ServerSocket silent = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (true) {
                    java.net.Socket s = silent.accept();
                    accepted.add(s);
                    Thread drain =
                        new Thread(
                            () -> {
                              try {
                                s.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
                              } catch (IOException closed) {
                                // the test closes it
                              }
                            },
                            "silent-drain");
                    drain.setDaemon(true);
                    drain.start();
                  }
                } catch (IOException closed) {
                  // the test closed the server socket
                }
              },
              "silent-accept");
      acceptor.setDaemon(true);
      acceptor.start();
      Ran ran =
          runSh(
              java.util.Map.of("CASE_TIMEOUT_SECONDS", "1"),
              Duration.ofMinutes(2),
              "client", "--port", String.valueOf(silent.getLocalPort()), "--cases", "empty_unary,large_unary");
      assertThat(ran.out)
          .as(ran.out)
          .containsPattern("FAIL empty_unary \\(\\d+ ms\\): timed out after 1 s \\(the case deadline\\), see ")
          .containsPattern("FAIL large_unary \\(\\d+ ms\\): timed out after 1 s \\(the case deadline\\), see ")
          .contains("0 passed, 2 failed");
      assertThat(ran.exit).isEqualTo(1);
    } finally {
      for (java.net.Socket s : accepted) {
        s.close();
      }
    }
  }

  @Test
  void sluicesClientPassesAgainstGrpcJavasServer() throws Exception {
    fetchPeer();
    int port = Ports.outsideEphemeralRange(); // grpc-java's server binds it later: see Ports
    Process server =
        new ProcessBuilder("bash", PEER.resolve("run.sh").toString(), "server", "--port", String.valueOf(port))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    try {
      BufferedReader lines =
          new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
      String line;
      do {
        line = lines.readLine();
      } while (line != null && !line.startsWith("LISTENING"));
      assertThat(line).as("grpc-java's server started").isEqualTo("LISTENING " + port);
      GrpcChannel channel = InteropGrpc.connect("127.0.0.1", port);
      try {
        InteropClient client = new InteropClient(channel, Duration.ofSeconds(30));
        for (String name : InteropClient.CASES) {
          InteropClient.Result r = client.run(name);
          assertThat(r.line()).isEqualTo("PASS " + name);
        }
      } finally {
        channel.dispose();
      }
    } finally {
      server.destroy();
      server.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
