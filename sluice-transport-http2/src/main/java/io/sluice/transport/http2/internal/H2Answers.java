package io.sluice.transport.http2.internal;

import static io.netty.handler.codec.http2.Http2CodecUtil.FRAME_HEADER_LENGTH;
import static io.netty.handler.codec.http2.Http2Flags.END_HEADERS;
import static io.netty.handler.codec.http2.Http2Flags.END_STREAM;
import static io.netty.handler.codec.http2.Http2FrameTypes.DATA;
import static io.netty.handler.codec.http2.Http2FrameTypes.HEADERS;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameWriter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2RemoteFlowController;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

/**
 * Whole answers a server writes on a request stream: a plain HTTP answer that ends the stream
 * ({@link #respondAndEnd}), and a complete answer of headers, one DATA frame and trailers written
 * in one go ({@link #writeWhole}), which a gRPC unary call's OK answer is, and the stream mapping's
 * answer to a request whose whole response is in one of its engine's batches. Also a mapping
 * client's request, its HEADERS and first DATA, the same short way ({@link #writeRequest}).
 *
 * <p>{@link #writeWhole} is the short way around netty's connection encoder for an answer that
 * needs none of its work (per-frame promises and listeners, the flow controller's queue): the
 * header blocks are the connection's HPACK encoder's (so its dynamic table and size updates stay
 * the connection's), written through netty's frame writer or, once they are indexed fields only,
 * as that writer wrote them last ({@link AnswerBlocks}); the message goes out as it is, its DATA
 * frame header put in the room left before it (and then the header frames around it: one buffer,
 * one write) or, when it has none, put with the kept HEADERS into the connection's gathered small
 * writes ({@link SmallWrites}, the kept trailers there too after the message; a small message is
 * copied in with them, as the gathering would copy it), and the flow-control windows are charged
 * directly. It
 * is taken only when nothing could tell the difference: the stream has written nothing and has
 * nothing queued, the message fits both windows and the peer's frame size now, the header blocks
 * fit the peer's header list size, no GOAWAY went either way, the channel is writable. Otherwise
 * the caller writes the answer through the encoder as usual.
 *
 * <p>A write that gets no buffer half way (the allocator refuses one: direct memory is out) fails
 * its promise, releases what was not written, and closes the connection; it does not throw.
 *
 * <p>On the connection's event loop only.
 */
public final class H2Answers {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(H2Answers.class);

  private H2Answers() {}

  /**
   * Answers a request stream and ends it: {@code :status} {@code status}, and {@code reason} (if
   * any) as a {@code sluice-reason} header and as a plain-text body. What the client still sends
   * of its request is dropped ({@link H2Handler#discardRequestRest}).
   */
  public static void respondAndEnd(H2Handler h, Http2Stream stream, int status, String reason) {
    ChannelHandlerContext ctx = h.ctx();
    Http2Headers headers = new DefaultHttp2Headers().status(Integer.toString(status));
    if (reason == null) {
      h.encoder().writeHeaders(ctx, stream.id(), headers, 0, true, ctx.newPromise());
    } else {
      headers.add("content-type", "text/plain; charset=utf-8");
      headers.add("sluice-reason", reason);
      h.encoder().writeHeaders(ctx, stream.id(), headers, 0, false, ctx.newPromise());
      h.encoder()
          .writeData(ctx, stream.id(), ByteBufUtil.writeUtf8(ctx.alloc(), reason + "\n"), 0, true, ctx.newPromise());
    }
    h.discardRequestRest(stream);
    h.flushNow();
  }

  /**
   * The room {@link #writeWhole} needs before a message: its DATA frame's header, and for an
   * answer in one buffer the HEADERS frame before it.
   */
  public static final int HEAD_ROOM = FRAME_HEADER_LENGTH + AnswerBlocks.MAX_BLOCK + FRAME_HEADER_LENGTH;

