package io.sluice.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.sluice.Message;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.test.FrameBuilder;
import io.sluice.transport.ServerTransport;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.zip.Deflater;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** permessage-deflate: off unless asked for, working when on, and bounded when inflating. */
class WebSocketCompressionTest {
  private static final Duration WAIT = Duration.ofSeconds(20); // hang guard only
  private ServerTransport.Bound server;

  private int serve(boolean compression) {
    server =
        SluiceServer.builder(WebSocketServerTransport.create("127.0.0.1", 0).withCompression(compression))
            .responder(
                new ReactorResponder() {
                  @Override
                  public Mono<Message> requestResponse(Message request) {
                    return Mono.just(Message.of(request.data().retain())).doFinally(s -> request.release());
                  }
                })
            .bind()
            .block(WAIT);
    return ((InetSocketAddress) server.address()).getPort();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static byte[] payload() {
    byte[] b = new byte[200_000];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) ("sluice ".charAt(i % 7));
    }
    byte[] noise = new byte[5000];
    ThreadLocalRandom.current().nextBytes(noise);
    System.arraycopy(noise, 0, b, 1000, noise.length);
    return b;
  }

  private static void roundTrip(int port, boolean clientCompression) {
    ReactorRequester client =
        SluiceClient.builder(
                WebSocketClientTransport.create(URI.create("ws://127.0.0.1:" + port + "/"))
                    .withCompression(clientCompression))
            .connect()
            .block(WAIT);
    try {
      for (byte[] data : new byte[][] {payload(), "small".getBytes(), payload()}) {
        Message reply = client.requestResponse(Message.of(client.alloc().buffer().writeBytes(data))).block(WAIT);
        try {
          assertThat(Arrays.equals(ByteBufUtil.getBytes(reply.data()), data)).as("echo intact").isTrue();
        } finally {
          reply.release();
        }
      }
    } finally {
      client.dispose();
    }
  }

  @Test
  void negotiatedAndWorkingWhenBothSidesTurnItOn() throws Exception {
    int port = serve(true);
    try (RawWebSocket ws = RawWebSocket.upgrade(port, "/", "Sec-WebSocket-Extensions: permessage-deflate")) {
      assertThat(ws.header("Sec-WebSocket-Extensions")).startsWith("permessage-deflate");
    }
    roundTrip(port, true);
  }

  @Test
  void offeredButNotServedFallsBackToPlainMessages() {
    int port = serve(false);
    roundTrip(port, true);
  }

  @Test
  void aMessageThatInflatesPastTheLimitClosesWith1009() throws Exception {
    int port = serve(true);
    try (RawWebSocket ws = RawWebSocket.upgrade(port, "/", "Sec-WebSocket-Extensions: permessage-deflate")) {
      assertThat(ws.status()).isEqualTo(101);
      ws.sendBinary(FrameBuilder.setup().keepAlive(20_000).lifetime(90_000).toBytes());
      // 8 MiB of zeros (the limit is 1 MiB) in a message of a few KiB.
      byte[] bomb = deflate(new byte[8 << 20]);
      assertThat(bomb.length).isLessThan(64 * 1024);
      ws.send(0x80 | 0x40 | 0x2, bomb, true);
      // (The ERROR frame before it is compressed too: every message is, once negotiated.)
      RawWebSocket.Frame close = ws.awaitClose();
      assertThat(close).isNotNull();
      assertThat(close.closeCode()).isEqualTo(1009);
    }
  }

  /**
   * A compressed message may come in fragments, RSV1 on the first only (RFC 7692 6.1); RSV1 on a
   * continuation is a protocol error (1002).
   */
  @Test
  void aCompressedMessageInFragmentsIsReassembledAndRsv1OnAContinuationIs1002() throws Exception {
    int port = serve(true);
    try (RawWebSocket ws = RawWebSocket.upgrade(port, "/", "Sec-WebSocket-Extensions: permessage-deflate")) {
      assertThat(ws.status()).isEqualTo(101);
      ws.sendBinary(FrameBuilder.setup().keepAlive(20_000).lifetime(90_000).toBytes());
      byte[] request = FrameBuilder.requestResponse(1).data("x".repeat(5000) + "end").toBytes();
      byte[] z = deflate(request);
      int a = z.length / 3;
      int b = 2 * z.length / 3;
      ws.send(0x40 | 0x2, Arrays.copyOfRange(z, 0, a), true);
      ws.send(0x80 | 0x9, new byte[] {7}, true); // a ping between the fragments
      ws.send(0x00, Arrays.copyOfRange(z, a, b), true);
      ws.send(0x80, Arrays.copyOfRange(z, b, z.length), true);
      RawWebSocket.Frame pong = ws.read();
      assertThat(pong.opcode()).isEqualTo(0xA);
      RawWebSocket.Frame reply = ws.read();
      assertThat(reply.opcode()).isEqualTo(0x2);
      byte[] frame = inflate(reply.payload());
      String data = new String(frame, 6, frame.length - 6, java.nio.charset.StandardCharsets.UTF_8);
      assertThat(data.equals("x".repeat(5000) + "end")).as("the echo of the reassembled request").isTrue();

      ws.send(0x40 | 0x2, Arrays.copyOfRange(z, 0, a), true);
      ws.send(0x80 | 0x40, Arrays.copyOfRange(z, a, z.length), true);
      RawWebSocket.Frame close = ws.awaitClose();
      assertThat(close).isNotNull();
      assertThat(close.closeCode()).isEqualTo(1002);
    }
  }

  private static byte[] inflate(byte[] message) throws Exception {
    java.util.zip.Inflater i = new java.util.zip.Inflater(true);
    try {
      i.setInput(concat(message, new byte[] {0, 0, (byte) 0xFF, (byte) 0xFF}));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] chunk = new byte[8192];
      int n;
      while ((n = i.inflate(chunk)) > 0) {
        out.write(chunk, 0, n);
      }
      return out.toByteArray();
    } finally {
      i.end();
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static byte[] deflate(byte[] data) {
    Deflater d = new Deflater(Deflater.BEST_COMPRESSION, true);
    d.setInput(data);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] chunk = new byte[8192];
    int n;
    do {
      n = d.deflate(chunk, 0, chunk.length, Deflater.SYNC_FLUSH);
      out.write(chunk, 0, n);
    } while (n == chunk.length || !d.needsInput());
    d.end();
    byte[] b = out.toByteArray();
    return Arrays.copyOf(b, b.length - 4); // without 00 00 FF FF
  }
}
