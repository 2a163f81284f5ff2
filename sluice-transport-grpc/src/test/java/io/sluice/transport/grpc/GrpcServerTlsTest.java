package io.sluice.transport.grpc;

import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.TlsChannelCredentials;
import io.sluice.transport.netty.Tls;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

/** grpc-java over TLS (ALPN h2) to a {@link GrpcServer}. */
class GrpcServerTlsTest extends GrpcJavaClientTest {
  private static final Tls.SelfSigned CERT = Tls.selfSigned("localhost", "127.0.0.1");
  private GrpcServer.Running server;

  @Override
  int startServer(EchoService service) throws Exception {
    server =
        GrpcServer.create("127.0.0.1", 0)
            .withServices(service.registry())
            .withSsl(Tls.server(CERT).alpn("h2").build())
            .start();
    return server.port();
  }

  @Override
  ManagedChannel channel(int port) throws Exception {
    TlsChannelCredentials.Builder creds =
        TlsChannelCredentials.newBuilder()
            .trustManager(new ByteArrayInputStream(CERT.certificatePem().getBytes(StandardCharsets.US_ASCII)));
    return Grpc.newChannelBuilderForAddress("127.0.0.1", port, creds.build()).maxInboundMessageSize(64 << 20).build();
  }

  @Override
  void stopServer() throws Exception {
    server.close();
    server.onClose().get();
  }
}
