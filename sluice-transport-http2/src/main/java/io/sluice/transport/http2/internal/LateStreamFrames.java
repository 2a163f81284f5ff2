package io.sluice.transport.http2.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.DecoratingHttp2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Flags;
import io.netty.handler.codec.http2.Http2FrameTypes;
import java.util.List;

/**
 * Hands netty's frame reader whole frames only, and on a server that has sent GOAWAY drops the
 * DATA, RST_STREAM and WINDOW_UPDATE frames of streams the client opened after that GOAWAY (RFC
 * 9113 6.8: such frames are ignored).
 *
 * <p>Why: a client that sent a request before our GOAWAY reached it sends HEADERS, which netty
 * refuses (REFUSED_STREAM) without creating the stream, then DATA on that stream, which netty
 * ignores and then fails its check that the stream may have existed: a PROTOCOL_ERROR connection
 * error. That error closes the draining connection and every stream the GOAWAY was letting finish;
 * and swallowing it is no way out, since netty's frame reader then reads nothing more on the
 * connection (no DATA, WINDOW_UPDATE, PING of the live streams). So those frames never reach
 * netty. A dropped DATA frame still counts against the connection's flow-control window and is
 * returned at once, as netty does for the frames it ignores.
 *
 * <p>Whole frames only: netty's reader keeps a frame's header once it has read it and waits for the
 * payload, so a filter in front of it must know where frames start; giving it only complete frames
 * keeps every call of the reader at a frame boundary, at the cost of reading each frame's 3-byte
 * length here. netty buffers a frame until its payload is complete either way. A frame longer than
 * the largest we accept goes to netty at once, which refuses it (FRAME_SIZE_ERROR) before its
 * payload arrives, as it did before.
 */
final class LateStreamFrames extends DecoratingHttp2ConnectionDecoder {
  private static final int HEADER = Http2CodecUtil.FRAME_HEADER_LENGTH;

  private final int maxFrameSize;

  LateStreamFrames(Http2ConnectionDecoder delegate, int maxFrameSize) {
    super(delegate);
    this.maxFrameSize = maxFrameSize;
  }

  @Override
  public void decodeFrame(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Http2Exception {
    Http2Connection c = connection();
    boolean filter = c.isServer() && c.goAwaySent();
    int start = in.readerIndex();
    int end = in.writerIndex();
    int passFrom = start;
    int i = start;
    while (end - i >= HEADER) {
      int length = in.getUnsignedMedium(i);
      if (length > maxFrameSize) {
        i = end; // netty refuses it from its header
        break;
      }
      int frameEnd = i + HEADER + length;
      if (frameEnd > end) {
        break; // wait for the rest of this frame
      }
      if (filter && isLate(c, in, i)) {
        pass(ctx, in, passFrom, i, out);
        drop(in, i, length);
        in.readerIndex(frameEnd);
        passFrom = frameEnd;
      }
      i = frameEnd;
    }
    pass(ctx, in, passFrom, i, out);
  }

  /**
   * Gives netty the whole frames in {@code [from, to)} of {@code in}, and moves {@code in}'s reader
   * index past what netty read, also when it throws (a stream error ends its read after the frame
   * at fault; the frames behind it come in the next call, as they did without this class).
   */
  private void pass(ChannelHandlerContext ctx, ByteBuf in, int from, int to, List<Object> out)
      throws Http2Exception {
    if (to > from) {
      ByteBuf frames = in.slice(from, to - from);
      try {
        super.decodeFrame(ctx, frames, out);
      } finally {
        in.readerIndex(from + frames.readerIndex());
      }
    }
  }

  /**
   * A DATA, RST_STREAM or WINDOW_UPDATE frame of a client stream above our GOAWAY's last stream id
   * that netty never created: the frames netty would take for a connection error.
   */
  private static boolean isLate(Http2Connection c, ByteBuf in, int at) {
    byte type = in.getByte(at + 3);
    if (type != Http2FrameTypes.DATA && type != Http2FrameTypes.RST_STREAM
        && type != Http2FrameTypes.WINDOW_UPDATE) {
      return false;
    }
    int id = in.getInt(at + 5) & 0x7FFF_FFFF;
    return id != 0
        && c.remote().isValidStreamId(id)
        && id > c.remote().lastStreamKnownByPeer()
        && c.stream(id) == null
        && !c.streamMayHaveExisted(id);
  }

  /** A dropped DATA frame's bytes count against the connection window, returned at once. */
  private void drop(ByteBuf in, int at, int length) throws Http2Exception {
    if (in.getByte(at + 3) == Http2FrameTypes.DATA && length > 0) {
      boolean endOfStream = (in.getByte(at + 4) & Http2Flags.END_STREAM) != 0;
      flowController().receiveFlowControlledFrame(null, in.slice(at + HEADER, length), 0, endOfStream);
    }
  }
}
