package io.sluice.transport.websocket.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketClientHandshakeException;
import io.netty.handler.codec.http.websocketx.WebSocketHandshakeException;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.transport.DuplexTransport;
import java.util.Base64;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The client's side of the opening handshake (RFC 6455 4.1), behind netty's {@link
 * HttpResponseDecoder}: sends the upgrade request once the channel is active (after TLS, which
 * holds writes until its handshake is done), checks the 101 answer (status, {@code Upgrade},
 * {@code Connection}, the accept key, extensions we did not offer) and replaces itself and the
 * decoder with a {@link WebSocketDuplexTransport}, which completes {@code result}. Any other answer,
 * a close, or the deadline fails {@code result} with a {@link WebSocketHandshakeException} and
 * closes the channel.
 */
public final class ClientUpgradeHandler extends ChannelInboundHandlerAdapter {
  private final UpgradeSettings settings;
  private final String hostHeader;
  private final CompletableFuture<DuplexTransport> result;
  private final String key;
  private ScheduledFuture<?> deadline;
  private boolean done;

  /**
   * @param hostHeader the Host header's value ({@code host} or {@code host:port})
   * @param result completed with the upgraded connection, on its event loop
   */
  public ClientUpgradeHandler(
      UpgradeSettings settings, String hostHeader, CompletableFuture<DuplexTransport> result) {
    this.settings = settings;
    this.hostHeader = hostHeader;
    this.result = result;
    byte[] nonce = new byte[16];
    ThreadLocalRandom.current().nextBytes(nonce);
    this.key = Base64.getEncoder().encodeToString(nonce);
  }

  /** The decoder to put in front of this handler, with the settings' limits. */
  public static HttpResponseDecoder newDecoder(UpgradeSettings settings) {
    return new HttpResponseDecoder(settings.maxInitialLineLength(), settings.maxHeaderSize(), 8192);
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    Channel ch = ctx.channel();
    deadline =
        ch.eventLoop()
            .schedule(
                () ->
                    fail(
                        ctx,
                        "no WebSocket upgrade within " + settings.upgradeTimeout().toMillis() + " ms"),
                settings.upgradeTimeout().toNanos(),
                TimeUnit.NANOSECONDS);
    StringBuilder b = new StringBuilder(256);
    b.append("GET ").append(settings.path()).append(" HTTP/1.1\r\n");
    b.append("Host: ").append(hostHeader).append("\r\n");
    b.append("Upgrade: websocket\r\n");
    b.append("Connection: Upgrade\r\n");
    b.append("Sec-WebSocket-Key: ").append(key).append("\r\n");
    b.append("Sec-WebSocket-Version: 13\r\n");
    if (settings.compression()) {
      b.append("Sec-WebSocket-Extensions: permessage-deflate; client_no_context_takeover\r\n");
    }
    b.append("\r\n");
    ctx.writeAndFlush(Handshake.ascii(ctx.alloc(), b), ctx.voidPromise());
    ctx.read();
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (!done && msg instanceof HttpResponse) {
        handle(ctx, (HttpResponse) msg);
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void handle(ChannelHandlerContext ctx, HttpResponse res) {
    HttpHeaders h = res.headers();
    if (res.decoderResult().isFailure()) {
      fail(ctx, "bad upgrade response: " + res.decoderResult().cause());
      return;
    }
    if (!HttpResponseStatus.SWITCHING_PROTOCOLS.equals(res.status())) {
      fail(ctx, "the server answered the WebSocket upgrade with " + res.status());
      return;
    }
    if (!Handshake.hasToken(h.getAll(HttpHeaderNames.UPGRADE), "websocket")
        || !Handshake.hasToken(h.getAll(HttpHeaderNames.CONNECTION), "upgrade")) {
      fail(ctx, "the upgrade response lacks Upgrade: websocket / Connection: upgrade");
      return;
    }
    if (!Handshake.accept(key).equals(h.get(HttpHeaderNames.SEC_WEBSOCKET_ACCEPT))) {
      fail(ctx, "wrong Sec-WebSocket-Accept in the upgrade response");
      return;
    }
    PerMessageDeflate deflate = null;
    // Every line of the field (RFC 9110 5.3): an extension on a second line is chosen as well.
    String extensions = String.join(", ", h.getAll(HttpHeaderNames.SEC_WEBSOCKET_EXTENSIONS));
    if (!extensions.isBlank()) {
      String[] parts = extensions.split(";");
      if (!settings.compression()
          || extensions.contains(",")
          || !parts[0].trim().equalsIgnoreCase("permessage-deflate")) {
        fail(ctx, "the server chose an extension we did not offer: " + extensions);
        return;
      }
      boolean serverResets = false;
      for (int i = 1; i < parts.length; i++) {
        String p = parts[i].trim().toLowerCase(Locale.ROOT);
        if (p.equals("server_no_context_takeover")) {
          serverResets = true;
        } else if (p.startsWith("client_max_window_bits")) {
          // We did not offer it; the JDK's deflater cannot shrink its window anyway.
          fail(ctx, "the server limited our compression window: " + extensions);
          return;
        }
      }
      // We always reset our deflater (we offered client_no_context_takeover).
      deflate = new PerMessageDeflate(true, serverResets);
    }
    done = true;
    deadline.cancel(false);
    Channel ch = ctx.channel();
    WebSocketDuplexTransport transport = new WebSocketDuplexTransport(ch, true, deflate);
    ctx.pipeline().replace(this, "sluice-websocket", transport);
    ctx.pipeline().remove(HttpResponseDecoder.class);
    result.complete(transport);
  }

  private void fail(ChannelHandlerContext ctx, String why) {
    if (done) {
      return;
    }
    done = true;
    if (deadline != null) {
      deadline.cancel(false);
    }
    result.completeExceptionally(new WebSocketClientHandshakeException(why));
    ctx.close();
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (!done) {
      ctx.read();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    fail(ctx, "the connection closed during the WebSocket upgrade");
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (!done) {
      done = true;
      if (deadline != null) {
        deadline.cancel(false);
      }
      result.completeExceptionally(cause);
    }
    ctx.close();
  }
}
