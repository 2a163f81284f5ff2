package io.sluice.rpc.blocking;

import static io.sluice.rpc.reactor.fixture.EchoOverTcp.req;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.rpc.CallOptions;
import io.sluice.rpc.ResponseMetadataCapture;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.rpc.reactor.fixture.SendsResponseMetadata;
import io.sluice.transport.grpc.GrpcChannel;
import io.sluice.transport.grpc.GrpcClientTransport;
import io.sluice.transport.grpc.GrpcServer;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import sluice.test.echo.BlockingEchoServiceClient;
import sluice.test.echo.BlockingEchoServiceServer;
import sluice.test.echo.EchoOuterClass.EchoReply;

/**
 * The blocking flavor, client and server, over gRPC's wire protocol (Sluice's gRPC server and
 * client on 127.0.0.1): a client stream without requests, whose handler subscribes to its request
 * stream on a virtual thread after the caller's END_STREAM may already have arrived (the server
 * call keeps the half-close until the handler asks), and response headers and trailers.
 */
class BlockingOverGrpcTest {
  private static GrpcServer.Running server;
  private static GrpcChannel channel;
  private static BlockingEchoServiceClient client;

  @BeforeAll
  static void start() throws Exception {
    server =
        GrpcServer.create("127.0.0.1", 0)
            .withServices(ServiceRegistry.builder()
                .add(SendsResponseMetadata.wrap(new BlockingEchoServiceServer(new BlockingEchoImpl())))
                .build())
            .start();
    channel = GrpcClientTransport.create("127.0.0.1", server.port()).connect().get(30, TimeUnit.SECONDS);
    client = new BlockingEchoServiceClient(channel);
  }

  @AfterAll
  static void stop() throws Exception {
    if (channel != null) {
      channel.dispose();
    }
    if (server != null) {
      server.close();
    }
  }

  /** Runs {@code body} on a virtual thread; a call still blocked after the hang guard is interrupted. */
  private static <T> T onVirtualThread(Callable<T> body) throws Exception {
    ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    try {
      return executor.submit(body).get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    } finally {
      executor.shutdownNow(); // a test that fails by hanging still ends
    }
  }

  @Test
  void emptyClientStreamsEndOverGrpc() throws Exception {
    for (int i = 0; i < 50; i++) { // each call races its END_STREAM against the handler's subscription
      EchoReply joined = onVirtualThread(() -> client.join(Stream.empty()));
      assertThat(joined.getIndex()).isZero();
    }
    List<EchoReply> chat = onVirtualThread(() -> {
      try (Stream<EchoReply> s = client.chat(Stream.empty())) {
        return s.collect(Collectors.toList());
      }
    });
    assertThat(chat).isEmpty();
  }

  @Test
  void responseHeadersAndTrailersOverGrpc() throws Exception {
    ResponseMetadataCapture capture = new ResponseMetadataCapture();
    BlockingEchoServiceClient c = client.withOptions(CallOptions.DEFAULT.withResponseMetadata(capture));
    assertThat(onVirtualThread(() -> c.say(req("hi"))).getText()).isEqualTo("hi");
    SendsResponseMetadata.assertCaptured(capture, Status.Code.OK);
    ResponseMetadataCapture empty = new ResponseMetadataCapture();
    assertThat(onVirtualThread(() -> client.withOptions(CallOptions.DEFAULT.withResponseMetadata(empty))
        .join(Stream.empty())).getIndex()).isZero();
    SendsResponseMetadata.assertCaptured(empty, Status.Code.OK);
  }
}