  /** The room {@link #writeWhole} needs after a message for an answer in one buffer: the trailers. */
  public static final int TAIL_ROOM = FRAME_HEADER_LENGTH + AnswerBlocks.MAX_BLOCK;

  /**
   * Writes a whole answer on {@code stream}: HEADERS {@code headers}, DATA {@code data} (its frame
   * header put into the room before its reader index if it has some, which the caller gives over
   * with it: at least {@link #HEAD_ROOM} bytes before and {@link #TAIL_ROOM} after for the answer
   * to go in one buffer; else in the gathered small writes), HEADERS {@code trailers} with END_STREAM,
   * and closes the stream's local side, if it can be done without netty's connection encoder (see
   * the class comment). The header blocks are the connection's HPACK encoder's: written through
   * netty's frame writer, or as it wrote them last when that still holds ({@link AnswerBlocks});
   * then the answer is one buffer and one write (without room: the message between two pieces of
   * the gathered small writes, and gathered itself when small). Returns false, having done
   * nothing and kept {@code data}, when it cannot; true when the answer is written: {@code data}
   * is then the channel's and {@code promise} completes with the write. The caller flushes.
   */
  public static boolean writeWhole(
      H2Handler h, Http2Stream stream, Http2Headers headers, ByteBuf data, Http2Headers trailers,
      ChannelPromise promise) {
    Http2Stream.State state = stream.state();
    if ((state != Http2Stream.State.OPEN && state != Http2Stream.State.HALF_CLOSED_REMOTE)
        || stream.isHeadersSent()
        || !data.isReadable()) {
      return false;
    }
    AnswerBlocks blocks = h.answerBlocks();
    Http2FrameWriter.Configuration config = h.encoder().configuration();
    long tableSize = config.headersConfiguration().maxHeaderTableSize();
    byte[] head = blocks.valid(headers, false, tableSize);
    byte[] tail = blocks.valid(trailers, true, tableSize);
    if (!fits(h, config, stream, data, blocks.listSize(headers, head, false), blocks.listSize(trailers, tail, true))) {
      return false;
    }
    ChannelHandlerContext ctx = h.ctx();
    int id = stream.id();
    int n = data.readableBytes();
    // Room before the message for its DATA frame header (a buffer the caller made so), or none (a
    // slice of a larger buffer, say): then the frame header goes into the gathered small writes.
    boolean room = data.readerIndex() >= FRAME_HEADER_LENGTH && !data.isReadOnly();
    int dataAt = data.readerIndex() - FRAME_HEADER_LENGTH;
    if (head != null && tail != null) {
      if (room && dataAt - FRAME_HEADER_LENGTH - head.length >= 0
          && data.writableBytes() >= FRAME_HEADER_LENGTH + tail.length) {
        int at = dataAt - FRAME_HEADER_LENGTH - head.length;
        frameHeader(data, at, head.length, HEADERS, END_HEADERS, id).setBytes(at + FRAME_HEADER_LENGTH, head);
        frameHeader(data, dataAt, n, DATA, 0, id);
        int end = data.writerIndex();
        frameHeader(data, end, tail.length, HEADERS, END_HEADERS | END_STREAM, id).setBytes(end + FRAME_HEADER_LENGTH, tail);
        data.setIndex(at, end + FRAME_HEADER_LENGTH + tail.length);
        ctx.write(data, promise);
      } else if (3 * FRAME_HEADER_LENGTH + head.length + n + tail.length <= SmallWrites.SMALL) {
        // A small answer: HEADERS, the DATA frame with the message and the trailers put into the
        // connection's gathered small writes at once, as one write.
        if (!appendWhole(h, head, END_HEADERS, id, data, 0, tail, promise)) {
          return true; // failed: see appendWhole
        }
      } else {
        // The kept blocks around the message: HEADERS and the DATA frame header put straight into
        // the connection's gathered small writes, the message written after them (gathered too
        // when small), then the trailers.
        try {
          appendKept(h, head, END_HEADERS, id, n, 0, ctx.voidPromise());
        } catch (RuntimeException | Error e) {
          undo(h, id, data, n, promise, e);
          return true;
        }
        ctx.write(data, ctx.voidPromise());
        try {
          appendKept(h, tail, END_HEADERS | END_STREAM, id, -1, 0, promise);
        } catch (RuntimeException | Error e) {
          promise.tryFailure(e); // the message went: only the trailers could not
          failConnection(h, e);
          return true;
        }
      }
      blocks.keptWrite();
    } else {
      try {
        blocks.write(h, id, headers, false, ctx.voidPromise());
        if (room) {
          frameHeader(data, dataAt, n, DATA, 0, id).readerIndex(dataAt);
        } else {
          writeDataHeader(h, n, 0, id);
        }
      } catch (RuntimeException | Error e) {
        undo(h, id, data, n, promise, e);
        return true;
      }
      ctx.write(data, ctx.voidPromise());
      blocks.write(h, id, trailers, true, promise);
    }
    stream.headersSent(false); // the response headers
    stream.headersSent(false); // and the trailers
    closeLocalNow(h, stream);
    return true;
  }

