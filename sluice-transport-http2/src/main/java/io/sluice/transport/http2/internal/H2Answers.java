package io.sluice.transport.http2.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2RemoteFlowController;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.AsciiString;
import java.util.Map;

/**
 * Whole answers a server writes on a request stream: a plain HTTP answer that ends the stream
 * ({@link #respondAndEnd}), and a complete answer of pre-encoded headers, one DATA frame and
 * pre-encoded trailers in one write ({@link #writeWhole}), which a gRPC unary call's OK answer is.
 *
 * <p>{@link #writeWhole} is the short way around netty's encoder for an answer that needs none of
 * its work: the header blocks are encoded once for every connection ({@link Block}), the three
 * frames are put around the message in its own buffer (encoded with room for them) and go out
 * as one write, and the flow-control windows are charged directly. It is taken only when nothing could
 * tell the difference: the stream has written nothing and has nothing queued, the message fits
 * both windows and the peer's frame size now, the peer kept the HPACK table size (a size update
 * would be owed at the start of the next block), no GOAWAY went either way. Otherwise the caller
 * writes the answer through the encoder as usual.
 *
 * <p>On the connection's event loop only.
 */
public final class H2Answers {
  private H2Answers() {}

  /** The HPACK table size a peer has until its SETTINGS say otherwise (RFC 7541 4.2). */
  static final long DEFAULT_HEADER_TABLE_SIZE = 4096;
  private static final int FRAME_HEADER = 9;
  private static final int TYPE_DATA = 0x0;
  private static final int TYPE_HEADERS = 0x1;
  private static final int END_STREAM = 0x1;
  private static final int END_HEADERS = 0x4;

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
   * A header block encoded once, for any connection: no reference to the dynamic table and nothing
   * added to it (static-table entries, literals without indexing, no Huffman coding), so it means
   * the same to every peer's decoder whatever came before it.
   */
  public static final class Block {
    private final byte[] bytes;
    /** The list size the peer's SETTINGS_MAX_HEADER_LIST_SIZE bounds (RFC 9113 6.5.2). */
    private final long listSize;

    private Block(byte[] bytes, long listSize) {
      this.bytes = bytes;
      this.listSize = listSize;
    }

    /** Encodes {@code headers}, pseudo-headers first as HTTP/2 requires. */
    public static Block of(Http2Headers headers) {
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      long listSize = 0;
      for (int pass = 0; pass < 2; pass++) {
        for (Map.Entry<CharSequence, CharSequence> e : headers) {
          CharSequence name = e.getKey();
          boolean pseudo = name.length() > 0 && name.charAt(0) == ':';
          if (pseudo != (pass == 0)) {
            continue;
          }
          listSize += name.length() + e.getValue().length() + 32;
          encode(out, AsciiString.of(name), AsciiString.of(e.getValue()));
        }
      }
      return new Block(out.toByteArray(), listSize);
    }

    /** The encoded block (a copy). */
    public byte[] bytes() {
      return bytes.clone();
    }

    private static void encode(java.io.ByteArrayOutputStream out, AsciiString name, AsciiString value) {
      int full = staticFull(name, value);
      if (full > 0) {
        integer(out, 0x80, 7, full); // indexed field
        return;
      }
      int nameIndex = staticName(name);
      integer(out, 0x00, 4, nameIndex); // literal without indexing (index 0: a new name)
      if (nameIndex == 0) {
        string(out, name);
      }
      string(out, value);
    }

    /** The static-table entries (RFC 7541 appendix A) a response uses whole. */
    private static int staticFull(AsciiString name, AsciiString value) {
      if (!name.contentEquals(":status")) {
        return 0;
      }
      switch (value.toString()) {
        case "200":
          return 8;
        case "204":
          return 9;
        case "206":
          return 10;
        case "304":
          return 11;
        case "400":
          return 12;
        case "404":
          return 13;
        case "500":
          return 14;
        default:
          return 0;
      }
    }

    /** Static-table names a response uses (RFC 7541 appendix A), or 0. */
    private static int staticName(AsciiString name) {
      switch (name.toString()) {
        case ":status":
          return 8;
        case "content-length":
          return 28;
        case "content-type":
          return 31;
        case "date":
          return 33;
        case "server":
          return 54;
        default:
          return 0;
      }
    }

    private static void string(java.io.ByteArrayOutputStream out, AsciiString s) {
      integer(out, 0x00, 7, s.length()); // H = 0: no Huffman coding
      out.write(s.array(), s.arrayOffset(), s.length());
    }

