package io.sluice.transport.grpc.internal.web;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.concurrent.EventExecutor;
import io.sluice.transport.http2.internal.H2Handler;

/**
 * A gRPC-Web or HTTP/JSON request on an HTTP/2 stream: hands its body to the {@link WebCall} and
 * writes the response as HEADERS and DATA. The body's bytes go back to the flow-control windows as
 * they arrive (the call copies them): the call holds at most its limit of them, the calls of the
 * connection together at most its read budget (shared with its gRPC calls), and a request past
 * either is refused, as is one whose body takes longer than the request body timeout. Runs on
 * the connection's event loop.
 */
final class H2Exchange implements WebExchange, H2Handler.StreamSink {
  private final H2Handler handler;
  private final Http2Stream stream;
  private WebCall<?, ?> call;
  private boolean requestHeadersSeen;
  private boolean bodyEnded;
  private boolean done;

  H2Exchange(H2Handler handler, Http2Stream stream, boolean endStream) {
    this.handler = handler;
    this.stream = stream;
    this.bodyEnded = endStream;
  }

  void call(WebCall<?, ?> call) {
    this.call = call;
  }

  // ---- StreamSink -------------------------------------------------------------------------------

  @Override
  public void onHeaders(Http2Stream s, Http2Headers headers, boolean endStream) {
    if (!requestHeadersSeen) {
      requestHeadersSeen = true; // the request's own headers: the route has started the call
      return;
    }
    if (endStream && !bodyEnded) {
      bodyEnded = true; // trailers: the end of the body
      call.onBodyEnd();
    }
  }

  @Override
  public int onData(Http2Stream s, ByteBuf data, int padding, boolean endStream) {
    int n = data.readableBytes() + padding;
    if (!bodyEnded) {
      call.onBody(data);
      if (endStream) {
        bodyEnded = true;
        call.onBodyEnd();
      }
    }
    return n;
  }

  @Override
  public void onReset(Http2Stream s, long errorCode) {
    done = true;
    call.onPeerGone();
  }

  @Override
  public void onClosed(Http2Stream s) {
    done = true;
    call.onPeerGone();
  }

  // ---- WebExchange ------------------------------------------------------------------------------

  @Override
  public EventExecutor executor() {
    return handler.ctx().executor();
  }

  @Override
  public Channel channel() {
    return handler.ctx().channel();
  }

  @Override
  public ByteBufAllocator alloc() {
    return handler.ctx().alloc();
  }

  @Override
  public void respond(int status, Http2Headers headers, ByteBuf body) {
    if (done) {
      body.release();
      return;
    }
    headers.status(Integer.toString(status));
    boolean hasBody = body.isReadable();
    if (!hasBody) {
      body.release();
      last(headers, null);
    } else {
      handler.encoder().writeHeaders(handler.ctx(), stream.id(), headers, 0, false, handler.newPromise());
      last(null, body);
    }
  }

  @Override
  public void startStream(int status, Http2Headers headers) {
    if (done) {
      return;
    }
    headers.status(Integer.toString(status));
    handler.encoder().writeHeaders(handler.ctx(), stream.id(), headers, 0, false, handler.newPromise());
    handler.flushNow();
  }

  @Override
  public void write(ByteBuf data, Runnable written) {
    if (done) {
      data.release();
      written.run();
      return;
    }
    ChannelPromise p = handler.newPromise();
    p.addListener(f -> written.run());
    handler.encoder().writeData(handler.ctx(), stream.id(), data, 0, false, p);
    scheduleFlush();
  }

  /** One flush for the messages of a loop turn. */
  private void scheduleFlush() {
    handler.flushSoon(); // one flush per loop turn for the whole connection
  }

  @Override
  public void end() {
    if (!done) {
      last(null, Unpooled.EMPTY_BUFFER);
    }
  }

  /**
   * The stream's last frame (HEADERS or DATA with END_STREAM); what a caller still sends of its
   * request is dropped from then on ({@link H2Handler#discardRequestRest}), not reset.
   */
  private void last(Http2Headers headers, ByteBuf data) {
    done = true;
    if (headers != null) {
      handler.encoder().writeHeaders(handler.ctx(), stream.id(), headers, 0, true, handler.newPromise());
    } else {
      handler.encoder().writeData(handler.ctx(), stream.id(), data, 0, true, handler.newPromise());
    }
    handler.discardRequestRest(stream);
    handler.flushNow();
  }

  @Override
  public void readMore() {}
}
