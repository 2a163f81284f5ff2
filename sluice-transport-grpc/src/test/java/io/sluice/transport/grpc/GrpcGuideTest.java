package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.StringValue;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.sluice.rpc.ServiceRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The example of docs/guide/grpc.md, run: the page's code blocks are copies of the regions here. */
class GrpcGuideTest {
  @Test
  void aGrpcJavaClientCallsASluiceService() throws Exception {
    ServiceRegistry registry = new EchoService().registry();
    // tag::server[]
    // Any Sluice services: the generated servers of any flavor, in one registry.
    GrpcServer.Running server =
        GrpcServer.create("127.0.0.1", 0)
            .withServices(registry)
            .withMaxInboundMessageSize(16 << 20) // the default; RESOURCE_EXHAUSTED above it
            .withGzipResponses(true)              // for callers that accept gzip
            .start();
    // end::server[]
    try {
      // tag::client[]
      // A stock grpc-java client: a channel to the server, h2c with prior knowledge.
      ManagedChannel channel =
          NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
      MethodDescriptor<StringValue, StringValue> unary =
          MethodDescriptor.<StringValue, StringValue>newBuilder()
              .setType(MethodDescriptor.MethodType.UNARY)
              .setFullMethodName("sluice.test.Echo/Unary")
              .setRequestMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
              .setResponseMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
              .build();
      StringValue reply =
          ClientCalls.blockingUnaryCall(channel, unary, CallOptions.DEFAULT, StringValue.of("hello"));
      // end::client[]
      assertThat(reply.getValue()).isEqualTo("hello");
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    } finally {
      // tag::close[]
      // Stops accepting, sends GOAWAY, lets running calls finish (cancelling what still runs after
      // the grace), and completes once every connection has closed. close() does it with 30 s.
      server.stop(Duration.ofSeconds(30)).get();
      // end::close[]
    }
  }
}