  /**
   * Closes {@code stream}'s local side now that its last frame is handed over, and with it the
   * stream if its remote side is closed too. netty's {@code closeStreamLocal} closes such a
   * stream only once the write completes (a listener on its promise), for two reasons that do not
   * hold here: a graceful shutdown waits for the streams to close, and closing a stream drops
   * what its flow controller still queues. {@link #fits} made sure that no GOAWAY went either way
   * (so no shutdown waits) and that nothing of the stream is queued (its frames went past the flow
   * controller), in this same call. So the stream leaves the connection's active streams at once
   * and the promise carries no listener of netty's. What the peer sent on it and was not consumed
   * yet (a reader that paused) goes back to the connection's window first: netty's flow controller
   * would give it back in the close and flush the channel there and then, in the middle of the
   * caller's writes; consumed here, its WINDOW_UPDATE waits for the caller's flush.
   */
  private static void closeLocalNow(H2Handler h, Http2Stream stream) {
    if (stream.state() == Http2Stream.State.HALF_CLOSED_REMOTE) {
      h.consume(stream, h.unconsumedBytes(stream));
    }
    h.closeStreamLocal(stream, h.ctx().channel().newSucceededFuture());
  }

  /**
   * Writes a client's request on {@code stream}, which it opened and has written nothing on:
   * HEADERS {@code headers} and DATA {@code data} (ending the stream when {@code endStream}), past
   * netty's connection encoder as {@link #writeWhole} writes an answer, on the same conditions
   * (the header block a kept one when it still holds, else through netty's frame writer; with a
   * kept block, block and DATA frame header put into the connection's gathered small writes, the
   * message written after them, or copied in with them when small). Returns false, having
   * done nothing and kept {@code data}, when it cannot; true when the request is written: {@code
   * data} is then the channel's, {@code promise} completes with the write, and when {@code
   * endStream} the stream's local side is closed. The caller flushes.
   */
  public static boolean writeRequest(
      H2Handler h, Http2Stream stream, Http2Headers headers, ByteBuf data, boolean endStream, ChannelPromise promise) {
    if (stream.state() != Http2Stream.State.OPEN || stream.isHeadersSent() || !data.isReadable()) {
      return false;
    }
    AnswerBlocks blocks = h.answerBlocks();
    Http2FrameWriter.Configuration config = h.encoder().configuration();
    byte[] head = blocks.valid(headers, false, config.headersConfiguration().maxHeaderTableSize());
    if (!fits(h, config, stream, data, blocks.listSize(headers, head, false), 0)) {
      return false;
    }
    ChannelHandlerContext ctx = h.ctx();
    int id = stream.id();
    int n = data.readableBytes();
    int dataFlags = endStream ? END_STREAM : 0;
    if (head != null && 2 * FRAME_HEADER_LENGTH + head.length + n <= SmallWrites.SMALL) {
      // A small request: the kept block and the DATA frame with the message put into the
      // connection's gathered small writes at once (one write for a loop turn's requests).
      if (!appendWhole(h, head, END_HEADERS, id, data, dataFlags, null, promise)) {
        return true; // failed: see appendWhole
      }
      blocks.keptWrite();
    } else if (head != null) {
      // The kept block and the DATA frame header straight into the connection's gathered small
      // writes, the message after them (gathered too when small).
      try {
        appendKept(h, head, END_HEADERS, id, n, dataFlags, ctx.voidPromise());
      } catch (RuntimeException | Error e) {
        undo(h, id, data, n, promise, e);
        return true;
      }
      blocks.keptWrite();
      ctx.write(data, promise);
    } else {
      try {
        blocks.write(h, id, headers, false, ctx.voidPromise());
        writeDataHeader(h, n, dataFlags, id);
      } catch (RuntimeException | Error e) {
        undo(h, id, data, n, promise, e);
        return true;
      }
      ctx.write(data, promise);
    }
    stream.headersSent(false);
    if (endStream) {
      h.closeStreamLocal(stream, promise);
    }
    return true;
  }

