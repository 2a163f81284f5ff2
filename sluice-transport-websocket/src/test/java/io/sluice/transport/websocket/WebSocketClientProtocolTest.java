package io.sluice.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http.websocketx.WebSocketHandshakeException;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.test.FrameBuilder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * A Sluice WebSocket client against a hand-made server: the client masks its frames, answers
 * pings, refuses masked server frames (1002), answers the server's close, sends its own on
 * dispose, and fails the connect on a bad or missing upgrade answer.
 */
class WebSocketClientProtocolTest {
  private static final Duration WAIT = Duration.ofSeconds(20); // hang guard only
  private ServerSocket listener;

  @BeforeEach
  void listen() throws IOException {
    listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    listener.setSoTimeout(20_000);
  }

  @AfterEach
  void close() throws IOException {
    listener.close();
  }

  private URI uri() {
    return URI.create("ws://127.0.0.1:" + listener.getLocalPort() + "/x");
  }

  /** Accepts one connection and reads its upgrade request; returns the peer and the request's key. */
  private RawWebSocket accept(String[] key) throws IOException {
    RawWebSocket ws = new RawWebSocket(listener.accept());
    String head = ws.readResponseHead(); // a request head here
    assertThat(head).startsWith("GET /x HTTP/1.1\r\n");
    key[0] = ws.header("Sec-WebSocket-Key");
    return ws;
  }

