package io.sluice.transport.websocket.internal;

import static io.sluice.transport.websocket.internal.WebSocketFrames.FIN;
import static io.sluice.transport.websocket.internal.WebSocketFrames.OP_BINARY;
import static io.sluice.transport.websocket.internal.WebSocketFrames.OP_CLOSE;
import static io.sluice.transport.websocket.internal.WebSocketFrames.OP_PONG;
import static io.sluice.transport.websocket.internal.WebSocketFrames.RSV1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FramePrefix;
import io.sluice.transport.FrameReceiver;
import io.sluice.transport.websocket.WebSocketProtocolException;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * An upgraded WebSocket connection as a {@link DuplexTransport}: one RSocket frame per binary
 * message, no length prefix. The last handler of the pipeline once the HTTP upgrade is done; it
 * speaks RFC 6455 itself, without netty's frame objects, so that no object is made per frame.
 *
 * <p><b>Inbound.</b> A {@link WebSocketReader} (shared with WebSocket over HTTP/2) cuts the frames
 * out of the channel's cumulation. Each frame's header is checked before its payload is buffered: masking as
 * RFC 6455 demands of the side (clients mask, servers do not), reserved bits, opcodes, control
 * frame rules, and the message's size against the receiver's {@link FrameReceiver#maxFrameSize()}
 * (a frame that declares 2^62 bytes is refused from its header). An unfragmented binary message is
 * lent to the receiver as the read buffer narrowed to its payload (unmasked in place); fragmented
 * ones are reassembled into one buffer up to the limit (and at most {@link #MAX_FRAGMENTS}
 * fragments). A text message closes with 1003, an oversize one with 1009, a close reason that is
 * not UTF-8 with 1007, anything else against the protocol with 1002: the receiver hears of it through {@link FrameReceiver#onTransportError}
 * (it answers ERROR[CONNECTION_ERROR] and closes us), then the close frame carries the code. Pings
 * are answered with pongs (dropped while the output is over its high water mark: RFC 6455 lets an
 * endpoint answer only the latest ping).
 *
 * <p><b>Outbound.</b> The protocol core writes each frame's WebSocket header itself ({@link
 * Framing#TRANSPORT_PREFIXED} with a {@link WebSocketFramePrefix}): frames come here back to back
 * in the core's batch buffers, many to a write, as on TCP, and go to the channel as they are. A
 * client masks every frame (RFC 6455) with a fresh random key as its batch is handed over (see
 * {@link OutboundMasking}). With permessage-deflate each frame comes on its own ({@link
 * Framing#FRAME_PER_WRITE}) to be compressed, and is then copied with its header into a batch
 * buffer of this transport, written on {@link #flush()} (or when full); so are the control frames
 * this transport sends (pong, close). Frames up to {@link #COPY_THRESHOLD} bytes are copied; a
 * server writes larger ones as they are behind a header; a client masks while copying.
 *
 * <p><b>Closing.</b> {@link #close()} sends a close frame and reads (discarding, at most {@link
 * #LINGER_MAX_BYTES}) until the peer's close frame or EOF, for at most {@link #CLOSE_WAIT_MILLIS};
 * a peer's close frame is answered and ends the connection. The receiver is told {@link
 * FrameReceiver#onClosed()} at once either way.
 *
 * <p>Everything runs on the channel's event loop. Buffers given to {@link #write} are owned (and
 * released) by this transport; frames lent to {@link FrameReceiver#onFrame} stay ours.
 */
public final class WebSocketDuplexTransport extends ByteToMessageDecoder implements DuplexTransport {
  /** Longest a closing connection waits for the peer's close frame. */
  static final long CLOSE_WAIT_MILLIS = 2000;
  /** Most bytes a closing connection reads and discards from the peer. */
  static final int LINGER_MAX_BYTES = 8 << 20;
  /** Most fragments one message may come in (an endless run of tiny continuations is cut off). */
  public static final int MAX_FRAGMENTS = 4096;

  private static final int BATCH_SIZE = 64 * 1024;
  private static final int COPY_THRESHOLD = 2048;

  private final Channel channel;
  private final boolean client;
  private final PerMessageDeflate deflate;
  private ChannelHandlerContext ctx;
  private FrameReceiver receiver;
  private boolean started;

  /** {@link #close()} ran or the peer's close frame arrived: nothing more is delivered. */
  private boolean closing;
  private boolean closeSent;
  /** The close code our close frame carries (set by a violation before the receiver closes us). */
  private int closeCode = WebSocketFrames.CLOSE_NORMAL;
  private String closeReason = "";
  private ScheduledFuture<?> closeGuard;
  private long discardedWhileClosing;
  /** Cuts and checks inbound frames (RFC 6455). */
  private final WebSocketReader reader;
  private final Inbound inbound = new Inbound();

  /** A client's masking of what the core writes (null on a server, or with compression). */
  private final OutboundMasking masking;
  /** Small frames of this transport's own (control frames; compressed ones) waiting to go. */
  private ByteBuf batch;
  /** Bytes handed to the channel or the batch so far (headers included). */
  private long written;
  /** A control frame (pong) was queued while reading: the read batch's end flushes it. */
  private boolean controlPending;
  /** Inside the flush of a full batch from {@link #write}: see {@link #channelWritabilityChanged}. */
  private boolean flushingInWrite;

  /**
   * @param client true on the client side: outbound frames are masked, inbound ones must not be
   * @param deflate the negotiated permessage-deflate, or null
   */
  public WebSocketDuplexTransport(Channel channel, boolean client, PerMessageDeflate deflate) {
    this.channel = channel;
    this.client = client;
    this.deflate = deflate;
    this.masking = client && deflate == null ? new OutboundMasking() : null;
    this.reader = new WebSocketReader(!client, deflate, channel.alloc());
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
    this.ctx = ctx;
    super.handlerAdded(ctx);
  }

  @Override
  public Framing framing() {
    // Compression needs each frame on its own; otherwise the core writes our headers.
    return deflate == null ? Framing.TRANSPORT_PREFIXED : Framing.FRAME_PER_WRITE;
  }

  @Override
  public FramePrefix framePrefix() {
    return client ? WebSocketFramePrefix.CLIENT : WebSocketFramePrefix.SERVER;
  }

  @Override
  public EventExecutor executor() {
    return channel.eventLoop();
  }

  @Override
  public ByteBufAllocator alloc() {
    return channel.alloc();
  }

  @Override
  public void start(FrameReceiver receiver) {
    this.receiver = receiver;
    this.started = true;
    reader.maxMessageSize(receiver.maxFrameSize());
    int high = receiver.maxQueuedOutboundBytes();
    channel.config().setWriteBufferWaterMark(new WriteBufferWaterMark(high / 2, high));
    if (!channel.isActive()) {
      detachReceiver();
      receiver.onClosed();
      return;
    }
    // Bytes that came right behind the upgrade wait in the cumulation: handle them on the next
    // loop turn (not from inside start, which the receiver is still in).
    channel.eventLoop().execute(this::decodeBuffered);
    channel.config().setAutoRead(true);
  }

  private void decodeBuffered() {
    if (receiver != null && !ctx.isRemoved()) {
      try {
        channelRead(ctx, ctx.alloc().buffer(0)); // decodes the cumulation
      } catch (Exception e) {
        exceptionCaught(ctx, e);
        return;
      }
      channelReadComplete(ctx);
    }
  }

  // ---- inbound -----------------------------------------------------------------------------

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (!started && !closing) {
      return; // not started yet: keep what came behind the upgrade
    }
    reader.read(in, inbound);
  }

  /** What the reader finds, on the channel's loop. */
  private final class Inbound implements WebSocketReader.Handler {
    @Override
    public void onMessage(ByteBuf message) {
      FrameReceiver r = receiver;
      if (r != null) {
        r.onFrame(message);
      }
    }

    @Override
    public void onPing(ByteBuf payload) {
      if (channel.isWritable()) {
        writeControl(OP_PONG, payload);
        controlPending = true;
      }
    }

    @Override
    public void onPeerClose(int code) {
      // Answer with the peer's code (RFC 6455 5.5.1), then close once it is written; none (1005)
      // is answered with 1000. The reader refused codes that may not be sent.
      closeCode =
          code == WebSocketFrames.CLOSE_NO_STATUS
              ? WebSocketFrames.CLOSE_NORMAL
              : WebSocketFrames.sendable(code) ? code : WebSocketProtocolException.PROTOCOL_ERROR;
      closeReason = "";
      FrameReceiver r = detachReceiver();
      sendCloseFrame();
      flushAndClose();
      if (r != null) {
        r.onClosed();
      }
    }

    @Override
    public void onViolation(RuntimeException cause) {
      fail(cause);
    }

    @Override
    public void onDiscarded(int n) {
      noteDiscarded(n);
    }

    @Override
    public void onCloseDone() {
      flushAndClose();
    }
  }

  /** Writes what is queued (our close frame last), then closes the channel. */
  private void flushAndClose() {
    writeBatch();
    ctx.writeAndFlush(ctx.alloc().buffer(0)).addListener(ChannelFutureListener.CLOSE);
  }

  private void noteDiscarded(int n) {
    discardedWhileClosing += n;
    if (discardedWhileClosing > LINGER_MAX_BYTES && channel.config().isAutoRead()) {
      // A peer still sending this much after our close is not listening: stop reading; the
      // close guard ends the connection.
      channel.config().setAutoRead(false);
    }
  }

  /**
   * The peer broke the protocol or a limit: the receiver answers with an ERROR frame and closes
   * us, and our close frame carries the code of {@code cause}.
   */
  private void fail(RuntimeException cause) {
    closeCode = WebSocketReader.closeCode(cause);
    closeReason = cause.getMessage();
    FrameReceiver r = receiver;
    if (r != null) {
      r.onTransportError(cause);
    }
    close(); // if the receiver has not already
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    // Not super.channelReadComplete: it would call read() while autoRead is off (see
    // NettyDuplexTransport).
    discardSomeReadBytes();
    if (receiver != null) {
      receiver.onReadComplete();
    }
    if (controlPending) {
      controlPending = false;
      flush();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (receiver != null) {
      if (flushingInWrite && channel.isWritable()) {
        // Reported from inside write(): the receiver may be in the middle of a message's
        // fragments, so it hears of the room on the next loop turn instead.
        channel.eventLoop().execute(this::reportWritability);
      } else {
        receiver.onWritabilityChanged(channel.isWritable());
      }
    }
    ctx.fireChannelWritabilityChanged();
  }

  private void reportWritability() {
    if (receiver != null && channel.isWritable()) {
      receiver.onWritabilityChanged(true);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    super.channelInactive(ctx);
    FrameReceiver r = detachReceiver();
    releaseBuffers();
    if (r != null) {
      r.onClosed();
    }
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    releaseBuffers();
  }

  private void releaseBuffers() {
    reader.release();
    if (batch != null) {
      batch.release();
      batch = null;
    }
    if (deflate != null) {
      deflate.close();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (receiver != null && channel.isActive()) {
      receiver.onTransportError(cause);
    } else {
      ctx.close();
    }
  }

  private FrameReceiver detachReceiver() {
    FrameReceiver r = receiver;
    receiver = null;
    closing = true;
    reader.discardUntilClose();
    return r;
  }

  // ---- outbound ----------------------------------------------------------------------------

  @Override
  public void write(ByteBuf frame) {
    if (closeSent || !channel.isActive()) {
      frame.release();
      return;
    }
    if (deflate == null) {
      // Frames behind the headers the core wrote (TRANSPORT_PREFIXED). The batch holds only
      // control frames here (a pong queued while reading): written first, it is not overtaken.
      if (batch != null) {
        writeBatch();
      }
      ByteBuf out = masking != null ? masking.mask(frame, ctx.alloc()) : frame;
      written += out.readableBytes();
      ctx.write(out, ctx.voidPromise());
      return;
    }
    // One frame to compress (FRAME_PER_WRITE).
    ByteBuf compressed;
    try {
      compressed = deflate.compress(ctx.alloc(), frame);
    } finally {
      frame.release();
    }
    writeFrame(FIN | OP_BINARY | RSV1, compressed);
  }

  /** Writes one frame with {@code payload} (taken). */
  private void writeFrame(int firstByte, ByteBuf payload) {
    int len = payload.readableBytes();
    int header = WebSocketFrames.headerSize(len, client);
    written += header + len;
    if (!client) {
      if (len <= COPY_THRESHOLD) {
        ByteBuf b = batchWithRoom(header + len);
        WebSocketFrames.writeHeader(b, firstByte, len, false, 0);
        b.writeBytes(payload);
        payload.release();
      } else {
        ByteBuf b = batchWithRoom(header);
        WebSocketFrames.writeHeader(b, firstByte, len, false, 0);
        batch = null;
        ctx.write(b, ctx.voidPromise());
        ctx.write(payload, ctx.voidPromise());
      }
      return;
    }
    // RFC 6455 5.3: a fresh, unpredictable key per frame.
    int mask = ThreadLocalRandom.current().nextInt();
    try {
      if (header + len <= BATCH_SIZE) {
        ByteBuf b = batchWithRoom(header + len);
        WebSocketFrames.writeHeader(b, firstByte, len, true, mask);
        WebSocketFrames.writeMasked(b, payload, mask);
      } else {
        writeBatch();
        ByteBuf b = ctx.alloc().ioBuffer(header + len);
        WebSocketFrames.writeHeader(b, firstByte, len, true, mask);
        WebSocketFrames.writeMasked(b, payload, mask);
        ctx.write(b, ctx.voidPromise());
      }
    } finally {
      payload.release();
    }
  }

  private void writeControl(int opcode, ByteBuf payload) {
    payload.retain();
    writeFrame(FIN | opcode, payload);
  }

  /** The batch buffer with at least {@code room} writable bytes; a full batch is written first. */
  private ByteBuf batchWithRoom(int room) {
    ByteBuf b = batch;
    if (b != null && b.writableBytes() >= room) {
      return b;
    }
    if (b != null) {
      // A full batch goes to the socket now, so the kernel sends while we encode the next one.
      batch = null;
      ctx.write(b, ctx.voidPromise());
      flushingInWrite = true;
      try {
        ctx.flush();
      } finally {
        flushingInWrite = false;
      }
    }
    b = batch = ctx.alloc().ioBuffer(Math.max(BATCH_SIZE, room));
    return b;
  }

  private void writeBatch() {
    ByteBuf b = batch;
    if (b != null) {
      batch = null;
      if (b.isReadable()) {
        ctx.write(b, ctx.voidPromise());
      } else {
        b.release();
      }
    }
  }

  @Override
  public void flush() {
    writeBatch();
    ctx.flush();
  }

  @Override
  public boolean isWritable() {
    return channel.isWritable();
  }

  @Override
  public long outboundProgress() {
    return written - unsentBytes() - (batch == null ? 0 : batch.readableBytes());
  }

  @Override
  public long unsentBytes() {
    ChannelOutboundBuffer b = channel.unsafe().outboundBuffer();
    return b == null ? 0 : b.totalPendingWriteBytes();
  }

  @Override
  public void setReadEnabled(boolean enabled) {
    channel.config().setAutoRead(enabled);
  }

  @Override
  public void close() {
    if (closing && closeSent) {
      return;
    }
    FrameReceiver r = detachReceiver();
    if (channel.isActive() && !closeSent) {
      sendCloseFrame();
      flush();
      closeGuard =
          channel.eventLoop().schedule(() -> channel.close(), CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
      channel.closeFuture().addListener(f -> closeGuard.cancel(false));
      channel.config().setAutoRead(true); // read until the peer's close frame
    }
    if (r != null) {
      r.onClosed();
    }
  }

  /** Queues our close frame with {@link #closeCode} and the reason (cut to fit 125 bytes). */
  private void sendCloseFrame() {
    if (closeSent) {
      return;
    }
    closeSent = true;
    byte[] reason = closeReason == null ? new byte[0] : closeReason.getBytes(StandardCharsets.UTF_8);
    int reasonLength = Math.min(reason.length, WebSocketFrames.MAX_CONTROL_PAYLOAD - 2);
    while (reasonLength > 0 && reasonLength < reason.length && (reason[reasonLength] & 0xC0) == 0x80) {
      reasonLength--; // do not cut a UTF-8 sequence in two
    }
    ByteBuf payload = ctx.alloc().buffer(2 + reasonLength);
    payload.writeShort(closeCode);
    payload.writeBytes(reason, 0, reasonLength);
    writeFrame(FIN | OP_CLOSE, payload);
  }

  @Override
  public String name() {
    return "websocket";
  }

  @Override
  public SocketAddress remoteAddress() {
    return channel.remoteAddress();
  }

  /** Bytes read and discarded since the close, for tests. Call on the channel's event loop. */
  long discardedWhileClosing() {
    return discardedWhileClosing;
  }
}