    /** An HPACK integer with an {@code n}-bit prefix (RFC 7541 5.1). */
    private static void integer(java.io.ByteArrayOutputStream out, int mask, int n, long value) {
      int max = (1 << n) - 1;
      if (value < max) {
        out.write(mask | (int) value);
        return;
      }
      out.write(mask | max);
      long rest = value - max;
      while (rest >= 0x80) {
        out.write((int) (rest & 0x7f) | 0x80);
        rest >>>= 7;
      }
      out.write((int) rest);
    }
  }

  /** The room {@link #writeWhole} needs before a message: its HEADERS frame and DATA frame header. */
  public static int headRoom(Block headers) {
    return FRAME_HEADER + headers.bytes.length + FRAME_HEADER;
  }

  /** The room {@link #writeWhole} needs after a message: the trailers' HEADERS frame. */
  public static int tailRoom(Block trailers) {
    return FRAME_HEADER + trailers.bytes.length;
  }

  /**
   * Writes a whole answer on {@code stream}: HEADERS {@code headers}, DATA {@code data}, HEADERS
   * {@code trailers} with END_STREAM, as one buffer (the frames are put around the message in
   * {@code data}'s own room: at least {@link #headRoom} before its reader index and {@link
   * #tailRoom} after its writer index, which the caller gives over with it), and closes the
   * stream's local side, if it can be done without netty's encoder (see the class comment).
   * Returns false, having done nothing and kept {@code data}, when it cannot; true when the answer
   * is written: {@code data} is then the channel's and {@code promise} completes with the write.
   * The caller flushes.
   */
  public static boolean writeWhole(
      H2Handler h, Http2Stream stream, Block headers, ByteBuf data, Block trailers, ChannelPromise promise) {
    Http2Stream.State state = stream.state();
    if ((state != Http2Stream.State.OPEN && state != Http2Stream.State.HALF_CLOSED_REMOTE)
        || stream.isHeadersSent()
        || h.headerTableSizeChanged()) {
      return false;
    }
    int head = headRoom(headers);
    int tail = tailRoom(trailers);
    int n = data.readableBytes();
    if (data.readerIndex() < head || data.writableBytes() < tail || data.isReadOnly()) {
      return false;
    }
    Http2Connection connection = h.connection();
    if (connection.goAwaySent() || connection.goAwayReceived()) {
      return false;
    }
    Http2ConnectionEncoder encoder = h.encoder();
    long maxList = encoder.configuration().headersConfiguration().maxHeaderListSize();
    int maxFrame = encoder.configuration().frameSizePolicy().maxFrameSize();
    if (headers.listSize > maxList || trailers.listSize > maxList
        || headers.bytes.length > maxFrame || trailers.bytes.length > maxFrame || n > maxFrame) {
      return false;
    }
    Http2RemoteFlowController flow = encoder.flowController();
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
    int id = stream.id();
    // Built in arrays and put into the buffer in one go each: a buffer checks its reference count
    // on every access, which cost more than the rest of the framing when written field by field.
    byte[] before = new byte[head];
    frame(before, 0, headers.bytes.length, TYPE_HEADERS, END_HEADERS, id);
    System.arraycopy(headers.bytes, 0, before, FRAME_HEADER, headers.bytes.length);
    frame(before, head - FRAME_HEADER, n, TYPE_DATA, 0, id);
    byte[] after = new byte[tail];
    frame(after, 0, trailers.bytes.length, TYPE_HEADERS, END_HEADERS | END_STREAM, id);
    System.arraycopy(trailers.bytes, 0, after, FRAME_HEADER, trailers.bytes.length);
    int at = data.readerIndex() - head;
    data.setBytes(at, before).readerIndex(at);
    data.writeBytes(after);
    h.ctx().write(data, promise);
    stream.headersSent(false); // the response headers
    stream.headersSent(false); // and the trailers
    h.controlFrames().answered(); // as AnswerWatch does for the encoder's frames
    h.closeStreamLocal(stream, promise);
    return true;
  }

  private static void frame(byte[] out, int at, int length, int type, int flags, int streamId) {
    out[at] = (byte) (length >>> 16);
    out[at + 1] = (byte) (length >>> 8);
    out[at + 2] = (byte) length;
    out[at + 3] = (byte) type;
    out[at + 4] = (byte) flags;
    out[at + 5] = (byte) (streamId >>> 24);
    out[at + 6] = (byte) (streamId >>> 16);
    out[at + 7] = (byte) (streamId >>> 8);
    out[at + 8] = (byte) streamId;
  }

}
