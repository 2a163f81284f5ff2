package io.sluice.transport.websocket.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.transport.DuplexTransport;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The server's side of the opening handshake (RFC 6455 4.2), behind netty's {@link
 * HttpRequestDecoder} (which enforces the request line and header size limits). Checks the
 * request (GET, the configured path, {@code Upgrade: websocket}, {@code Connection: upgrade}, in
 * any of the lines of those fields, version 13, one well-formed key, the Origin when an
 * allow-list is set), answers 101 and replaces
 * itself and the decoder with a {@link WebSocketDuplexTransport}, which goes to {@code
 * onConnection}. A request without {@code Upgrade: websocket} goes to the settings' HTTP fallback
 * when there is one. Anything else is answered with the fitting status (400, 403, 404, 405, 426,
 * 431) and closed. A connection that has not completed the upgrade within the deadline is closed
 * without an answer. Reads are requested one at a time (autoRead is off), so a slow client costs
 * one small buffer.
 */
public final class ServerUpgradeHandler extends ChannelInboundHandlerAdapter {
  private final UpgradeSettings settings;
  private final Consumer<DuplexTransport> onConnection;
  private ScheduledFuture<?> deadline;
  private boolean done;

  public ServerUpgradeHandler(UpgradeSettings settings, Consumer<DuplexTransport> onConnection) {
    this.settings = settings;
    this.onConnection = onConnection;
  }

