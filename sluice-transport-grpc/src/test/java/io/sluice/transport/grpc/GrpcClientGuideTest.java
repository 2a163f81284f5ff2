package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.StringValue;
import io.netty.handler.ssl.SslContext;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.Headers;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.reactor.ReactorClientCalls;
import io.sluice.transport.netty.Tls;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The code of docs/guide/grpc.md, "Calling gRPC servers", run against stock grpc-java servers. */
class GrpcClientGuideTest {
  private static final MethodDescriptor<StringValue, StringValue> UNARY = EchoMethods.UNARY;

  @Test
  void callsAGrpcJavaServer() throws Exception {
    try (GrpcJavaEchoServer server = GrpcJavaEchoServer.h2c()) {
      int port = server.port();
      byte[] traceId = {1, 2, 3, 4};
      // tag::connect[]
      GrpcChannel channel = GrpcClientTransport.create("127.0.0.1", port)
          .withMaxInboundMessageSize(16 << 20)   // responses up to 16 MiB (default 4 MiB)
          .connect().join();                      // fails with a StatusException UNAVAILABLE
      ReactorRequester requester = new ReactorRequester(channel);
      // end::connect[]
      try {
        // tag::call[]
        CallOptions options = CallOptions.DEFAULT
            .withHeaders(Headers.builder()
                .add("x-tenant", "a1")
                .addBinary("x-trace-bin", traceId)   // -bin: bytes, base64 on the wire
                .build())
            .withTimeout(Duration.ofSeconds(2));     // grpc-timeout, and enforced by the client
        StringValue reply =
            ReactorClientCalls.unary(requester, UNARY, options, StringValue.of("hello")).block();
        // end::call[]
        assertThat(reply.getValue()).isEqualTo("hello");
        assertThat(server.lastHeaders.get().get(io.grpc.Metadata.Key.of("x-tenant", io.grpc.Metadata.ASCII_STRING_MARSHALLER)))
            .isEqualTo("a1");
        Status status = null;
        // tag::errors[]
        try {
          ReactorClientCalls.unary(requester, UNARY, CallOptions.DEFAULT, StringValue.of("status:5:no such item")).block();
        } catch (StatusException e) {
          status = e.status();   // NOT_FOUND: "no such item", from grpc-status and grpc-message
        }
        // end::errors[]
        assertThat(status).isEqualTo(Status.of(Status.Code.NOT_FOUND, "no such item"));
      } finally {
        // tag::close[]
        channel.close();   // graceful: no new calls, live ones finish, then the connection closes
        // end::close[]
        channel.onClose().join();
      }
    }
  }

  @Test
  void callsOverTls() throws Exception {
    try (GrpcJavaEchoServer server = GrpcJavaEchoServer.tls()) {
      int port = server.port();
      java.security.cert.X509Certificate serverCertificate = server.certificate;
      // tag::tls[]
      SslContext ssl = Tls.client().trust(serverCertificate).alpn("h2").build();
      GrpcChannel channel = GrpcClientTransport.create("127.0.0.1", port).withSsl(ssl).connect().join();
      // end::tls[]
      try {
        assertThat(
                ReactorClientCalls.unary(new ReactorRequester(channel), UNARY, CallOptions.DEFAULT, StringValue.of("tls"))
                    .block(Duration.ofSeconds(30))
                    .getValue())
            .isEqualTo("tls");
      } finally {
        channel.dispose();
      }
    }
  }
}
