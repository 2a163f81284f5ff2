package io.sluice.transport.multiprotocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.ssl.SslContext;
import io.sluice.Message;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.Tls;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;

/**
 * What the one-port server refuses, over raw sockets: first bytes of no protocol are closed at
 * once, a peer that dribbles its first bytes (or stalls in the TLS handshake) is cut off by the
 * detection deadline, and HTTP/1.1 requests that are not a WebSocket upgrade on the served path
 * are answered 404 or 426. The deadline is short here; no assertion is about time.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS) // hang guard only
class RefusalsTest {
  private static final int HANG_GUARD_MILLIS = 20_000;
  private static final Tls.SelfSigned CERT = Tls.selfSigned("localhost", "127.0.0.1");
  private static final SslContext SERVER_TLS = Tls.server(CERT).alpn("h2", "http/1.1").build();

  private ServerTransport.Bound server;
  private int port;

  @BeforeEach
  void bind() {
    server =
        SluiceServer.builder(
                MultiProtocolServerTransport.create("127.0.0.1", 0)
                    .withSsl(SERVER_TLS)
                    .withDetectionTimeout(Duration.ofMillis(300)))
            .responder(
                new ReactorResponder() {
                  @Override
                  public Mono<Message> requestResponse(Message request) {
                    return Mono.just(request);
                  }
                })
            .bind()
            .block(Duration.ofSeconds(20));
    port = ((InetSocketAddress) server.address()).getPort();
  }

  @AfterEach
  void close() {
    server.close();
    server.onClose().orTimeout(20, TimeUnit.SECONDS).join();
  }

  private Socket connect() throws IOException {
    Socket s = new Socket("127.0.0.1", port);
    s.setSoTimeout(HANG_GUARD_MILLIS);
    s.setTcpNoDelay(true);
    return s;
  }

  /**
   * Reads until the server closes: what it sent before. A read that times out (the hang guard)
   * fails the test: the server did not close.
   */
  private static String readUntilClosed(Socket s) throws IOException {
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    InputStream in = s.getInputStream();
    byte[] buf = new byte[1024];
    try {
      for (int n; (n = in.read(buf)) >= 0; ) {
        got.write(buf, 0, n);
      }
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the server did not close the connection; it sent: " + got, e);
    } catch (SocketException e) {
      // A reset: closed too (the server closed with our bytes unread).
    }
    return got.toString(StandardCharsets.ISO_8859_1);
  }

  @Test
  void garbageFirstBytesAreClosedAtOnce() throws IOException {
    try (Socket s = connect()) {
      s.getOutputStream().write("\u0000\u0000\u0010\u0000\u0000\u0000\u0001\u0020".getBytes(StandardCharsets.ISO_8859_1));
      // Length 16 and stream id 1: not a connection's first RSocket frame.
      s.getOutputStream().flush();
      assertThat(readUntilClosed(s)).isEmpty();
    }
    try (Socket s = connect()) {
      s.getOutputStream().write("HELLO\r\n".getBytes(StandardCharsets.US_ASCII));
      assertThat(readUntilClosed(s)).isEmpty();
    }
  }

  @Test
  void aPeerThatDribblesItsFirstBytesIsCutOff() throws IOException, InterruptedException {
    byte[] preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    try (Socket s = connect()) {
      OutputStream out = s.getOutputStream();
      // Each byte fits the HTTP/2 preface, so the server cannot decide and waits for more; all but
      // the last byte are sent, one at a time (bounded: 23 bytes), unless the server closes first.
      try {
        for (int i = 0; i < preface.length - 1; i++) {
          out.write(preface[i]);
          out.flush();
          Thread.sleep(20);
        }
      } catch (IOException closedWhileSending) {
        // The server cut us off already.
      }
      assertThat(readUntilClosed(s)).isEmpty();
    }
  }

  @Test
  void aSilentPeerIsCutOff() throws IOException {
    try (Socket s = connect()) {
      assertThat(readUntilClosed(s)).isEmpty();
    }
  }

  @Test
  void aTlsHandshakeThatStallsIsCutOff() throws IOException {
    try (Socket s = connect()) {
      // A TLS record header announcing a ClientHello, and nothing more.
      s.getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x00, 0x40, 0x01});
      s.getOutputStream().flush();
      assertThat(readUntilClosed(s)).isEmpty();
    }
  }

  @Test
  void anHttpRequestForAnotherPathIsAnswered404() throws IOException {
    try (Socket s = connect()) {
      s.getOutputStream()
          .write("GET /index.html HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      assertThat(readUntilClosed(s)).startsWith("HTTP/1.1 404 ");
    }
  }

  @Test
  void aPlainHttpRequestForTheWebSocketPathIsAnswered426() throws IOException {
    try (Socket s = connect()) {
      s.getOutputStream()
          .write("GET /rsocket HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      assertThat(readUntilClosed(s)).startsWith("HTTP/1.1 426 ");
    }
  }
}
