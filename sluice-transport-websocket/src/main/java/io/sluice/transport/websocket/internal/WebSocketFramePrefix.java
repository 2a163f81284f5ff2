package io.sluice.transport.websocket.internal;

import static io.sluice.transport.websocket.internal.WebSocketFrames.FIN;
import static io.sluice.transport.websocket.internal.WebSocketFrames.OP_BINARY;

import io.netty.buffer.ByteBuf;
import io.sluice.transport.FramePrefix;

/**
 * The header of the binary WebSocket message that carries one RSocket frame (RFC 6455 5.2: FIN,
 * opcode 2, the payload length in 7, 7+16 or 7+64 bits), which the protocol core writes straight
 * into its batch buffers in front of each frame (see {@link
 * io.sluice.transport.DuplexTransport.Framing#TRANSPORT_PREFIXED}). A client's header has the mask
 * bit set and room for the masking key, left zero here: the frame is masked, with a fresh key, when
 * the core hands its batch over (see {@link OutboundMasking}), since its bytes are not written yet.
 *
 * <p>Stateless; shared by every connection (and by WebSocket over HTTP/2, hence public: internal,
 * not an API).
 */
public final class WebSocketFramePrefix implements FramePrefix {
  public static final WebSocketFramePrefix SERVER = new WebSocketFramePrefix(false);
  public static final WebSocketFramePrefix CLIENT = new WebSocketFramePrefix(true);

  private static final int FIRST = FIN | OP_BINARY;

  private final boolean masked;
  private final int maskBit;

  private WebSocketFramePrefix(boolean masked) {
    this.masked = masked;
    this.maskBit = masked ? 0x80 : 0;
  }

  @Override
  public int maxLength() {
    return WebSocketFrames.headerSize(Integer.MAX_VALUE, masked); // 10, or 14 with the key
  }

  @Override
  public void write(ByteBuf out, int frameLength) {
    if (frameLength < 126) {
      out.writeShort(FIRST << 8 | maskBit | frameLength);
    } else if (frameLength < 65536) {
      out.writeInt(FIRST << 24 | (maskBit | 126) << 16 | frameLength);
    } else {
      out.writeShort(FIRST << 8 | maskBit | 127);
      out.writeLong(frameLength);
    }
    if (masked) {
      out.writeInt(0);
    }
  }
}
