package io.sluice.transport.websocket.internal;

import static io.sluice.transport.websocket.internal.WebSocketFrames.FIN;
import static io.sluice.transport.websocket.internal.WebSocketFrames.OP_BINARY;
import static io.sluice.transport.websocket.internal.WebSocketFrames.OP_CLOSE;
import static io.sluice.transport.websocket.internal.WebSocketFrames.OP_CONTINUATION;
import static io.sluice.transport.websocket.internal.WebSocketFrames.OP_PING;
import static io.sluice.transport.websocket.internal.WebSocketFrames.OP_PONG;
import static io.sluice.transport.websocket.internal.WebSocketFrames.OP_TEXT;
import static io.sluice.transport.websocket.internal.WebSocketFrames.RSV1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.sluice.transport.FrameTooLargeException;
import io.sluice.transport.websocket.WebSocketProtocolException;
import java.nio.charset.StandardCharsets;

/**
 * The inbound half of RFC 6455 as RSocket over WebSocket uses it, apart from where the bytes come
 * from: the WebSocket transport feeds it its channel's cumulation, WebSocket over HTTP/2 (RFC 8441)
 * the DATA of one HTTP/2 stream. It cuts whole frames out of the bytes it is given and checks each
 * frame's header before its payload is buffered: masking as RFC 6455 demands of the side (clients
 * mask, servers do not), reserved bits, opcodes, control frame rules, and the message's size
 * against {@link #maxMessageSize} (a frame that declares 2^62 bytes is refused from its header).
 * An unfragmented binary message is lent to the {@link Handler} as the input narrowed to its
 * payload (unmasked in place); fragmented ones are reassembled into one buffer up to the limit (at
 * most {@value WebSocketDuplexTransport#MAX_FRAGMENTS} fragments), compressed ones inflated.
 *
 * <p>A text message is a violation with close code 1003, an oversize one ({@link
 * FrameTooLargeException}) 1009, a close frame whose reason is not UTF-8 1007, anything else
 * against the protocol (a close code that may not be sent among it) 1002 ({@link
 * WebSocketProtocolException#closeCode()}). After a violation or the peer's close frame the reader
 * discards: it skips frames (telling {@link Handler#onDiscarded}) until the peer's close frame,
 * which ends the close handshake ({@link Handler#onCloseDone}). The owner switches it to
 * discarding when it closes first ({@link #discardUntilClose}).
 *
 * <p>Confined to the connection's event loop. Buffers: the input is borrowed (its reader index
 * advanced past whole frames, masked payloads unmasked in place); what is lent to the handler is
 * valid during the call only; the reassembly buffer is the reader's, freed by {@link #release}.
 */
public final class WebSocketReader {
  /** What the reader finds; called on the connection's event loop, from inside {@link #read}. */
  public interface Handler {
    /** One whole binary message, lent: valid during the call only. */
    void onMessage(ByteBuf message);

    /** A ping's payload, lent. */
    void onPing(ByteBuf payload);

    /**
     * The peer's close frame, while open; {@code code} is its status, one that may be sent (1005
     * if it has none); its reason was UTF-8. The reader discards from now on.
     */
    void onPeerClose(int code);

    /**
     * The peer broke RFC 6455 or a limit; the close frame should carry {@code
     * closeCode(cause)}. The reader discards from now on.
     */
    void onViolation(RuntimeException cause);

    /** While discarding: {@code n} more bytes of frames skipped. */
    default void onDiscarded(int n) {}

    /**
     * While discarding: the peer's close frame arrived (or its input cannot be framed any more):
     * the close handshake is over, and the rest of the input was skipped.
     */
    void onCloseDone();
  }

  private final boolean server;
  private final PerMessageDeflate deflate;
  private final ByteBufAllocator alloc;
  private int maxMessageSize = Integer.MAX_VALUE;

  private boolean discarding;
  /** Payload bytes still to skip of a frame being discarded. */
  private long skip;

  /** A fragmented message being reassembled, or null. */
  private ByteBuf assembly;
  private int assemblyFragments;
  private boolean assemblyCompressed;

  /**
   * @param server true on the server side: inbound frames must be masked (false: must not be)
   * @param deflate the negotiated permessage-deflate, or null; the owner closes it
   */
  WebSocketReader(boolean server, PerMessageDeflate deflate, ByteBufAllocator alloc) {
    this.server = server;
    this.deflate = deflate;
    this.alloc = alloc;
  }

  /** A reader without compression; {@code server} as above. */
  public WebSocketReader(boolean server, ByteBufAllocator alloc) {
    this(server, null, alloc);
  }

