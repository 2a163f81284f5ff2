package io.sluice.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.sluice.Message;
import io.sluice.core.ConnectionOptions;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.test.FrameBuilder;
import io.sluice.transport.ServerTransport;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The WebSocket header the protocol core writes in front of each RSocket frame (the transport's
 * frame prefix) at the payload lengths where its form changes: up to 125 bytes in 7 bits, 126 to
 * 65535 in 16, 65536 and up in 64; a client's with the mask bit and a key, its frame masked (small
 * frames in place in the core's batch, large payloads into a copy). Checked on the wire by a
 * hand-made peer both ways, and end to end between a Sluice client and server.
 */
class WebSocketFrameSizesTest {
  private static final Duration WAIT = Duration.ofSeconds(20); // hang guard only
  /** RSocket frame header of REQUEST_FNF, REQUEST_RESPONSE and PAYLOAD: stream id, type, flags. */
  private static final int HEADER = 6;
  /**
   * RSocket frame lengths: both sides of each boundary of the WebSocket length's forms, small ones
   * in between (several frames to a batch) and one above the core's copy threshold (2 KiB).
   */
  private static final int[] FRAME_LENGTHS = {7, 125, 126, 9, 65535, 65536, 3000, 8, 125};
  /** No fragmentation: frames of 65536 bytes and more stay whole. */
  private static final ConnectionOptions OPTIONS = ConnectionOptions.builder().mtu(0).build();

  /** Bytes of the WebSocket header of a frame with {@code length} bytes of payload. */
  private static int headerSize(int length, boolean masked) {
    return (length <= 125 ? 2 : length <= 65535 ? 4 : 10) + (masked ? 4 : 0);
  }