  /** The decoder to put in front of this handler, with the settings' limits. */
  public static HttpRequestDecoder newDecoder(UpgradeSettings settings) {
    return new HttpRequestDecoder(settings.maxInitialLineLength(), settings.maxHeaderSize(), 8192);
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    Channel ch = ctx.channel();
    deadline =
        ch.eventLoop()
            .schedule(
                () -> {
                  if (!done) {
                    done = true;
                    ch.close(); // slow or silent: no answer, no more resources
                  }
                },
                settings.upgradeTimeout().toNanos(),
                TimeUnit.NANOSECONDS);
    ch.closeFuture().addListener(f -> deadline.cancel(false));
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    ctx.read();
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (done || !(msg instanceof HttpRequest)) {
        return; // the request's (empty) end, or anything after a refusal
      }
      handle(ctx, (HttpRequest) msg);
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void handle(ChannelHandlerContext ctx, HttpRequest req) {
    done = true;
    if (req.decoderResult().isFailure()) {
      Throwable cause = req.decoderResult().cause();
      if (cause instanceof TooLongHttpHeaderException) {
        refuse(ctx, 431, "Request Header Fields Too Large", null);
      } else if (cause instanceof TooLongFrameException) {
        refuse(ctx, 414, "URI Too Long", null);
      } else {
        refuse(ctx, 400, "Bad Request", null);
      }
      return;
    }
    HttpHeaders h = req.headers();
    if (settings.httpFallback() != null
        && !Handshake.hasToken(h.getAll(HttpHeaderNames.UPGRADE), "websocket")) {
      handOver(ctx, req);
      return;
    }
    if (!new QueryStringDecoder(req.uri()).path().equals(settings.path())) {
      refuse(ctx, 404, "Not Found", null);
      return;
    }
    if (!HttpMethod.GET.equals(req.method())) {
      refuse(ctx, 405, "Method Not Allowed", "Allow: GET");
      return;
    }
    if (!Handshake.hasToken(h.getAll(HttpHeaderNames.UPGRADE), "websocket")
        || !Handshake.hasToken(h.getAll(HttpHeaderNames.CONNECTION), "upgrade")) {
      refuse(ctx, 426, "Upgrade Required", "Upgrade: websocket");
      return;
    }
    List<String> versions = h.getAll(HttpHeaderNames.SEC_WEBSOCKET_VERSION);
    List<String> keys = h.getAll(HttpHeaderNames.SEC_WEBSOCKET_KEY);
    if (versions.size() > 1 || keys.size() > 1) {
      refuse(ctx, 400, "Bad Request", null); // each may come once only (RFC 6455 11.3)
      return;
    }
    if (!versions.equals(List.of("13"))) {
      refuse(ctx, 426, "Upgrade Required", "Sec-WebSocket-Version: 13");
      return;
    }
    String key = keys.isEmpty() ? null : keys.get(0);
    if (!Handshake.validKey(key)) {
      refuse(ctx, 400, "Bad Request", null);
      return;
    }
    String origin = h.get(HttpHeaderNames.ORIGIN);
    if (settings.allowedOrigins() != null
        && origin != null
        && !settings.allowedOrigins().contains(origin.toLowerCase(Locale.ROOT))) {
      // A browser page from another site (cross-site WebSocket hijacking). Clients other than
      // browsers send no Origin and are let through: the check protects browsers' cookies.
      refuse(ctx, 403, "Forbidden", null);
      return;
    }
    PerMessageDeflate deflate = null;
    String extensions = null;
    if (settings.compression() && acceptsDeflate(h.getAll(HttpHeaderNames.SEC_WEBSOCKET_EXTENSIONS))) {
      deflate = new PerMessageDeflate(true, true);
      extensions = "permessage-deflate; server_no_context_takeover; client_no_context_takeover";
    }
    deadline.cancel(false);
    StringBuilder b = new StringBuilder(192);
    b.append("HTTP/1.1 101 Switching Protocols\r\n");
    b.append("Upgrade: websocket\r\n");
    b.append("Connection: Upgrade\r\n");
    b.append("Sec-WebSocket-Accept: ").append(Handshake.accept(key)).append("\r\n");
    if (extensions != null) {
      b.append("Sec-WebSocket-Extensions: ").append(extensions).append("\r\n");
    }
    b.append("\r\n");
    ctx.write(Handshake.ascii(ctx.alloc(), b), ctx.voidPromise());
    ctx.flush();
    Channel ch = ctx.channel();
    WebSocketDuplexTransport transport = new WebSocketDuplexTransport(ch, false, deflate);
    ctx.pipeline().replace(this, "sluice-websocket", transport);
    // Bytes that followed the request go from the decoder's leftovers to the transport, which
    // keeps them until the connection starts it.
    ctx.pipeline().remove(HttpRequestDecoder.class);
    onConnection.accept(transport);
  }

  /**
   * A plain HTTP request, and the rest of the connection, go to the settings' fallback handler:
   * an HttpResponseEncoder and that handler replace this one after the decoder (whose limits
   * stay), the upgrade deadline is cancelled and reads turn automatic; the fallback owns the
   * connection from here on, its timeouts included.
   */
  private void handOver(ChannelHandlerContext ctx, HttpRequest req) {
    deadline.cancel(false);
    ctx.pipeline().addAfter(ctx.name(), null, new HttpResponseEncoder());
    ctx.pipeline().addLast(settings.httpFallback());
    ctx.fireChannelRead(ReferenceCountUtil.retain(req)); // channelRead releases its reference
    ctx.pipeline().remove(this);
    ctx.channel().config().setAutoRead(true);
  }

  /**
   * Is one of the offers a permessage-deflate we can serve? RFC 7692 5.1: an offer with a
   * parameter not defined for offers, a value that is not valid, or a parameter named twice is
   * declined. The JDK's deflater always uses a 32 KiB window, so an offer that limits the
   * server's window below that is declined too.
   */
  static boolean acceptsDeflate(List<String> headers) {
    for (String header : headers) {
      for (String offer : header.split(",")) {
        String[] parts = offer.split(";");
        if (parts[0].trim().equalsIgnoreCase("permessage-deflate") && servable(parts)) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean servable(String[] parts) {
    Set<String> seen = new HashSet<>();
    for (int i = 1; i < parts.length; i++) {
      String p = parts[i].trim().toLowerCase(Locale.ROOT);
      int eq = p.indexOf('=');
      String name = eq >= 0 ? p.substring(0, eq).trim() : p;
      String value = eq >= 0 ? unquote(p.substring(eq + 1).trim()) : null;
      if (!seen.add(name)) {
        return false;
      }
      switch (name) {
        case "client_no_context_takeover":
        case "server_no_context_takeover":
          if (value != null) {
            return false;
          }
          break;
        case "client_max_window_bits": // a hint the client's deflater may use; ours inflates any
          if (value != null && !windowBits(value)) {
            return false;
          }
          break;
        case "server_max_window_bits":
          if (!"15".equals(value)) {
            return false;
          }
          break;
        default:
          return false;
      }
    }
    return true;
  }

  private static String unquote(String v) {
    return v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"") ? v.substring(1, v.length() - 1) : v;
  }

  /** RFC 7692 7.1.2: 8 to 15, decimal without leading zeros. */
  private static boolean windowBits(String v) {
    return v.matches("8|9|1[0-5]");
  }

  private static void refuse(ChannelHandlerContext ctx, int status, String reason, String header) {
    ctx.writeAndFlush(Handshake.refusal(ctx.alloc(), status, reason, header))
        .addListener(ChannelFutureListener.CLOSE);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (!done) {
      ctx.read(); // the request is not complete yet
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
