package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.transport.netty.Tls;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link GrpcClientTransport#withConnectTimeoutMillis} bounds the TLS handshake too, whatever the
 * TLS context's own handshake timeout: a server that accepts TCP and never answers the ClientHello
 * fails the connect by itself (the test's wait is a hang guard only).
 */
class GrpcClientConnectDeadlineTest {
  private static final int CONNECT_TIMEOUT_MS = 1000;

  @Test
  void theTlsHandshakeIsBoundedByTheConnectTimeout() throws Exception {
    CompletableFuture<Boolean> closedByClient = new CompletableFuture<>();
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread t =
          new Thread(
              () -> {
                try (Socket s = server.accept(); InputStream in = s.getInputStream()) {
                  byte[] b = new byte[4096];
                  while (in.read(b) >= 0) {
                    // the ClientHello, never answered
                  }
                  closedByClient.complete(true);
                } catch (IOException e) {
                  closedByClient.complete(true); // a reset is a close too
                }
              },
              "silent-tls-server");
      t.setDaemon(true);
      t.start();
      CompletableFuture<GrpcChannel> connect =
          GrpcClientTransport.create("127.0.0.1", server.getLocalPort())
              .withSsl(Tls.client().insecure().alpn("h2").handshakeTimeout(Duration.ofMinutes(5)).build())
              .withConnectTimeoutMillis(CONNECT_TIMEOUT_MS)
              .connect();
      assertThatThrownBy(() -> connect.get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOfSatisfying(
              StatusException.class,
              e -> {
                assertThat(e.status().code()).isEqualTo(Status.Code.UNAVAILABLE);
                assertThat(e.status().description()).contains("within " + CONNECT_TIMEOUT_MS + " ms");
              });
      assertThat(closedByClient.get(30, TimeUnit.SECONDS)).as("the client closed its TCP connection").isTrue();
    }
  }
}
