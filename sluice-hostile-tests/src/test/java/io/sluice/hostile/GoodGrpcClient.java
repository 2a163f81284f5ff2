package io.sluice.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.BytesValue;
import com.google.protobuf.StringValue;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;

/**
 * The well-behaved client of the gRPC attacks: grpc-java (netty-shaded, h2c) with method
 * descriptors built by hand ({@link ProtoUtils#marshaller}, no codegen) for {@link
 * HostileGrpcService}. Each {@link #serve} (or {@link #serveTls}) opens a fresh channel, makes a unary call and a
 * 100-message server-streaming call (deadline 30 s each, a hang guard), checks the answers and
 * shuts the channel down.
 */
final class GoodGrpcClient {
  static final MethodDescriptor<StringValue, StringValue> UNARY =
      MethodDescriptor.<StringValue, StringValue>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName(HostileGrpcService.NAME, "Unary"))
          .setRequestMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
          .build();

  static final MethodDescriptor<StringValue, BytesValue> COUNT =
      MethodDescriptor.<StringValue, BytesValue>newBuilder()
          .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
          .setFullMethodName(MethodDescriptor.generateFullMethodName(HostileGrpcService.NAME, "Count"))
          .setRequestMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(BytesValue.getDefaultInstance()))
          .build();

  private GoodGrpcClient() {}

  static void serve(int port) {
    serve(NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build());
  }

  /** Over TLS (ALPN h2), trusting the server's self-signed certificate. */
  static void serveTls(int port) {
    try {
      serve(NettyChannelBuilder.forAddress("localhost", port)
          .sslContext(GrpcSslContexts.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE).build())
          .build());
    } catch (javax.net.ssl.SSLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void serve(ManagedChannel ch) {
    try {
      StringValue reply =
          ClientCalls.blockingUnaryCall(
              ch, UNARY, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), StringValue.of("hello"));
      assertThat(reply.getValue()).isEqualTo("echo:hello");
      Iterator<BytesValue> items =
          ClientCalls.blockingServerStreamingCall(
              ch, COUNT, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), StringValue.of("100"));
      int n = 0;
      while (items.hasNext()) {
        assertThat(items.next().getValue().size()).isEqualTo(64);
        n++;
      }
      assertThat(n).as("messages of the server stream").isEqualTo(100);
    } finally {
      ch.shutdownNow();
      try {
        ch.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
