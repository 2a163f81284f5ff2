package io.sluice.transport.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.ssl.SslContext;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.netty.Tls;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A client's connect timeout bounds every step of its connect, against servers that stall one of
 * them: the TLS handshake (the stream mapping's client), and the answer to an extended CONNECT
 * (WebSocket over HTTP/2). Each connect must fail by itself; the test waits far longer than the
 * timeout only as a hang guard.
 */
class ConnectDeadlinesTest {
  private static final int CONNECT_TIMEOUT_MS = 1000;
  private static final long GUARD_SECONDS = 30;

  private final List<AutoCloseable> toClose = new CopyOnWriteArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  /** A TLS client whose own handshake timeout is far longer than its connect timeout. */
  private static SslContext patientTls() {
    return Tls.client().insecure().alpn("h2").handshakeTimeout(Duration.ofMinutes(5)).build();
  }

  @Test
  void theMappingClientsTlsHandshakeIsBoundedByItsConnectTimeout() throws Exception {
    SilentServer server = new SilentServer(null);
    CompletableFuture<DuplexTransport> connect =
        Http2ClientTransport.create("127.0.0.1", server.port())
            .withSsl(patientTls())
            .withConnectTimeoutMillis(CONNECT_TIMEOUT_MS)
            .connect();
    assertThatThrownBy(() -> connect.get(GUARD_SECONDS, TimeUnit.SECONDS))
        .as("a connect to a server that never answers the ClientHello")
        .isInstanceOf(ExecutionException.class)
        .hasMessageContaining("within " + CONNECT_TIMEOUT_MS + " ms");
    assertThat(server.awaitClosedByClient()).as("the client closed its TCP connection").isTrue();
  }

  /**
   * A server that enables extended CONNECT in its SETTINGS and never answers the CONNECT: each
   * connect fails, the TCP connection it waited on is closed, and the next connect opens another.
   */
  @Test
  void aWebSocketConnectTheServerNeverAnswersFailsWithinTheConnectTimeout() throws Exception {
    SilentServer server = new SilentServer(settingsEnablingConnect());
    WebSocketOverHttp2ClientTransport client =
        WebSocketOverHttp2ClientTransport.create("127.0.0.1", server.port()).withConnectTimeoutMillis(CONNECT_TIMEOUT_MS);
    for (int i = 1; i <= 2; i++) {
      CompletableFuture<DuplexTransport> connect = client.connect();
      assertThatThrownBy(() -> connect.get(GUARD_SECONDS, TimeUnit.SECONDS))
          .as("connect %d to a server that never answers its CONNECT", i)
          .isInstanceOf(ExecutionException.class)
          .hasMessageContaining("no answer to the WebSocket over HTTP/2 CONNECT");
      assertThat(server.awaitClosedByClient()).as("the client closed TCP connection %d", i).isTrue();
      assertThat(client.openTcpConnections()).isZero();
    }
    assertThat(server.accepted.size()).as("TCP connections opened").isEqualTo(2);
  }

  /** The server's SETTINGS (ENABLE_CONNECT_PROTOCOL = 1) and an ACK of the client's. */
  private static byte[] settingsEnablingConnect() {
    return RawH2Peer.concat(RawH2Peer.settings(0x8, 1), RawH2Peer.settingsAck());
  }

  /**
   * Accepts TCP connections on 127.0.0.1, writes {@code greeting} (if any) on each, and reads and
   * discards whatever comes until the client closes.
   */
  private final class SilentServer implements AutoCloseable {
    final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    final List<Socket> accepted = new CopyOnWriteArrayList<>();
    final BlockingQueue<Socket> closedByClient = new LinkedBlockingQueue<>();

    SilentServer(byte[] greeting) throws IOException {
      toClose.add(this);
      Thread t =
          new Thread(
              () -> {
                try {
                  for (; ; ) {
                    Socket s = socket.accept();
                    accepted.add(s);
                    Thread reader = new Thread(() -> drain(s, greeting), "silent-server-reader");
                    reader.setDaemon(true);
                    reader.start();
                  }
                } catch (IOException e) {
                  // closed
                }
              },
              "silent-server");
      t.setDaemon(true);
      t.start();
    }

    private void drain(Socket s, byte[] greeting) {
      try (InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
        if (greeting != null) {
          out.write(greeting);
          out.flush();
        }
        byte[] b = new byte[4096];
        while (in.read(b) >= 0) {
          // discarded
        }
        closedByClient.add(s);
      } catch (IOException e) {
        closedByClient.add(s); // a reset is a close too
      }
    }

    int port() {
      return socket.getLocalPort();
    }

    boolean awaitClosedByClient() throws InterruptedException {
      return closedByClient.poll(GUARD_SECONDS, TimeUnit.SECONDS) != null;
    }

    @Override
    public void close() throws IOException {
      socket.close();
      for (Socket s : accepted) {
        s.close();
      }
    }
  }
}
