package io.sluice.transport.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.Message;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.http2.internal.RawH2Client;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * WebSocket over HTTP/2 on the wire (RFC 8441): the server's SETTINGS enable extended CONNECT; a
 * CONNECT that is not a WebSocket one, or for another path or origin, is answered with the fitting
 * status; pings are answered and a client's close frame gets the server's with END_STREAM; a
 * stream that breaks RFC 6455 is closed with the close code the WebSocket transport would
 * use, on that stream only; a client facing a server without extended CONNECT, or a refusal, fails
 * its connect clearly; and the stream mapping can share the port.
 */
class WebSocketOverHttp2ProtocolTest {
  private static final Duration WAIT = Duration.ofSeconds(20); // hang guard only
  private static final long WAIT_S = WAIT.toSeconds();

  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  private static String take(Message m) {
    try {
      return m.dataUtf8();
    } finally {
      m.release();
    }
  }

  /** An echo server (request-response) on {@code transport}; returns its port. */
  private int serve(ServerTransport transport) {
    ServerTransport.Bound bound =
        SluiceServer.builder(transport)
            .responder(
                new ReactorResponder() {
                  @Override
                  public Mono<Message> requestResponse(Message request) {
                    return Mono.just(Message.utf8(ByteBufAllocator.DEFAULT, "echo " + take(request)));
                  }
                })
            .bind()
            .block(WAIT);
    toClose.add(bound);
    return ((InetSocketAddress) bound.address()).getPort();
  }

  private int serveWebSockets() {
    return serve(
        WebSocketOverHttp2ServerTransport.create("127.0.0.1", 0)
            .withPath("/rsocket")
            .withAllowedOrigins(Set.of("https://App.example.com")));
  }

  private RawH2Client raw(int port) throws Exception {
    RawH2Client c = RawH2Client.connect(port);
    toClose.add(c);
    return c;
  }

  private static Http2Headers connect(String protocol, String path) {
    Http2Headers h = new DefaultHttp2Headers().method("CONNECT").authority("127.0.0.1");
    if (protocol != null) {
      h.set(":protocol", protocol).scheme("http").path(path);
    }
    return h;
  }

  private static String status(RawH2Client.Response r) throws Exception {
    return r.headers.get(WAIT_S, TimeUnit.SECONDS).status().toString();
  }

  @Test
  void theServerEnablesExtendedConnect() throws Exception {
    RawH2Client c = raw(serveWebSockets());
    assertThat(c.settings.get(WAIT_S, TimeUnit.SECONDS).connectProtocolEnabled()).isTrue();
  }

  @Test
  void aConnectThatIsNotAWebSocketOneIsRefused() throws Exception {
    RawH2Client c = raw(serveWebSockets());
    c.settings.get(WAIT_S, TimeUnit.SECONDS);
    assertThat(status(c.request(connect(null, null), false))).as("CONNECT without :protocol").isEqualTo("400");
    assertThat(status(c.request(connect("h2-tunnel", "/rsocket"), false))).as(":protocol h2-tunnel").isEqualTo("501");
    assertThat(status(c.request(connect("websocket", "/elsewhere"), false))).as("another path").isEqualTo("404");
    Http2Headers noAuthority = connect("websocket", "/rsocket");
    noAuthority.remove(":authority");
    assertThat(status(c.request(noAuthority, false))).as("no :authority").isEqualTo("400");
    assertThat(status(c.request(connect("websocket", "/rsocket").set(HttpHeaderNames.SEC_WEBSOCKET_VERSION, "8"), false)))
        .as("sec-websocket-version 8")
        .isEqualTo("400");
    assertThat(status(c.request(connect("websocket", "/rsocket"), true))).as("with END_STREAM").isEqualTo("400");
    assertThat(status(c.request(connect("websocket", "/rsocket").set(HttpHeaderNames.ORIGIN, "https://evil.example"), false)))
        .as("an origin outside the allow-list")
        .isEqualTo("403");
    assertThat(
            status(
                c.request(
                    new DefaultHttp2Headers().method("POST").scheme("http").authority("x").path("/rsocket/response")
                        .set(HttpHeaderNames.CONTENT_TYPE, "application/rsocket+http2"),
                    false)))
        .as("a request of the stream mapping, not served here")
        .isEqualTo("404");

    // The connection is still good: a proper CONNECT (allowed origin, query ignored) is a WebSocket.
    RawH2Client.Response ok =
        c.request(connect("websocket", "/rsocket?x=1").set(HttpHeaderNames.ORIGIN, "https://app.example.com"), false);
    assertThat(status(ok)).isEqualTo("200");
    assertThat(ok.endStream).isFalse();
  }

  /** The first close frame in {@code bytes} (the server's WebSocket frames, unmasked): its code. */
  private static int closeCode(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    while (b.remaining() >= 2) {
      int b0 = b.get() & 0xFF;
      int b1 = b.get() & 0xFF;
      assertThat(b1 & 0x80).as("a server's frame is not masked").isZero();
      int len7 = b1 & 0x7F;
      long len = len7 < 126 ? len7 : len7 == 126 ? b.getShort() & 0xFFFF : b.getLong();
      if ((b0 & 0x0F) == 0x8) {
        return b.getShort() & 0xFFFF;
      }
      b.position(b.position() + (int) len);
    }
    throw new AssertionError("no close frame in " + bytes.length + " bytes");
  }

