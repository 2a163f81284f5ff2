package io.sluice.grpc.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.transport.grpc.GrpcChannel;
import io.sluice.transport.grpc.GrpcServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Sluice-stub interop client against {@link TestServiceImpl} over gRPC's wire protocol (h2c on
 * 127.0.0.1): Sluice's gRPC server transport and its gRPC client transport, with the metadata echo
 * going out as a real response header and trailer, read back through the client's response
 * metadata capture. Every case passes, custom_metadata and empty_stream included.
 */
class InteropClientOverGrpcTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private static TestServiceImpl service;
  private static GrpcServer.Running server;
  private static GrpcChannel channel;
  private static InteropClient client;

  @BeforeAll
  static void start() {
    service = new TestServiceImpl("sluice-grpc-test-server");
    server = InteropGrpc.serve("127.0.0.1", 0, InteropServices.registry(service));
    channel = InteropGrpc.connect("127.0.0.1", server.port());
    client = new InteropClient(channel, WAIT);
  }

  @AfterAll
  static void stop() {
    if (channel != null) {
      channel.dispose();
    }
    if (server != null) {
      server.close();
    }
    if (service != null) {
      service.close();
    }
  }

  static List<String> passingCases() {
    return InteropClient.CASES;
  }

  @ParameterizedTest
  @MethodSource("passingCases")
  void casePasses(String name) throws Exception {
    assertThat(client.run(name).line()).isEqualTo("PASS " + name);
  }
}
