package io.sluice.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.sluice.ErrorCode;
import io.sluice.Message;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceServer;
import io.sluice.test.FrameBuilder;
import io.sluice.transport.ServerTransport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import reactor.core.publisher.Mono;

/**
 * A Sluice WebSocket server against a hand-made client that follows RFC 6455 or breaks it on
 * purpose: the upgrade's checks and limits, close codes, reassembly, ping and the close handshake.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WebSocketServerProtocolTest {
  private static final int MAX_FRAME = 1024 * 1024; // ConnectionOptions' default

  private ServerTransport.Bound server;
  private int port;
  private final BlockingQueue<ReactorRequester> connections = new LinkedBlockingQueue<>();

  @BeforeAll
  void start() {
    server =
        SluiceServer.builder(
                WebSocketServerTransport.create("127.0.0.1", 0)
                    .withPath("/rs")
                    .withAllowedOrigins(Set.of("https://App.example.com")))
            .acceptor(
                (setup, requester) -> {
                  connections.add(requester);
                  return new ReactorResponder() {
                    @Override
                    public Mono<Message> requestResponse(Message request) {
                      String s = request.dataUtf8();
                      request.release();
                      return Mono.just(Message.utf8(ByteBufAllocator.DEFAULT, "echo:" + s));
                    }
                  };
                })
            .bind()
            .block(Duration.ofSeconds(10));
    port = ((InetSocketAddress) server.address()).getPort();
  }

  @AfterAll
  void stop() {
    server.close();
  }

  private RawWebSocket upgraded() throws IOException {
    RawWebSocket ws = RawWebSocket.upgrade(port, "/rs");
    assertThat(ws.status()).as(ws.responseHead).isEqualTo(101);
    return ws;
  }

  private static byte[] setup() {
    return FrameBuilder.setup().keepAlive(20_000).lifetime(90_000).toBytes();
  }

  /** Reads binary messages until the RSocket PAYLOAD on stream 1 and returns its data. */
  private static String awaitPayload(RawWebSocket ws) throws IOException {
    for (; ; ) {
      RawWebSocket.Frame f = ws.read();
      assertThat(f.opcode()).as("frame %s", f).isEqualTo(0x2);
      assertThat(f.masked()).as("server frames are never masked").isFalse();
      ByteBuffer b = ByteBuffer.wrap(f.payload());
      int stream = b.getInt();
      int type = (b.getShort() & 0xFFFF) >>> 10;
      if (stream == 1 && type == FrameBuilder.TYPE_PAYLOAD) {
        return new String(f.payload(), 6, f.payload().length - 6, StandardCharsets.UTF_8);
      }
    }
  }

  /** Reads until the close frame; the RSocket ERROR before it (if any) must be CONNECTION_ERROR. */
  private static RawWebSocket.Frame awaitCloseAfterError(RawWebSocket ws) throws IOException {
    boolean sawError = false;
    for (; ; ) {
      RawWebSocket.Frame f = ws.read();
      if (f.opcode() == 0x8) {
        assertThat(sawError).as("an RSocket ERROR came before the close frame").isTrue();
        return f;
      }
      ByteBuffer b = ByteBuffer.wrap(f.payload());
      int stream = b.getInt();
      int type = (b.getShort() & 0xFFFF) >>> 10;
      if (stream == 0 && type == FrameBuilder.TYPE_ERROR) {
        assertThat(b.getInt()).isEqualTo(ErrorCode.CONNECTION_ERROR);
        sawError = true;
      }
    }
  }

  @Test
  void upgradeAnswersWithTheAcceptKeyAndServesRequests() throws Exception {
    try (RawWebSocket ws = open101()) {
      ws.sendBinary(setup());
      ws.sendBinary(FrameBuilder.requestResponse(1).data("hi").toBytes());
      assertThat(awaitPayload(ws)).isEqualTo("echo:hi");
    }
  }

  private RawWebSocket open101() throws IOException {
    RawWebSocket ws = RawWebSocket.open(port);
    String request = RawWebSocket.request("/rs");
    String key = request.split("Sec-WebSocket-Key: ")[1].split("\r\n")[0];
    ws.sendRaw(request);
    ws.readResponseHead();
    assertThat(ws.status()).isEqualTo(101);
    // RFC 6455 4.2.2's example key and answer, computed the same way.
    assertThat(ws.header("Sec-WebSocket-Accept"))
        .isEqualTo(
            java.util.Base64.getEncoder()
                .encodeToString(
                    sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").getBytes(StandardCharsets.US_ASCII))));
    return ws;
  }

  private static byte[] sha1(byte[] b) {
    try {
      return java.security.MessageDigest.getInstance("SHA-1").digest(b);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void wrongPathIs404() throws Exception {
    try (RawWebSocket ws = RawWebSocket.upgrade(port, "/other")) {
      assertThat(ws.status()).isEqualTo(404);
      assertThat(ws.awaitEof()).isTrue();
    }
  }

  @Test
  void notAnUpgradeIs426() throws Exception {
    try (RawWebSocket ws = RawWebSocket.open(port)) {
      ws.sendRaw("GET /rs HTTP/1.1\r\nHost: x\r\n\r\n");
      ws.readResponseHead();
      assertThat(ws.status()).isEqualTo(426);
    }
  }

  @Test
  void originsOnTheListAndNoOriginAreAcceptedOthersGet403() throws Exception {
    try (RawWebSocket ws = RawWebSocket.upgrade(port, "/rs", "Origin: https://app.example.com")) {
      assertThat(ws.status()).isEqualTo(101);
    }
    try (RawWebSocket ws = RawWebSocket.upgrade(port, "/rs")) {
      assertThat(ws.status()).as("no Origin: not a browser").isEqualTo(101);
    }
    try (RawWebSocket ws = RawWebSocket.upgrade(port, "/rs", "Origin: https://evil.example.net")) {
      assertThat(ws.status()).isEqualTo(403);
      assertThat(ws.awaitEof()).isTrue();
    }
  }

  /**
   * On a server of its own: the other tests' server keeps the default deadline (5 s), so that a
   * client thread held up on a busy machine between connect and request is never cut there.
   */
  @Test
  void halfAnUpgradeRequestIsCutOffAtTheDeadline() throws Exception {
    ServerTransport.Bound strict =
        SluiceServer.builder(
                WebSocketServerTransport.create("127.0.0.1", 0)
                    .withPath("/rs")
                    .withUpgradeTimeout(Duration.ofMillis(300)))
            .acceptor((setup, requester) -> new ReactorResponder() {})
            .bind()
            .block(Duration.ofSeconds(10));
    try (RawWebSocket ws = RawWebSocket.open(((InetSocketAddress) strict.address()).getPort())) {
      String request = RawWebSocket.request("/rs");
      ws.sendRaw(request.substring(0, request.length() / 2));
      // The deadline is 300 ms; the read's own timeout (20 s) is only a hang guard.
      assertThat(ws.in.read()).as("closed without an answer").isEqualTo(-1);
    } finally {
      strict.close();
    }
  }

  /** An upgrade request with its header fields as given (Host and the key added here). */
  private RawWebSocket upgradeWith(String... fields) throws IOException {
    RawWebSocket ws = RawWebSocket.open(port);
    StringBuilder b = new StringBuilder("GET /rs HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    for (String f : fields) {
      b.append(f).append("\r\n");
    }
    ws.sendRaw(b.append("\r\n").toString());
    ws.readResponseHead();
    return ws;
  }

  private static final String KEY = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==";
  private static final String VERSION = "Sec-WebSocket-Version: 13";

  /**
   * RFC 9110 5.3: a header field may come as several lines, which mean the same as one line
   * with the values joined by commas (as some proxies send Connection). The upgrade tokens are
   * looked for in all of them.
   */
  @Test
  void connectionAndUpgradeTokensAreFoundInEveryLineOfTheirField() throws Exception {
    try (RawWebSocket ws =
        upgradeWith("Connection: keep-alive", "Connection: Upgrade", "Upgrade: websocket", KEY, VERSION)) {
      assertThat(ws.status()).as(ws.responseHead).isEqualTo(101);
      ws.sendBinary(setup());
      ws.sendBinary(FrameBuilder.requestResponse(1).data("two lines").toBytes());
      assertThat(awaitPayload(ws)).isEqualTo("echo:two lines");
    }
    try (RawWebSocket ws =
        upgradeWith("Upgrade: h2c", "Upgrade: websocket", "Connection: Upgrade", KEY, VERSION)) {
      assertThat(ws.status()).as(ws.responseHead).isEqualTo(101);
    }
    try (RawWebSocket ws = upgradeWith("Connection: keep-alive", "Upgrade: websocket", KEY, VERSION)) {
      assertThat(ws.status()).as("no upgrade token anywhere").isEqualTo(426);
    }
  }

  /** RFC 6455 11.3.1 and 11.3.5: Sec-WebSocket-Key and -Version may not come more than once. */
  @Test
  void aRepeatedKeyOrVersionIs400() throws Exception {
    String upgrade = "Upgrade: websocket";
    String connection = "Connection: Upgrade";
    try (RawWebSocket ws =
        upgradeWith(upgrade, connection, KEY, "Sec-WebSocket-Key: AQIDBAUGBwgJCgsMDQ4PEA==", VERSION)) {
      assertThat(ws.status()).as(ws.responseHead).isEqualTo(400);
    }
    try (RawWebSocket ws = upgradeWith(upgrade, connection, KEY, VERSION, VERSION)) {
      assertThat(ws.status()).as(ws.responseHead).isEqualTo(400);
    }
  }

  @Test
  void oversizeHeadersAre431() throws Exception {
    try (RawWebSocket ws = RawWebSocket.upgrade(port, "/rs", "X-Big: " + "a".repeat(9000))) {
      assertThat(ws.status()).isEqualTo(431);
    }
  }

  @Test
  void aTextMessageClosesWith1003() throws Exception {
    try (RawWebSocket ws = upgraded()) {
      ws.sendBinary(setup());
      ws.send(0x80 | 0x1, "hello".getBytes(StandardCharsets.UTF_8), true);
      RawWebSocket.Frame close = awaitCloseAfterError(ws);
      assertThat(close.closeCode()).isEqualTo(1003);
      assertThat(ws.awaitEof()).isTrue();
    }
  }

  @Test
  void aFrameDeclaringMoreThanTheLimitClosesWith1009BeforeItsPayload() throws Exception {
    for (long declared : new long[] {MAX_FRAME + 1L, 1L << 62}) {
      try (RawWebSocket ws = upgraded()) {
        ws.sendBinary(setup());
        ws.sendHeaderOnly(0x80 | 0x2, declared);
        RawWebSocket.Frame close = awaitCloseAfterError(ws);
        assertThat(close.closeCode()).as("declared %s", declared).isEqualTo(1009);
      }
    }
  }

  @Test
  void continuationFramesAreReassembledWithPingsBetween() throws Exception {
    try (RawWebSocket ws = upgraded()) {
      byte[] s = setup();
      ws.send(0x02, Arrays.copyOfRange(s, 0, 5), true);
      ws.send(0x00, Arrays.copyOfRange(s, 5, 9), true);
      ws.send(0x80 | 0x9, "between".getBytes(StandardCharsets.US_ASCII), true); // control frame between fragments
      ws.send(0x80, Arrays.copyOfRange(s, 9, s.length), true);
      // 60,000 bytes: over 2^16 (the 64-bit length form) split in two, under the MTU (one
      // RSocket frame back).
      byte[] rr = FrameBuilder.requestResponse(1).data("x".repeat(60_000)).toBytes();
      ws.send(0x02, Arrays.copyOfRange(rr, 0, 40_000), true);
      ws.send(0x80, Arrays.copyOfRange(rr, 40_000, rr.length), true);
      RawWebSocket.Frame pong = ws.read();
      assertThat(pong.opcode()).isEqualTo(0xA);
      assertThat(pong.text()).isEqualTo("between");
      String reply = awaitPayload(ws);
      assertThat(reply.length()).isEqualTo(60_005);
      assertThat(reply.equals("echo:" + "x".repeat(60_000))).as("the echo of the reassembled request").isTrue();
    }
  }

  /**
   * A ping and a request read together: the pong, written first, goes first. It used to wait in
   * the transport's batch while the reply to the request, written after it, went straight out.
   */
  @Test
  void aPongIsNotOvertakenByAReplyWrittenAfterIt() throws Exception {
    try (RawWebSocket ws = upgraded()) {
      ws.sendBinary(setup());
      ws.sendTogether(
          RawWebSocket.frame(0x80 | 0x9, "first".getBytes(StandardCharsets.US_ASCII), true),
          RawWebSocket.frame(0x80 | 0x2, FrameBuilder.requestResponse(1).data("x").toBytes(), true));
      RawWebSocket.Frame pong = ws.read();
      assertThat(pong.opcode()).as("frame %s", pong).isEqualTo(0xA);
      assertThat(pong.text()).isEqualTo("first");
      assertThat(awaitPayload(ws)).isEqualTo("echo:x");
    }
  }

  @Test
  void fragmentsBeyondTheLimitCloseWith1009() throws Exception {
    try (RawWebSocket ws = upgraded()) {
      ws.sendBinary(setup());
      byte[] chunk = new byte[64 * 1024];
      ws.send(0x02, chunk, true);
      for (int i = 0; i < 15; i++) {
        ws.send(0x00, chunk, true);
      }
      ws.send(0x00, new byte[1], true); // 1 MiB + 1 in all
      assertThat(awaitCloseAfterError(ws).closeCode()).isEqualTo(1009);
    }
  }

  /** Frames RFC 6455 forbids, each on a new connection after SETUP: answered with 1002. */
  @Test
  void framesAgainstTheProtocolCloseWith1002() throws Exception {
    byte[] small = {1, 2, 3};
    byte[][][] cases = {
      {RawWebSocket.frame(0x09, small, true)}, // a ping without FIN (fragmented control frame)
      {RawWebSocket.frame(0x80 | 0x9, new byte[126], true)}, // a control frame over 125 bytes
      {RawWebSocket.frame(0x80 | 0x3, small, true)}, // an unknown (reserved) opcode
      {RawWebSocket.frame(0x80 | 0xB, small, true)}, // an unknown control opcode
      {RawWebSocket.frame(0x80 | 0x0, small, true)}, // a continuation without a message
      {RawWebSocket.frame(0x02, small, true), RawWebSocket.frame(0x80 | 0x2, small, true)}, // new message amid one
      {RawWebSocket.frame(0x80 | 0x20 | 0x2, small, true)}, // RSV3
    };
    boolean first = true;
    for (byte[][] frames : cases) {
      try (RawWebSocket ws = upgraded()) {
        ws.sendBinary(setup());
        for (byte[] f : frames) {
          ws.out.write(f);
        }
        ws.out.flush();
        RawWebSocket.Frame close = awaitCloseAfterError(ws);
        assertThat(close.closeCode()).as("frame %s", Arrays.toString(frames[0])).isEqualTo(1002);
        if (!first) {
          // Answered as a peer does (RFC 6455 5.5.1), so the server closes at once. The first case
          // does not answer: the server then ends the connection after its close wait (2 s), the
          // cut this test needs once (aPeerThatNeverAnswersTheCloseIsCutOff: the same wait after
          // the server's own close), not seven times.
          ws.send(0x80 | 0x8, close.payload(), true);
        }
        first = false;
        assertThat(ws.awaitEof()).isTrue();
      }
    }
  }

  /** A message in more than 4096 fragments is a policy violation (1008), however small. */
  @Test
  void moreThan4096FragmentsCloseWith1008() throws Exception {
    try (RawWebSocket ws = upgraded()) {
      ws.sendBinary(setup());
      java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
      b.writeBytes(RawWebSocket.frame(0x02, new byte[] {0}, true));
      for (int i = 0; i < 4096; i++) {
        b.writeBytes(RawWebSocket.frame(0x00, new byte[] {0}, true));
      }
      ws.out.write(b.toByteArray());
      ws.out.flush();
      assertThat(awaitCloseAfterError(ws).closeCode()).isEqualTo(1008);
    }
  }

  /** The server's close waits for the peer's answer, but not for ever: a silent peer is cut off. */
  @Test
  void aPeerThatNeverAnswersTheCloseIsCutOff() throws Exception {
    try (RawWebSocket ws = upgraded()) {
      connections.clear();
      ws.sendBinary(setup());
      ReactorRequester serverSide = connections.poll(10, TimeUnit.SECONDS);
      assertThat(serverSide).isNotNull();
      serverSide.dispose();
      assertThat(ws.awaitClose()).as("the server's close frame").isNotNull();
      // We never answer; the read's own 20 s timeout is only a hang guard.
      assertThat(ws.awaitEof()).isTrue();
    }
  }

  @Test
  void pingIsAnsweredWithPong() throws Exception {
    try (RawWebSocket ws = upgraded()) {
      ws.send(0x80 | 0x9, new byte[] {1, 2, 3, 4, 5}, true);
      RawWebSocket.Frame pong = ws.read();
      assertThat(pong.opcode()).isEqualTo(0xA);
      assertThat(pong.payload()).containsExactly(1, 2, 3, 4, 5);
    }
  }

  @Test
  void anUnmaskedClientFrameClosesWith1002() throws Exception {
    try (RawWebSocket ws = upgraded()) {
      ws.sendBinary(setup());
      ws.send(0x80 | 0x2, FrameBuilder.requestResponse(1).data("x").toBytes(), false);
      assertThat(awaitCloseAfterError(ws).closeCode()).isEqualTo(1002);
    }
  }

  @Test
  void aPeersCloseIsAnsweredAndEndsTheConnection() throws Exception {
    try (RawWebSocket ws = upgraded()) {
      ws.sendBinary(setup());
      ReactorRequester serverSide = connections.poll(10, TimeUnit.SECONDS);
      assertThat(serverSide).isNotNull();
      ws.send(0x80 | 0x8, new byte[] {0x03, (byte) 0xE8}, true); // 1000
      RawWebSocket.Frame close = ws.awaitClose();
      assertThat(close).as("close frame answered").isNotNull();
      assertThat(close.closeCode()).isEqualTo(1000);
      assertThat(ws.awaitEof()).isTrue();
      serverSide.onClose().onErrorResume(e -> Mono.empty()).block(Duration.ofSeconds(10));
    }
  }

  /**
   * RFC 6455 7.4.1 and 8.1: a close frame's reason must be UTF-8 (else 1007), its code one that may
   * be sent (else 1002; 1005 is the marker for "no code" and may never be on the wire), and it
   * has no 1-byte form. A valid reason is fine, and the code is echoed.
   */
  @Test
  void aPeersCloseFrameIsCheckedBeforeItIsAnswered() throws Exception {
    byte[] ok = "bye \u00e9\u00e8 \u2713".getBytes(StandardCharsets.UTF_8);
    byte[] withReason = new byte[2 + ok.length];
    withReason[0] = 0x0F; // 4000
    withReason[1] = (byte) 0xA0;
    System.arraycopy(ok, 0, withReason, 2, ok.length);
    Object[][] cases = {
      {withReason, 4000},
      {new byte[] {}, 1000}, // no code: answered with 1000
      {new byte[] {0x03, (byte) 0xE8, (byte) 0xC0, (byte) 0xAF}, 1007}, // overlong '/'
      {new byte[] {0x03, (byte) 0xE8, (byte) 0xED, (byte) 0xA0, (byte) 0x80}, 1007}, // a surrogate
      {new byte[] {0x03, (byte) 0xE8, 'a', (byte) 0xE2, (byte) 0x82}, 1007}, // cut short
      {new byte[] {0x03, (byte) 0xED}, 1002}, // 1005 on the wire
      {new byte[] {0x03, (byte) 0xEE}, 1002}, // 1006
      {new byte[] {0x03, (byte) 0xE7}, 1002}, // 999
      {new byte[] {0x03, (byte) 0xE8, 0x03}, 1000}, // reason "\3": valid UTF-8
      {new byte[] {0x03}, 1002}, // one byte
    };
    for (Object[] c : cases) {
      byte[] payload = (byte[]) c[0];
      try (RawWebSocket ws = upgraded()) {
        ws.sendBinary(setup());
        ws.send(0x80 | 0x8, payload, true);
        RawWebSocket.Frame close = ws.awaitClose();
        assertThat(close).as("close frame answered for %s", Arrays.toString(payload)).isNotNull();
        assertThat(close.closeCode()).as("answer to %s", Arrays.toString(payload)).isEqualTo(c[1]);
        assertThat(ws.awaitEof()).isTrue();
      }
    }
  }

  @Test
  void closingTheConnectionSendsACloseFrameAndWaitsForTheAnswer() throws Exception {
    try (RawWebSocket ws = upgraded()) {
      connections.clear();
      ws.sendBinary(setup());
      ReactorRequester serverSide = connections.poll(10, TimeUnit.SECONDS);
      assertThat(serverSide).isNotNull();
      serverSide.dispose();
      RawWebSocket.Frame close = ws.awaitClose();
      assertThat(close).as("close frame from the server").isNotNull();
      assertThat(close.closeCode()).isEqualTo(1000);
      // The server waits for our answer before it ends the TCP connection: still open now.
      ws.socket.setSoTimeout(200);
      assertThat(readTimesOut(ws)).as("TCP still open until we answer").isTrue();
      ws.socket.setSoTimeout(20_000);
      ws.send(0x80 | 0x8, new byte[] {0x03, (byte) 0xE8}, true);
      assertThat(ws.awaitEof()).isTrue();
    }
  }

  private static boolean readTimesOut(RawWebSocket ws) throws IOException {
    try {
      return ws.in.read() < -1; // never: a byte or EOF means the connection did not wait
    } catch (java.net.SocketTimeoutException e) {
      return true;
    }
  }

  @Test
  void compressionIsNotNegotiatedByDefault() throws Exception {
    try (RawWebSocket ws =
        RawWebSocket.upgrade(port, "/rs", "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits")) {
      assertThat(ws.status()).isEqualTo(101);
      assertThat(ws.header("Sec-WebSocket-Extensions")).isNull();
      // RSV1 without a negotiated extension is a protocol error.
      ws.sendBinary(setup());
      ws.send(0x80 | 0x40 | 0x2, new byte[] {1, 2, 3}, true);
      assertThat(awaitCloseAfterError(ws).closeCode()).isEqualTo(1002);
    }
  }
}