  /**
   * Whether {@code data}, and header lists of {@code headerList} and {@code trailerList} bytes, may
   * go out on {@code stream} now as netty's encoder would let them, with no queue between: no
   * GOAWAY either way, the peer's frame and header list sizes, nothing queued on the stream, both
   * windows open enough, the channel writable. When so, both windows are charged for {@code data}.
   * {@code config} is the encoder's.
   */
  private static boolean fits(
      H2Handler h, Http2FrameWriter.Configuration config, Http2Stream stream, ByteBuf data, long headerList,
      long trailerList) {
    Http2Connection connection = h.connection();
    if (connection.goAwaySent() || connection.goAwayReceived()) {
      return false;
    }
    int n = data.readableBytes();
    long maxList = config.headersConfiguration().maxHeaderListSize();
    if (n > config.frameSizePolicy().maxFrameSize() || headerList > maxList || trailerList > maxList) {
      return false;
    }
    Http2RemoteFlowController flow = connection.remote().flowController();
    Http2Stream connectionStream = connection.connectionStream();
    if (flow.hasFlowControlled(stream) || n > flow.windowSize(stream) || n > flow.windowSize(connectionStream)
        || !h.ctx().channel().isWritable()) {
      return false;
    }
    try {
      flow.incrementWindowSize(stream, -n);
      flow.incrementWindowSize(connectionStream, -n);
    } catch (Http2Exception e) {
      throw new IllegalStateException("a window shrunk by what it allows cannot overflow", e);
    }
    return true;
  }

  /** A DATA frame's header for {@code n} bytes, into the gathered small writes (the DATA follows it). */
  private static void writeDataHeader(H2Handler h, int n, int flags, int id) {
    ByteBuf g = h.smallWrites().append(FRAME_HEADER_LENGTH, h.ctx().voidPromise());
    frameHeader(g, g.writerIndex() - FRAME_HEADER_LENGTH, n, DATA, flags, id);
  }

  /**
   * Puts a HEADERS frame of the kept {@code block} (with {@code headersFlags}) on stream {@code
   * id} into the gathered small writes, followed, when {@code dataLength >= 0}, by the header of
   * the DATA frame of that many bytes (with {@code dataFlags}) that the caller writes next; as a
   * write with {@code promise}.
   */
  private static void appendKept(
      H2Handler h, byte[] block, int headersFlags, int id, int dataLength, int dataFlags, ChannelPromise promise) {
    int n = FRAME_HEADER_LENGTH + block.length + (dataLength >= 0 ? FRAME_HEADER_LENGTH : 0);
    ByteBuf g = h.smallWrites().append(n, promise);
    int at = g.writerIndex() - n;
    frameHeader(g, at, block.length, HEADERS, headersFlags, id).setBytes(at + FRAME_HEADER_LENGTH, block);
    if (dataLength >= 0) {
      frameHeader(g, at + FRAME_HEADER_LENGTH + block.length, dataLength, DATA, dataFlags, id);
    }
  }

