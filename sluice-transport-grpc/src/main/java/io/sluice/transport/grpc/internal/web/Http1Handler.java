package io.sluice.transport.grpc.internal.web;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerExpectContinueHandler;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.transport.http2.internal.HttpServerConnections;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * gRPC-Web and HTTP/JSON on an HTTP/1.1 connection, behind netty's {@link HttpServerCodec} (no
 * aggregator: bodies stream into the {@link WebCall}, which refuses one over its limit as it
 * comes). One request at a time: the connection is read only while a request's body is wanted
 * and, once its response is over, for the next request; in between TCP's flow control holds the
 * client back. Pipelined requests decoded from bytes already read wait their turn and are answered
 * in order (at most {@value #MAX_PENDING} parts of them). A connection is closed when it sends no
 * complete request head within its idle time ({@link #IDLE_NANOS} between requests, the server's
 * preface timeout for the first), and on malformed HTTP (400). Runs on the connection's event
 * loop; autoRead is off.
 */
public final class Http1Handler extends ChannelInboundHandlerAdapter
    implements HttpServerConnections.Http1Connection {
  /** Longest request line, and all of a request's headers, in bytes. */
  static final int MAX_INITIAL_LINE = 8192;

  /** Idle time between requests on a kept-alive connection. */
  static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(60);

  private final WebRoute route;
  private final long firstRequestNanos;
  /**
   * Where a request this route does not serve goes, with the rest of the connection (the one-port
   * server's own HTTP/1.1 handling); null: this route answers every request (its own port).
   */
  private final Consumer<ChannelHandlerContext> others;
  /** The connection went to {@link #others}: nothing more is handled or read here. */
  private boolean handedBack;
  private H1Exchange current;
  private WebCall<?, ?> call;
  private ScheduledFuture<?> idle;
  private ChannelHandlerContext ctx;
  /** The server is stopping: the connection closes once the response under way is over. */
  private boolean closing;
  /** The head of a first request has come. */
  private boolean headSeen;
  /** Decoded parts of pipelined requests waiting for the one being served (at most one read's worth). */
  private final ArrayDeque<Object> pending = new ArrayDeque<>();

  /** Parts of pipelined requests held at most; a client that pipelines more is closed. */
  static final int MAX_PENDING = 256;

  private Http1Handler(WebRoute route, long firstRequestNanos, Consumer<ChannelHandlerContext> others) {
    this.route = route;
    this.firstRequestNanos = firstRequestNanos;
    this.others = others;
  }

  /**
   * Puts HTTP/1.1 serving at the end of {@code pipeline} (autoRead off) and asks for the first
   * read; {@code firstRequestNanos} to get the first request's head from now (0: the caller times
   * it, from the connection's accept: see {@link #awaitingFirstRequest}), {@code maxHeaderBytes}
   * for it.
   */
  public static void install(ChannelPipeline pipeline, WebRoute route, long firstRequestNanos, int maxHeaderBytes) {
    pipeline.channel().config().setAutoRead(false);
    pipeline.addLast(new HttpServerCodec(MAX_INITIAL_LINE, maxHeaderBytes, 8192));
    pipeline.addLast(new HttpServerExpectContinueHandler());
    pipeline.addLast(new Http1Handler(route, firstRequestNanos, null));
  }

  /**
   * True for an HTTP/1.1 request this handler serves: a gRPC-Web or JSON content type, or a CORS
   * preflight. A server of several protocols uses it to pick the handler of a connection's first
   * request.
   */
  public static boolean serves(HttpRequest req) {
    String type = req.headers().get(HttpHeaderNames.CONTENT_TYPE);
    return WebKind.of(type) != null
        || WebKind.isGrpcWebFamily(type)
        || (req.method().name().equals("OPTIONS") && req.headers().contains("access-control-request-method"));
  }

  /**
   * Serves a connection whose HTTP/1.1 request decoder is already in {@code pipeline} (a server of
   * several protocols, that decoded {@code first} to choose): adds the response encoder and this
   * handler at the end and hands it {@code first} (owned) through {@code from}, the handler that
   * chose. Reads stay off; between requests {@link #IDLE_NANOS}. The first later request this
   * route does not serve ({@link WebRoute#servesHttp1}), once the ones before it are answered, goes
   * back to the server with the rest of the connection: the encoder and this handler leave, {@code
   * others} adds the server's handling behind this one, and gets that request and whatever came
   * after it.
   */
  public static void takeOver(
      ChannelHandlerContext from, WebRoute route, HttpRequest first, Consumer<ChannelHandlerContext> others) {
    ChannelPipeline pipeline = from.pipeline();
    pipeline.channel().config().setAutoRead(false);
    pipeline.addLast(new io.netty.handler.codec.http.HttpResponseEncoder());
    pipeline.addLast(new HttpServerExpectContinueHandler());
    pipeline.addLast(new Http1Handler(route, IDLE_NANOS, Objects.requireNonNull(others, "others")));
    from.fireChannelRead(first);
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    // A peer that pipelines requests and never reads the answers is not read while they queue.
    io.sluice.transport.http2.internal.WriteStallGuard.pauseReadsWhileUnwritable(ctx.channel());
    if (firstRequestNanos > 0) {
      waitForRequest(ctx, firstRequestNanos);
    }
    ctx.read();
  }

  /** True until the head of the connection's first request has come. */
  @Override
  public boolean awaitingFirstRequest() {
    return !headSeen;
  }

  private void waitForRequest(ChannelHandlerContext ctx, long nanos) {
    cancelIdle();
    idle = ctx.executor().schedule(() -> {
      if (current == null) {
        ctx.close();
      }
    }, nanos, TimeUnit.NANOSECONDS);
  }

  private void cancelIdle() {
    if (idle != null) {
      idle.cancel(false);
      idle = null;
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (handedBack) {
      ctx.fireChannelRead(msg); // decoded before this handler left
      return;
    }
    if (!pending.isEmpty() || (current != null && current.isRequestComplete())) {
      // A pipelined request (decoded from bytes read with the one before): it waits its turn.
      if (pending.size() >= MAX_PENDING) {
        ReferenceCountUtil.release(msg);
        ctx.close();
        return;
      }
      pending.add(msg);
      return;
    }
    handle(ctx, msg);
  }

  /** Handles the requests that waited, in order, until one is being served. */
  private void drain() {
    while (!handedBack && !pending.isEmpty() && (current == null || !current.isRequestComplete()) && ctx.channel().isActive()) {
      handle(ctx, pending.poll());
    }
    if (!handedBack && pending.isEmpty() && current == null) {
      ctx.read(); // the next request
    }
  }

  private void handle(ChannelHandlerContext ctx, Object msg) {
    if (others != null && current == null && msg instanceof HttpRequest req
        && req.decoderResult().isSuccess() && !route.servesHttp1(req)) {
      handBack(ctx, req);
      return;
    }
    try {
      if (msg instanceof HttpRequest req) {
        request(ctx, req);
      }
      if (msg instanceof HttpContent c && current != null) {
        if (call != null && !current.isDone()) {
          call.onBody(c.content());
        }
        if (msg instanceof LastHttpContent) {
          H1Exchange ex = current;
          WebCall<?, ?> cl = call;
          boolean answered = ex.isDone();
          ex.requestComplete();
          if (cl != null && !answered) {
            cl.onBodyEnd();
          }
        }
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void request(ChannelHandlerContext ctx, HttpRequest req) {
    if (req.decoderResult().isFailure()) {
      String why = req.decoderResult().cause() == null ? "malformed request" : req.decoderResult().cause().getMessage();
      DefaultFullHttpResponse r =
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1,
              HttpResponseStatus.BAD_REQUEST,
              Unpooled.copiedBuffer("malformed HTTP/1.1 request: " + why + "\n", StandardCharsets.UTF_8));
      r.headers().set(HttpHeaderNames.CONTENT_LENGTH, r.content().readableBytes());
      r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
      current = null;
      return;
    }
    if (current != null) {
      ctx.close(); // cannot happen: a request's parts wait while another is served
      return;
    }
    cancelIdle();
    headSeen = true;
    Http2Headers headers = new DefaultHttp2Headers(false);
    for (Map.Entry<String, String> e : req.headers()) {
      String name = e.getKey().toLowerCase(Locale.ROOT);
      if (!isConnectionHeader(name)) {
        headers.add(name, e.getValue());
      }
    }
    current = new H1Exchange(ctx, this, HttpUtil.isKeepAlive(req) && req.protocolVersion().equals(HttpVersion.HTTP_1_1));
    H1Exchange ex = current;
    if (!HttpUtil.isTransferEncodingChunked(req) && HttpUtil.getContentLength(req, 0L) == 0) {
      ex.requestComplete(); // no body: an answer given at once leaves the connection reusable
    }
    call = route.start(ex, req.method().name(), req.uri(), headers);
    if (call != null) {
      ctx.read(); // the body
    }
  }

  /**
   * {@code req} (owned), the first request of another kind, and the rest of the connection go to
   * {@link #others}; this handler and the encoder it came with leave (the request decoder stays).
   */
  private void handBack(ChannelHandlerContext ctx, HttpRequest req) {
    handedBack = true;
    cancelIdle();
    ChannelPipeline p = ctx.pipeline();
    p.remove(io.netty.handler.codec.http.HttpResponseEncoder.class);
    p.remove(HttpServerExpectContinueHandler.class);
    others.accept(ctx);
    ctx.fireChannelRead(req);
    Object m;
    while ((m = pending.poll()) != null) {
      ctx.fireChannelRead(m);
    }
    p.remove(this);
  }

  private static boolean isConnectionHeader(String name) {
    return name.equals("connection") || name.equals("keep-alive") || name.equals("transfer-encoding")
        || name.equals("upgrade") || name.equals("proxy-connection") || name.equals("expect");
  }

  /**
   * The server is stopping: closes the connection now if no request is being served, else once
   * its response is over (with {@code Connection: close} when it has not started). On the loop.
   */
  @Override
  public void closeAfterResponse() {
    closing = true;
    if (current == null && ctx != null) {
      ctx.close();
    }
  }

  /** True once the connection is to close after the response under way. */
  boolean closing() {
    return closing;
  }

  /** {@code ex}'s response is over; {@code reuse}: read the next request. */
  void exchangeOver(H1Exchange ex, boolean reuse) {
    if (current != ex) {
      return;
    }
    if (!ex.isRequestComplete()) {
      return; // still reading the body (it is discarded), or closing
    }
    current = null;
    call = null;
    if (reuse && closing) {
      ctx.close(); // the server is stopping (the response went with Connection: close)
      return;
    }
    if (reuse) {
      waitForRequest(ctx, IDLE_NANOS);
      if (pending.isEmpty()) {
        ctx.read();
      } else {
        ctx.executor().execute(this::drain); // not from inside the response just ended
      }
    }
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    cancelIdle();
    releasePending();
  }

  private void releasePending() {
    Object m;
    while ((m = pending.poll()) != null) {
      ReferenceCountUtil.release(m);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    cancelIdle();
    releasePending();
    if (call != null) {
      call.onPeerGone();
    }
    super.channelInactive(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
