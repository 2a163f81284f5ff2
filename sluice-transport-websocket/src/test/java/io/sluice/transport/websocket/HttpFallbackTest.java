package io.sluice.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import io.sluice.Message;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ServerTransport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * {@link WebSocketServerTransport#withHttpFallback}: plain HTTP requests on the WebSocket port go
 * to the caller's handler (keep-alive included, past the upgrade deadline), upgrades still reach
 * RSocket, and without a fallback a plain request is still refused with 426.
 */
class HttpFallbackTest {
  private static final Duration WAIT = Duration.ofSeconds(20); // hang guard only

  private ServerTransport.Bound server;

  /** Answers every request with "hello <method> <uri>" (netty's encoder sends it). */
  @ChannelHandler.Sharable
  static final class Hello extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (msg instanceof HttpRequest req) {
          String body = "hello " + req.method() + " " + req.uri();
          FullHttpResponse r =
              new DefaultFullHttpResponse(
                  HttpVersion.HTTP_1_1,
                  HttpResponseStatus.OK,
                  ByteBufUtil.writeUtf8(ctx.alloc(), body));
          HttpUtil.setContentLength(r, r.content().readableBytes());
          ctx.writeAndFlush(r);
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }
  }

  private int start(WebSocketServerTransport transport) {
    server =
        SluiceServer.builder(transport)
            .responder(
                new ReactorResponder() {
                  @Override
                  public Mono<Message> requestResponse(Message request) {
                    try {
                      return Mono.just(Message.utf8(ByteBufAllocator.DEFAULT, "echo:" + request.dataUtf8()));
                    } finally {
                      request.release();
                    }
                  }
                })
            .bind()
            .block(WAIT);
    return ((InetSocketAddress) server.address()).getPort();
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  /** Sends one HTTP/1.1 request on {@code s}, returns the response head and body. */
  private static String exchange(Socket s, String requestLineAndHeaders) throws IOException {
    OutputStream out = s.getOutputStream();
    out.write((requestLineAndHeaders + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    out.flush();
    InputStream in = s.getInputStream();
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        break;
      }
      head.write(b);
    }
    String h = head.toString(StandardCharsets.US_ASCII);
    int length = 0;
    for (String line : h.split("\r\n")) {
      if (line.toLowerCase().startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).trim());
      }
    }
    return h + new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }

  private static Socket connect(int port) throws IOException {
    Socket s = new Socket("127.0.0.1", port);
    s.setSoTimeout((int) WAIT.toMillis());
    return s;
  }

  @Test
  void plainRequestsGoToTheFallbackAndUpgradesToRSocket() throws Exception {
    int port =
        start(
            WebSocketServerTransport.create("127.0.0.1", 0)
                .withPath("/rsocket")
                .withUpgradeTimeout(Duration.ofMillis(200))
                .withHttpFallback(new Hello()));
    try (Socket s = connect(port)) {
      assertThat(exchange(s, "GET /page?x=1 HTTP/1.1\r\nHost: a"))
          .startsWith("HTTP/1.1 200 OK")
          .endsWith("hello GET /page?x=1");
      // Past the upgrade deadline, on the same connection: the fallback owns it now.
      Thread.sleep(400); // not synchronisation: lets the 200 ms upgrade deadline pass
      assertThat(exchange(s, "POST /rsocket HTTP/1.1\r\nHost: a\r\nContent-Length: 0"))
          .startsWith("HTTP/1.1 200 OK")
          .endsWith("hello POST /rsocket");
    }
    ReactorRequester client =
        SluiceClient.builder(
                WebSocketClientTransport.create(URI.create("ws://127.0.0.1:" + port + "/rsocket")))
            .connect()
            .block(WAIT);
    try {
      Message reply = client.requestResponse(Message.utf8(client.alloc(), "hi")).block(WAIT);
      try {
        assertThat(reply.dataUtf8()).isEqualTo("echo:hi");
      } finally {
        reply.release();
      }
    } finally {
      client.dispose();
    }
  }

  @Test
  void anUpgradeOnAnotherPathIsStillTheTransportsToRefuse() throws Exception {
    int port = start(WebSocketServerTransport.create("127.0.0.1", 0).withPath("/rsocket").withHttpFallback(new Hello()));
    try (Socket s = connect(port)) {
      String r =
          exchange(
              s,
              "GET /elsewhere HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==");
      assertThat(r).startsWith("HTTP/1.1 404");
    }
  }

  @Test
  void withoutAFallbackAPlainRequestIsRefused() throws Exception {
    int port = start(WebSocketServerTransport.create("127.0.0.1", 0).withPath("/rsocket"));
    try (Socket s = connect(port)) {
      assertThat(exchange(s, "GET /rsocket HTTP/1.1\r\nHost: a")).startsWith("HTTP/1.1 426");
    }
  }

  @Test
  void theFallbackMustBeSharable() {
    ChannelHandler notSharable = new ChannelInboundHandlerAdapter();
    assertThatThrownBy(() -> WebSocketServerTransport.create("127.0.0.1", 0).withHttpFallback(notSharable))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("@Sharable");
  }
}