  private static String acceptKey(String key) throws Exception {
    byte[] d =
        MessageDigest.getInstance("SHA-1")
            .digest((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").getBytes(StandardCharsets.US_ASCII));
    return Base64.getEncoder().encodeToString(d);
  }

  /** Starts a Sluice client and accepts it: answers 101 and reads its SETUP. */
  private Connected connectUpgraded() throws Exception {
    CompletableFuture<ReactorRequester> client =
        SluiceClient.builder(WebSocketClientTransport.create(uri())).connect().toFuture();
    String[] key = new String[1];
    RawWebSocket ws = accept(key);
    ws.sendRaw(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: " + acceptKey(key[0]) + "\r\n\r\n");
    RawWebSocket.Frame setup = ws.read();
    assertThat(setup.opcode()).isEqualTo(0x2);
    assertThat(setup.masked()).as("client frames are masked").isTrue();
    assertThat((setup.payload()[4] & 0xFF) >>> 2).as("first frame is SETUP").isEqualTo(FrameBuilder.TYPE_SETUP);
    return new Connected(ws, client.get(20, TimeUnit.SECONDS));
  }

  record Connected(RawWebSocket ws, ReactorRequester client) {}

  @Test
  void framesAreMaskedAndPingsAnswered() throws Exception {
    Connected c = connectUpgraded();
    try (RawWebSocket ws = c.ws()) {
      ws.send(0x80 | 0x9, new byte[] {9, 8, 7}, false);
      RawWebSocket.Frame pong = ws.read();
      while (pong.opcode() != 0xA) {
        pong = ws.read(); // a keepalive may come first
      }
      assertThat(pong.masked()).isTrue();
      assertThat(pong.payload()).containsExactly(9, 8, 7);
    } finally {
      c.client().dispose();
    }
  }

  @Test
  void aMaskedServerFrameClosesWith1002() throws Exception {
    Connected c = connectUpgraded();
    try (RawWebSocket ws = c.ws()) {
      ws.send(0x80 | 0x2, FrameBuilder.keepAlive(false, 0).toBytes(), true);
      RawWebSocket.Frame close = ws.awaitClose();
      assertThat(close).isNotNull();
      assertThat(close.closeCode()).isEqualTo(1002);
      c.client().onClose().onErrorResume(e -> Mono.empty()).block(WAIT);
    }
  }

  @Test
  void theServersCloseIsAnsweredAndEndsTheConnection() throws Exception {
    Connected c = connectUpgraded();
    try (RawWebSocket ws = c.ws()) {
      ws.send(0x80 | 0x8, new byte[] {0x03, (byte) 0xE9}, false); // 1001 going away
      RawWebSocket.Frame close = ws.awaitClose();
      assertThat(close).isNotNull();
      assertThat(close.closeCode()).isEqualTo(1001);
      assertThat(close.masked()).isTrue();
      c.client().onClose().onErrorResume(e -> Mono.empty()).block(WAIT);
      assertThat(ws.awaitEof()).isTrue();
    }
  }

  @Test
  void disposeSendsACloseFrame() throws Exception {
    Connected c = connectUpgraded();
    try (RawWebSocket ws = c.ws()) {
      c.client().dispose();
      RawWebSocket.Frame close = ws.awaitClose();
      assertThat(close).isNotNull();
      assertThat(close.closeCode()).isEqualTo(1000);
    }
  }

  @Test
  void aWrongAcceptKeyFailsTheConnect() throws Exception {
    CompletableFuture<ReactorRequester> client =
        SluiceClient.builder(WebSocketClientTransport.create(uri())).connect().toFuture();
    try (RawWebSocket ws = accept(new String[1])) {
      ws.sendRaw(
          "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              + "Sec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n");
      assertThatThrownBy(() -> client.get(20, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(WebSocketHandshakeException.class)
          .hasMessageContaining("Sec-WebSocket-Accept");
    }
  }

  /**
   * The client offered permessage-deflate only: an answer that picks another extension as well
   * fails the connect, whether both come on one Sec-WebSocket-Extensions line or on two (the
   * second line used to be overlooked, and the connection went on with an extension the server
   * thinks is in use).
   */
  @Test
  void anExtensionWeDidNotOfferFailsTheConnectOnAnyLine() throws Exception {
    for (String extensions :
        new String[] {
          "Sec-WebSocket-Extensions: permessage-deflate, x-other\r\n",
          "Sec-WebSocket-Extensions: permessage-deflate\r\nSec-WebSocket-Extensions: x-other\r\n",
        }) {
      CompletableFuture<ReactorRequester> client =
          SluiceClient.builder(WebSocketClientTransport.create(uri()).withCompression(true))
              .connect()
              .toFuture();
      String[] key = new String[1];
      try (RawWebSocket ws = accept(key)) {
        ws.sendRaw(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: " + acceptKey(key[0]) + "\r\n" + extensions + "\r\n");
        assertThatThrownBy(() -> client.get(20, TimeUnit.SECONDS))
            .as(extensions)
            .isInstanceOf(ExecutionException.class)
            .cause()
            .isInstanceOf(WebSocketHandshakeException.class)
            .hasMessageContaining("x-other");
      } finally {
        client.thenAccept(ReactorRequester::dispose);
      }
    }
  }

  @Test
  void aRefusedUpgradeFailsTheConnect() throws Exception {
    CompletableFuture<ReactorRequester> client =
        SluiceClient.builder(WebSocketClientTransport.create(uri())).connect().toFuture();
    try (RawWebSocket ws = accept(new String[1])) {
      ws.sendRaw("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
      assertThatThrownBy(() -> client.get(20, TimeUnit.SECONDS))
          .cause()
          .isInstanceOf(WebSocketHandshakeException.class)
          .hasMessageContaining("404");
    }
  }

  @Test
  void aServerThatNeverAnswersFailsTheConnectAtTheDeadline() throws Exception {
    CompletableFuture<ReactorRequester> client =
        SluiceClient.builder(WebSocketClientTransport.create(uri()).withUpgradeTimeout(Duration.ofMillis(300)))
            .connect()
            .toFuture();
    try (RawWebSocket ws = accept(new String[1])) {
      assertThatThrownBy(() -> client.get(20, TimeUnit.SECONDS))
          .cause()
          .isInstanceOf(WebSocketHandshakeException.class)
          .hasMessageContaining("no WebSocket upgrade within 300 ms");
      assertThat(ws.awaitEof()).isTrue();
    }
  }

  @Test
  void badUrisAreRefused() {
    assertThatThrownBy(() -> WebSocketClientTransport.create(URI.create("http://h/")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ws:// or wss://");
    assertThatThrownBy(() -> WebSocketServerTransport.create("127.0.0.1", 0).withPath("no-slash"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
