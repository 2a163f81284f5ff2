package io.sluice.transport.grpc;

import static io.sluice.transport.grpc.GrpcJavaClientTest.BYTES;
import static io.sluice.transport.grpc.GrpcJavaClientTest.COUNT;
import static io.sluice.transport.grpc.GrpcJavaClientTest.bytes;
import static io.sluice.transport.grpc.GrpcJavaClientTest.codeOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import com.google.protobuf.StringValue;
import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** A server with a 1 MiB message limit and gzip responses, called by grpc-java. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrpcServerLimitsTest {
  private GrpcServer.Running server;
  private ManagedChannel channel;

  @BeforeAll
  void start() {
    server =
        GrpcServer.create("127.0.0.1", 0)
            .withServices(new EchoService().registry())
            .withMaxInboundMessageSize(1 << 20)
            .withGzipResponses(true)
            .start();
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
  }

  @AfterAll
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    server.close();
    server.onClose().get();
  }

  @Test
  void aMessageAtTheLimitPassesAndOneByteMoreIsResourceExhausted() {
    // BytesValue adds 1 tag byte and 3 length bytes to its value.
    BytesValue atLimit = bytes((1 << 20) - 4);
    assertThat(atLimit.getSerializedSize()).isEqualTo(1 << 20);
    assertThat(ClientCalls.blockingUnaryCall(channel, BYTES, CallOptions.DEFAULT, atLimit)).isEqualTo(atLimit);
    BytesValue over = bytes((1 << 20) - 3);
    assertThat(codeOf(() -> ClientCalls.blockingUnaryCall(channel, BYTES, CallOptions.DEFAULT, over)))
        .isEqualTo(io.grpc.Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void aGzipBombIsStoppedAtTheLimit() {
    // 32 MiB of zeros: about 32 KiB on the wire, 32 times the limit once inflated.
    BytesValue bomb = BytesValue.of(ByteString.copyFrom(new byte[32 << 20]));
    io.grpc.StatusRuntimeException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            io.grpc.StatusRuntimeException.class,
            () -> ClientCalls.blockingUnaryCall(channel, BYTES, CallOptions.DEFAULT.withCompression("gzip"), bomb));
    assertThat(e.getStatus().getCode()).isEqualTo(io.grpc.Status.Code.RESOURCE_EXHAUSTED);
    assertThat(e.getStatus().getDescription()).contains("decompressed message larger than the limit of 1048576 bytes");
    // The connection is still good.
    assertThat(ClientCalls.blockingUnaryCall(channel, BYTES, CallOptions.DEFAULT, bytes(10))).isEqualTo(bytes(10));
  }

  @Test
  void responsesAreGzippedForCallersThatAcceptIt() {
    AtomicReference<Metadata> headers = new AtomicReference<>();
    AtomicReference<Metadata> trailers = new AtomicReference<>();
    io.grpc.Channel c =
        ClientInterceptors.intercept(channel, MetadataUtils.newCaptureMetadataInterceptor(headers, trailers));
    Iterator<BytesValue> it = ClientCalls.blockingServerStreamingCall(c, COUNT, CallOptions.DEFAULT, StringValue.of("5:100000"));
    int n = 0;
    while (it.hasNext()) {
      assertThat(it.next().getValue().size()).isEqualTo(100_000);
      n++;
    }
    assertThat(n).isEqualTo(5);
    assertThat(headers.get().get(Metadata.Key.of("grpc-encoding", Metadata.ASCII_STRING_MARSHALLER))).isEqualTo("gzip");
  }

  @Test
  void optionsAreChecked() {
    assertThatThrownBy(() -> GrpcServer.create("127.0.0.1", 0).withMaxInboundMessageSize(10))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("withServices");
    assertThatThrownBy(() -> GrpcServices.of(new EchoService().registry()).withMaxInboundMessageSize(-1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> GrpcServer.create("127.0.0.1", 70000)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> GrpcServer.create("127.0.0.1", 0).start())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("withServices");
  }
}
