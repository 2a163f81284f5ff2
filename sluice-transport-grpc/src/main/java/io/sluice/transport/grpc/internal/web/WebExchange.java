package io.sluice.transport.grpc.internal.web;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.concurrent.EventExecutor;

/**
 * The response side of one HTTP request, whatever carries it: an HTTP/2 stream ({@link
 * H2Exchange}) or an HTTP/1.1 connection ({@link H1Exchange}). Headers are given as {@link
 * Http2Headers} with lower-case names and no pseudo-headers; the HTTP/1.1 side copies them.
 *
 * <p>Every method runs on {@link #executor()}. A response is either {@linkplain #respond
 * complete} or {@linkplain #startStream streamed} and then {@linkplain #end ended}; once it is
 * over, the exchange tidies up by itself (an HTTP/2 stream whose caller is still sending is
 * reset with NO_ERROR; an HTTP/1.1 connection reads its next request, or closes when the request's
 * body was not read to its end).
 */
interface WebExchange {
  EventExecutor executor();

  /** The connection the request came on. */
  Channel channel();

  ByteBufAllocator alloc();

  /** A complete response; {@code body} (owned) may be empty. */
  void respond(int status, Http2Headers headers, ByteBuf body);

  /** Starts a response whose body follows in {@link #write}s. */
  void startStream(int status, Http2Headers headers);

  /** Part of a streamed body (owned); {@code written} runs once it is written or failed. */
  void write(ByteBuf data, Runnable written);

  /** Ends a streamed response. */
  void end();

  /** Asks for more of the request's body (HTTP/1.1: one more read; HTTP/2: nothing to do). */
  void readMore();
}
