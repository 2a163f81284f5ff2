package io.sluice.grpc.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.test.GoTools;
import io.sluice.transport.grpc.GrpcServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The gRPC tools people point at a server, against the interop server (TestService, health and
 * reflection on Sluice's gRPC server, as {@code ./sluice grpc-test-server} serves them): grpcurl
 * lists, describes and calls through server reflection, and grpc-health-probe (what Kubernetes gRPC
 * probes do) checks the server and a service.
 *
 * <p>The tools are Go programs: .ci/run installs pinned versions with {@code go install} and puts
 * them on the PATH ({@code SLUICE_GO_BIN} names another folder). Outside CI a missing tool skips
 * the test, saying which; with {@code CI=true} it fails.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrpcToolsTest {
  private static final long RUN_SECONDS = 60; // hang guard only

  private TestServiceImpl service;
  private GrpcServer.Running server;
  private String address;

  private record Ran(int exit, String out) {}

  @BeforeAll
  void serve() {
    service = new TestServiceImpl("sluice");
    server = InteropGrpc.serve("127.0.0.1", 0, InteropServices.registry(service));
    address = "127.0.0.1:" + server.port();
  }

  @AfterAll
  void stop() {
    if (server != null) {
      server.close();
    }
    if (service != null) {
      service.close();
    }
  }

  @Test
  void grpcurlListsTheServicesThroughReflection() throws Exception {
    Ran r = run("grpcurl", "-plaintext", address, "list");
    assertThat(r.exit).as(r.out).isZero();
    assertThat(r.out.lines())
        .containsExactly(
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection",
            "grpc.testing.TestService",
            "xds.service.orca.v3.OpenRcaService");
  }

  @Test
  void grpcurlDescribesAMessageFromItsProtoFile() throws Exception {
    Ran r = run("grpcurl", "-plaintext", address, "describe", "grpc.testing.SimpleRequest");
    assertThat(r.exit).as(r.out).isZero();
    assertThat(r.out).contains("grpc.testing.SimpleRequest is a message:").contains("int32 response_size = 2;");
  }

  @Test
  void grpcurlCallsAMethodWithJson() throws Exception {
    Ran r = run("grpcurl", "-plaintext", "-d", "{\"response_size\": 4}", address, "grpc.testing.TestService/UnaryCall");
    assertThat(r.exit).as(r.out).isZero();
    assertThat(r.out).contains("\"body\": \"AAAAAA==\""); // four zero bytes
  }

  @Test
  void grpcurlShowsAnErrorStatus() throws Exception {
    Ran r =
        run(
            "grpcurl", "-plaintext", "-d", "{\"response_status\": {\"code\": 5, \"message\": \"no such thing\"}}",
            address, "grpc.testing.TestService/UnaryCall");
    assertThat(r.exit).as(r.out).isNotZero();
    assertThat(r.out).contains("Code: NotFound").contains("Message: no such thing");
  }

  @Test
  void grpcHealthProbeSeesTheServerAndAServiceServing() throws Exception {
    Ran server = run("grpc-health-probe", "-addr", address);
    assertThat(server.exit).as(server.out).isZero();
    assertThat(server.out).contains("status: SERVING");
    Ran one = run("grpc-health-probe", "-addr", address, "-service", "grpc.testing.TestService");
    assertThat(one.exit).as(one.out).isZero();
    assertThat(one.out).contains("status: SERVING");
  }

  @Test
  void grpcHealthProbeFailsForAnUnknownService() throws Exception {
    Ran r = run("grpc-health-probe", "-addr", address, "-service", "no.such.Service");
    assertThat(r.exit).as(r.out).isNotZero();
    assertThat(r.out).containsIgnoringCase("NotFound");
  }

  private static Ran run(String tool, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(GoTools.require(tool, "see .ci/run").toString());
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile(tool, ".txt");
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
      if (!p.waitFor(RUN_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(String.join(" ", cmd) + " did not finish");
      }
      return new Ran(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
    }
  }
}