  /** The close code a close frame carries for a violation reported with {@code cause}. */
  public static int closeCode(Throwable cause) {
    return cause instanceof WebSocketProtocolException
        ? ((WebSocketProtocolException) cause).closeCode()
        : cause instanceof FrameTooLargeException
            ? WebSocketProtocolException.MESSAGE_TOO_BIG
            : WebSocketProtocolException.PROTOCOL_ERROR;
  }

  /** Largest message accepted (the receiver's max frame size); larger ones are violations. */
  public void maxMessageSize(int max) {
    this.maxMessageSize = max;
  }

  /** From now on frames are skipped until the peer's close frame (we closed first). */
  public void discardUntilClose() {
    discarding = true;
    release();
  }

  public boolean discarding() {
    return discarding;
  }

  /** Frees the reassembly buffer; idempotent. */
  public void release() {
    ByteBuf a = assembly;
    assembly = null;
    if (a != null) {
      a.release();
    }
  }

  /**
   * Reads the whole frames at the start of {@code in}, advancing its reader index past them; stops
   * at a frame not wholly in {@code in} yet (its bytes are left for the next call, with what comes
   * next behind them) or when the close handshake is over.
   */
  public void read(ByteBuf in, Handler h) {
    while (in.isReadable()) {
      if (skip > 0) {
        int n = (int) Math.min(skip, in.readableBytes());
        in.skipBytes(n);
        skip -= n;
        h.onDiscarded(n);
        continue;
      }
      int start = in.readerIndex();
      int readable = in.readableBytes();
      if (readable < 2) {
        return;
      }
      int b0 = in.getUnsignedByte(start);
      int b1 = in.getUnsignedByte(start + 1);
      int len7 = b1 & 0x7F;
      boolean masked = (b1 & 0x80) != 0;
      int headerLength = 2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0) + (masked ? 4 : 0);
      if (readable < headerLength) {
        return;
      }
      long length =
          len7 < 126 ? len7 : len7 == 126 ? in.getUnsignedShort(start + 2) : in.getLong(start + 2);
      int opcode = b0 & 0x0F;
      if (discarding) {
        if (!discard(in, headerLength, length, opcode, h)) {
          return;
        }
        continue;
      }
      String violation = WebSocketFrames.violation(b0, b1, server, deflate != null);
      if (violation == null && length < 0) {
        violation = "frame length with the most significant bit set";
      }
      if (violation != null) {
        fail(new WebSocketProtocolException(WebSocketProtocolException.PROTOCOL_ERROR, violation), h);
        continue;
      }
      if (opcode == OP_TEXT) {
        fail(
            new WebSocketProtocolException(
                WebSocketProtocolException.UNSUPPORTED_DATA,
                "text message: RSocket frames travel in binary messages"),
            h);
        continue;
      }
      if (opcode == OP_BINARY || opcode == OP_CONTINUATION) {
        String order = messageOrder(opcode);
        if (order != null) {
          fail(new WebSocketProtocolException(WebSocketProtocolException.PROTOCOL_ERROR, order), h);
          continue;
        }
        long total = length + (assembly != null ? assembly.readableBytes() : 0);
        if (total > maxMessageSize) {
          // Checked from the header, before any of the payload is buffered.
          fail(new FrameTooLargeException(total, maxMessageSize), h);
          continue;
        }
      }
      if (readable < headerLength + length) {
        return;
      }
      int payload = start + headerLength;
      int len = (int) length;
      if (masked) {
        WebSocketFrames.mask(in, payload, len, in.getInt(payload - 4));
      }
      boolean fin = (b0 & FIN) != 0;
      switch (opcode) {
        case OP_BINARY:
          if (fin && (b0 & RSV1) == 0) {
            lend(in, payload, len, h);
          } else {
            in.readerIndex(payload + len);
            startAssembly(in, payload, len, (b0 & RSV1) != 0, fin, h);
          }
          break;
        case OP_CONTINUATION:
          in.readerIndex(payload + len);
          continueAssembly(in, payload, len, fin, h);
          break;
        case OP_PING:
          in.readerIndex(payload + len);
          h.onPing(in.slice(payload, len));
          break;
        case OP_PONG:
          in.readerIndex(payload + len);
          break;
        case OP_CLOSE:
          in.readerIndex(payload + len);
          onClose(in, payload, len, h);
          break;
        default:
          throw new AssertionError(opcode);
      }
      // If the handler closed meanwhile, what follows is discarded (looking for the peer's close
      // frame) by the discarding branch above.
    }
  }

  private void fail(RuntimeException cause, Handler h) {
    discardUntilClose();
    h.onViolation(cause);
  }

  /** Why a data frame of {@code opcode} is out of order; null if it is not. */
  private String messageOrder(int opcode) {
    if (opcode == OP_CONTINUATION && assembly == null) {
      return "continuation frame without a message to continue";
    }
    if (opcode == OP_BINARY && assembly != null) {
      return "new message before the fragmented one ended";
    }
    return null;
  }

  /** Lends the message at {@code payload} as the input narrowed to it. */
  private static void lend(ByteBuf in, int payload, int len, Handler h) {
    int end = payload + len;
    int writerIndex = in.writerIndex();
    in.setIndex(payload, end);
    try {
      h.onMessage(in);
    } finally {
      in.setIndex(end, writerIndex);
    }
  }

  private void startAssembly(ByteBuf in, int payload, int len, boolean compressed, boolean fin, Handler h) {
    if (fin) {
      // A whole compressed message in one frame.
      deliverCompressed(in.slice(payload, len), h);
      return;
    }
    assembly = alloc.buffer(Math.min(maxMessageSize, Math.max(256, 2 * len)), maxMessageSize);
    assemblyFragments = 1;
    assemblyCompressed = compressed;
    assembly.writeBytes(in, payload, len);
  }

  private void continueAssembly(ByteBuf in, int payload, int len, boolean fin, Handler h) {
    if (++assemblyFragments > WebSocketDuplexTransport.MAX_FRAGMENTS) {
      fail(
          new WebSocketProtocolException(
              WebSocketProtocolException.POLICY_VIOLATION,
              "message in more than " + WebSocketDuplexTransport.MAX_FRAGMENTS + " fragments"),
          h);
      return;
    }
    assembly.writeBytes(in, payload, len);
    if (!fin) {
      return;
    }
    ByteBuf whole = assembly;
    assembly = null;
    try {
      if (assemblyCompressed) {
        deliverCompressed(whole, h);
      } else {
        h.onMessage(whole);
      }
    } finally {
      whole.release();
    }
  }

  private void deliverCompressed(ByteBuf compressed, Handler h) {
    ByteBuf inflated;
    try {
      inflated = deflate.inflate(alloc, compressed, maxMessageSize);
    } catch (RuntimeException e) {
      fail(e, h);
      return;
    }
    try {
      h.onMessage(inflated);
    } finally {
      inflated.release();
    }
  }

  /**
   * The peer's close frame: checked as RFC 6455 5.5.1 and 7.4 require (no 1-byte form, a code
   * that may be sent, a UTF-8 reason) and passed on; a broken one is a violation that also ends
   * the close handshake, as the peer's close frame has come.
   */
  private void onClose(ByteBuf in, int payload, int len, Handler h) {
    String broken = null;
    int closeCode = WebSocketProtocolException.PROTOCOL_ERROR;
    int code = len >= 2 ? in.getUnsignedShort(payload) : WebSocketFrames.CLOSE_NO_STATUS;
    if (len == 1) {
      broken = "close frame of 1 byte";
    } else if (len >= 2 && !WebSocketFrames.sendable(code)) {
      broken = "close code " + code + " may not be sent";
    } else if (len > 2 && !ByteBufUtil.isText(in, payload + 2, len - 2, StandardCharsets.UTF_8)) {
      broken = "close reason that is not UTF-8";
      closeCode = WebSocketProtocolException.INVALID_DATA;
    }
    if (broken != null) {
      fail(new WebSocketProtocolException(closeCode, broken), h);
      in.skipBytes(in.readableBytes());
      h.onCloseDone();
      return;
    }
    discardUntilClose();
    h.onPeerClose(code);
  }

  /**
   * While discarding: skips the frame at the reader index unless it is the peer's close frame,
   * which ends the handshake. Returns false when more bytes are needed or the input is done.
   */
  private boolean discard(ByteBuf in, int headerLength, long length, int opcode, Handler h) {
    if (length < 0) {
      in.skipBytes(in.readableBytes());
      h.onCloseDone();
      return false;
    }
    if (opcode == OP_CLOSE && length <= WebSocketFrames.MAX_CONTROL_PAYLOAD) {
      if (in.readableBytes() < headerLength + length) {
        return false;
      }
      // Our close frame went first: the handshake is complete.
      in.skipBytes(in.readableBytes());
      h.onCloseDone();
      return false;
    }
    in.skipBytes(headerLength);
    h.onDiscarded(headerLength);
    skip = length;
    return true;
  }
}