  /**
   * Puts a HEADERS frame of the kept {@code block} (with {@code headersFlags}) on stream {@code
   * id}, a DATA frame (with {@code dataFlags}) carrying a copy of {@code data}, and, unless null, a
   * HEADERS frame of the kept {@code trailers} ending the stream, into the gathered small writes as
   * one write with {@code promise}; releases {@code data}. At most {@link SmallWrites#SMALL} bytes
   * in all. If no room can be had for them, {@code promise} fails and the exception is thrown.
   */
  private static boolean appendWhole(
      H2Handler h, byte[] block, int headersFlags, int id, ByteBuf data, int dataFlags, byte[] trailers,
      ChannelPromise promise) {
    try {
      int n = data.readableBytes();
      int total = 2 * FRAME_HEADER_LENGTH + block.length + n + (trailers == null ? 0 : FRAME_HEADER_LENGTH + trailers.length);
      ByteBuf g;
      try {
        g = h.smallWrites().append(total, promise);
      } catch (RuntimeException | Error e) {
        giveBack(h, id, n); // nothing of it was written: the peer will never return that window
        promise.tryFailure(e); // not kept (no room could be had): the write failed
        failConnection(h, e);
        return false;
      }
      int at = g.writerIndex() - total;
      frameHeader(g, at, block.length, HEADERS, headersFlags, id).setBytes(at + FRAME_HEADER_LENGTH, block);
      at += FRAME_HEADER_LENGTH + block.length;
      frameHeader(g, at, n, DATA, dataFlags, id).setBytes(at + FRAME_HEADER_LENGTH, data, data.readerIndex(), n);
      if (trailers != null) {
        at += FRAME_HEADER_LENGTH + n;
        frameHeader(g, at, trailers.length, HEADERS, END_HEADERS | END_STREAM, id)
            .setBytes(at + FRAME_HEADER_LENGTH, trailers);
      }
      return true;
    } finally {
      data.release();
    }
  }

  /**
   * What failed before {@code data} was written (no room for the frames before it: the allocator
   * refused): releases it, gives the {@code n} bytes of window it was charged back, and fails
   * {@code promise} with {@code e}, which the caller throws on.
   */
  private static void undo(H2Handler h, int id, ByteBuf data, int n, ChannelPromise promise, Throwable e) {
    data.release();
    giveBack(h, id, n);
    promise.tryFailure(e);
    failConnection(h, e);
  }

  /**
   * Closes the connection after a write of an answer or request failed half way for want of a
   * buffer (the allocator refused one: direct memory is out): what went out of it may be a HEADERS
   * frame without the rest, the stream's state and the HPACK tables no longer what the peer will
   * see, so no stream of it can go on. The close (no grace period: see H2Handler) ends every
   * stream, and frees what the connection holds.
   */
  private static void failConnection(H2Handler h, Throwable e) {
    logger.warn("HTTP/2 connection {}: no buffer for an answer or request ({}); closing it", h.ctx().channel(), e.toString());
    h.ctx().close();
  }

  /** Gives the {@code n} bytes {@link #fits} charged stream {@code id} and the connection back. */
  private static void giveBack(H2Handler h, int id, int n) {
    Http2Connection connection = h.connection();
    Http2RemoteFlowController flow = connection.remote().flowController();
    Http2Stream stream = connection.stream(id);
    try {
      if (stream != null) {
        flow.incrementWindowSize(stream, n);
      }
      flow.incrementWindowSize(connection.connectionStream(), n);
    } catch (Http2Exception e) {
      throw new IllegalStateException("a window given back what it was just charged cannot overflow", e);
    }
  }

  private static ByteBuf frameHeader(ByteBuf buf, int at, int length, int type, int flags, int id) {
    return buf.setMedium(at, length).setByte(at + 3, type).setByte(at + 4, flags).setInt(at + 5, id);
  }
}