  private static byte[] data(int frameLength, int seed) {
    byte[] b = new byte[frameLength - HEADER];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (i * 7 + seed);
    }
    return b;
  }

  /** A pooled message (tracked by the leak detector) with {@code data}. */
  private static Message message(byte[] data) {
    return Message.of(ByteBufAllocator.DEFAULT.buffer(data.length).writeBytes(data));
  }

  private static int lengthOf(int i) {
    return FRAME_LENGTHS[i % FRAME_LENGTHS.length];
  }

  private static int type(byte[] frame) {
    return (ByteBuffer.wrap(frame).getShort(4) & 0xFFFF) >>> 10;
  }

  @Test
  void clientFramesAtTheLengthBoundariesAreMaskedBehindTheShortestHeader() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      listener.setSoTimeout(20_000);
      URI uri = URI.create("ws://127.0.0.1:" + listener.getLocalPort() + "/");
      CompletableFuture<ReactorRequester> connecting =
          SluiceClient.builder(WebSocketClientTransport.create(uri))
              .options(OPTIONS)
              .connect()
              .toFuture();
      try (RawWebSocket ws = new RawWebSocket(listener.accept())) {
        ws.readResponseHead(); // the upgrade request
        ws.sendRaw(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: "
                + acceptKey(ws.header("Sec-WebSocket-Key"))
                + "\r\n\r\n");
        RawWebSocket.Frame setup = ws.read();
        assertThat(type(setup.payload())).isEqualTo(FrameBuilder.TYPE_SETUP);
        assertThat(setup.masked()).isTrue();
        ReactorRequester client = connecting.get(20, TimeUnit.SECONDS);
        try {
          // All in one loop turn, so that the small ones share a batch (and each gets its own key).
          client.unwrap().executor().execute(() -> {
            for (int i = 0; i < FRAME_LENGTHS.length; i++) {
              client.fireAndForget(message(data(FRAME_LENGTHS[i], i))).subscribe();
            }
          });
          for (int i = 0; i < FRAME_LENGTHS.length; i++) {
            RawWebSocket.Frame f = readSkippingKeepAlives(ws);
            int length = FRAME_LENGTHS[i];
            assertThat(f.opcode()).isEqualTo(0x2);
            assertThat(f.fin()).isTrue();
            assertThat(f.masked()).as("client frames are masked").isTrue();
            assertThat(f.payload()).as("frame %s", i).hasSize(length);
            assertThat(f.headerSize())
                .as("header of a %s-byte frame", length)
                .isEqualTo(headerSize(length, true));
            assertThat(type(f.payload())).isEqualTo(FrameBuilder.TYPE_REQUEST_FNF);
            assertThat(Arrays.copyOfRange(f.payload(), HEADER, length))
                .as("unmasked data of frame %s", i)
                .isEqualTo(data(length, i));
          }
        } finally {
          client.dispose();
        }
      }
    }
  }

  @Test
  void serverFramesAtTheLengthBoundariesGoUnmaskedBehindTheShortestHeader() throws Exception {
    ServerTransport.Bound server =
        SluiceServer.builder(WebSocketServerTransport.create("127.0.0.1", 0))
            .options(OPTIONS)
            .acceptor(
                (setup, requester) ->
                    new ReactorResponder() {
                      @Override
                      public Flux<Message> requestStream(Message request) {
                        request.release();
                        return Flux.range(0, FRAME_LENGTHS.length)
                            .map(i -> message(data(FRAME_LENGTHS[i], i)));
                      }
                    })
            .bind()
            .block(WAIT);
    int port = ((InetSocketAddress) server.address()).getPort();
    try (RawWebSocket ws = RawWebSocket.upgrade(port, "/")) {
      assertThat(ws.status()).isEqualTo(101);
      ws.sendBinary(FrameBuilder.setup().keepAlive(20_000).lifetime(90_000).toBytes());
      ws.sendBinary(FrameBuilder.requestStream(1, 1000).data("go").toBytes());
      for (int i = 0; i < FRAME_LENGTHS.length; i++) {
        RawWebSocket.Frame f = readSkippingKeepAlives(ws);
        int length = FRAME_LENGTHS[i];
        assertThat(f.opcode()).isEqualTo(0x2);
        assertThat(f.fin()).isTrue();
        assertThat(f.masked()).as("server frames are never masked").isFalse();
        assertThat(f.payload()).as("frame %s", i).hasSize(length);
        assertThat(f.headerSize())
            .as("header of a %s-byte frame", length)
            .isEqualTo(headerSize(length, false));
        assertThat(type(f.payload())).isEqualTo(FrameBuilder.TYPE_PAYLOAD);
        assertThat(Arrays.copyOfRange(f.payload(), HEADER, length))
            .as("data of frame %s", i)
            .isEqualTo(data(length, i));
      }
    } finally {
      server.close();
    }
  }

  @Test
  void aSluiceClientAndServerExchangeEveryLengthBothWays() {
    ServerTransport.Bound server =
        SluiceServer.builder(WebSocketServerTransport.create("127.0.0.1", 0))
            .options(OPTIONS)
            .acceptor(
                (setup, requester) ->
                    new ReactorResponder() {
                      @Override
                      public Mono<Message> requestResponse(Message request) {
                        return Mono.just(request); // echoed as it came: a slice of the read buffer
                      }
                    })
            .bind()
            .block(WAIT);
    int port = ((InetSocketAddress) server.address()).getPort();
    ReactorRequester client =
        SluiceClient.builder(WebSocketClientTransport.create("127.0.0.1", port))
            .options(OPTIONS)
            .connect()
            .block(WAIT);
    try {
      // Many at once, so that both sides batch them: every length, in a few orders.
      List<byte[]> echoed =
          Flux.range(0, 3 * FRAME_LENGTHS.length)
              .flatMapSequential(
                  i -> client.requestResponse(message(data(lengthOf(i), i))))
              .map(m -> {
                try {
                  return ByteBufUtil.getBytes(m.data());
                } finally {
                  m.release();
                }
              })
              .collectList()
              .block(WAIT);
      assertThat(echoed).hasSize(3 * FRAME_LENGTHS.length);
      for (int i = 0; i < echoed.size(); i++) {
        assertThat(echoed.get(i)).as("echo %s", i).isEqualTo(data(lengthOf(i), i));
      }
    } finally {
      client.dispose();
      client.onClose().onErrorResume(e -> Mono.empty()).block(WAIT);
      server.close();
    }
  }

  private static RawWebSocket.Frame readSkippingKeepAlives(RawWebSocket ws) throws IOException {
    for (; ; ) {
      RawWebSocket.Frame f = ws.read();
      boolean keepAlive =
          f.opcode() == 0x2
              && f.payload().length >= HEADER
              && type(f.payload()) == FrameBuilder.TYPE_KEEPALIVE;
      if (keepAlive) {
        continue;
      }
      return f;
    }
  }

  private static String acceptKey(String key) throws Exception {
    byte[] d =
        MessageDigest.getInstance("SHA-1")
            .digest(
                (key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").getBytes(StandardCharsets.US_ASCII));
    return Base64.getEncoder().encodeToString(d);
  }
}