  /** Sends {@code frame} on a fresh WebSocket stream; returns the close code the server answers. */
  private int closeCodeFor(RawH2Client c, byte[] frame) throws Exception {
    RawH2Client.Response ws = c.request(connect("websocket", "/rsocket"), false);
    assertThat(status(ws)).isEqualTo("200");
    c.data(ws, frame, false);
    byte[] got = ws.closed.get(WAIT_S, TimeUnit.SECONDS);
    return closeCode(got);
  }

  @Test
  void aStreamThatBreaksRfc6455IsClosedWithItsCodeAndTheOthersGoOn() throws Exception {
    int port = serveWebSockets();
    RawH2Client c = raw(port);
    c.settings.get(WAIT_S, TimeUnit.SECONDS);
    // An unmasked binary frame from a client: 1002.
    assertThat(closeCodeFor(c, new byte[] {(byte) 0x82, 1, 0})).isEqualTo(1002);
    // A text frame (masked, empty): 1003.
    assertThat(closeCodeFor(c, new byte[] {(byte) 0x81, (byte) 0x80, 1, 2, 3, 4})).isEqualTo(1003);
    // A message declaring 2^40 bytes, refused from its header: 1009.
    byte[] huge = {(byte) 0x82, (byte) 0xFF, 0, 0, 1, 0, 0, 0, 0, 0, 1, 2, 3, 4};
    assertThat(closeCodeFor(c, huge)).isEqualTo(1009);

    // The TCP connection carried those three and still serves RSocket connections.
    assertThat(c.settings.isDone()).isTrue();
    ReactorRequester r =
        SluiceClient.builder(WebSocketOverHttp2ClientTransport.create("127.0.0.1", port).withPath("/rsocket"))
            .connect()
            .block(WAIT);
    toClose.add(r::dispose);
    assertThat(take(r.requestResponse(Message.utf8(ByteBufAllocator.DEFAULT, "hi")).block(WAIT))).isEqualTo("echo hi");
  }

  /** A client's frame: FIN, {@code opcode}, masked with {@code key}. */
  private static byte[] masked(int opcode, byte[] payload, int key) {
    byte[] f = new byte[6 + payload.length];
    f[0] = (byte) (0x80 | opcode);
    f[1] = (byte) (0x80 | payload.length);
    ByteBuffer.wrap(f, 2, 4).putInt(key);
    for (int i = 0; i < payload.length; i++) {
      f[6 + i] = (byte) (payload[i] ^ (key >>> (24 - 8 * (i & 3))));
    }
    return f;
  }

  @Test
  void pingsAreAnsweredAndAClientsCloseIsAnsweredWithCloseAndEndStream() throws Exception {
    RawH2Client c = raw(serveWebSockets());
    RawH2Client.Response ws = c.request(connect("websocket", "/rsocket"), false);
    assertThat(status(ws)).isEqualTo("200");
    c.data(ws, masked(0x9, "hey".getBytes(StandardCharsets.US_ASCII), 0x11223344), false);
    c.data(ws, masked(0x8, new byte[] {0x03, (byte) 0xE8}, 0x55667788), true); // close 1000, END_STREAM
    byte[] got = ws.closed.get(WAIT_S, TimeUnit.SECONDS);
    assertThat(ws.endStream).as("the server ended its half (END_STREAM)").isTrue();
    assertThat(ws.resetCode).as("no RST_STREAM").isEqualTo(-1);
    // A pong with the ping's payload, unmasked, then the close frame answering ours.
    assertThat(Arrays.copyOf(got, 5)).containsExactly(0x8A, 3, 'h', 'e', 'y');
    assertThat(closeCode(Arrays.copyOfRange(got, 5, got.length))).isEqualTo(1000);
    assertThat(got).hasSize(5 + 4);
  }

  @Test
  void aClientFailsClearlyWhenTheServerDoesNotEnableExtendedConnect() throws Exception {
    int port = serve(Http2ServerTransport.create("127.0.0.1", 0)); // the stream mapping only
    WebSocketOverHttp2ClientTransport client = WebSocketOverHttp2ClientTransport.create("127.0.0.1", port);
    assertThatThrownBy(() -> client.connect().get(WAIT_S, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("SETTINGS_ENABLE_CONNECT_PROTOCOL");
  }

  @Test
  void aClientFailsClearlyWhenTheServerRefusesTheConnect() throws Exception {
    int port = serveWebSockets();
    WebSocketOverHttp2ClientTransport client =
        WebSocketOverHttp2ClientTransport.create("127.0.0.1", port).withPath("/nothing-here");
    assertThatThrownBy(() -> client.connect().get(WAIT_S, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining(":status 404");
  }

  @Test
  void theStreamMappingCanShareThePort() throws Exception {
    int port =
        serve(WebSocketOverHttp2ServerTransport.create("127.0.0.1", 0).withPath("/ws").withStreamMapping(true));
    ReactorRequester ws =
        SluiceClient.builder(WebSocketOverHttp2ClientTransport.create("127.0.0.1", port).withPath("/ws"))
            .connect()
            .block(WAIT);
    toClose.add(ws::dispose);
    ReactorRequester mapped = SluiceClient.builder(Http2ClientTransport.create("127.0.0.1", port)).connect().block(WAIT);
    toClose.add(mapped::dispose);
    assertThat(take(ws.requestResponse(Message.utf8(ByteBufAllocator.DEFAULT, "over ws-h2")).block(WAIT)))
        .isEqualTo("echo over ws-h2");
    assertThat(take(mapped.requestResponse(Message.utf8(ByteBufAllocator.DEFAULT, "mapped")).block(WAIT)))
        .isEqualTo("echo mapped");
  }
}
