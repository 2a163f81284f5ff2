package io.sluice.rpc.rsocket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.sluice.rpc.Headers;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import java.util.Base64;

/**
 * Encodes and decodes response metadata: the response headers and trailers a server sends back to
 * a caller that asked for them ({@link CallMetadataCodec#FLAG_RESPONSE_METADATA}). It travels in
 * the RSocket metadata of response PAYLOAD frames and, base64-encoded, at the end of the error
 * data of an ERROR frame ({@link RpcErrors}). The layout (docs/rpc-wire-format.md):
 *
 * <pre>
 * u8  version (1)
 * u8  flags: 0x01 has-headers, 0x02 has-trailers, 0x04 no-message (the PAYLOAD's data is not a
 *            response message); 0xF8 must be 0
 * header block (as in call metadata)       if has-headers
 * header block                             if has-trailers
 * </pre>
 *
 * <p>Stateless and thread-safe. {@link #encode} returns a new buffer that the caller releases;
 * {@link #decode} reads without moving indexes, retaining or releasing.
 */
public final class ResponseMetadataCodec {
  /** The format version this codec writes and reads. */
  public static final int VERSION = 1;

  public static final int FLAG_HEADERS = 0x01;
  public static final int FLAG_TRAILERS = 0x02;
  public static final int FLAG_NO_MESSAGE = 0x04;
  private static final int KNOWN_FLAGS = FLAG_HEADERS | FLAG_TRAILERS | FLAG_NO_MESSAGE;

  private ResponseMetadataCodec() {}

  /**
   * What one response frame says: the headers and trailers it carries (null when absent) and
   * whether its data is not a response message.
   */
  public record Decoded(Headers headers, Headers trailers, boolean noMessage) {}

  /**
   * Encodes response metadata into a new buffer from {@code alloc} (the caller owns it).
   *
   * @param headers the response headers, or null when this frame carries none
   * @param trailers the trailers, or null when this frame carries none
   * @param noMessage the frame's data is not a response message
   */
  public static ByteBuf encode(ByteBufAllocator alloc, Headers headers, Headers trailers, boolean noMessage) {
    headers = nonEmpty(headers);
    trailers = nonEmpty(trailers);
    int size = 2;
    if (headers != null) {
      size += CallMetadataCodec.headerBlockSize(headers);
    }
    if (trailers != null) {
      size += CallMetadataCodec.headerBlockSize(trailers);
    }
    ByteBuf out = alloc.buffer(size, size);
    int flags = (headers != null ? FLAG_HEADERS : 0)
        | (trailers != null ? FLAG_TRAILERS : 0)
        | (noMessage ? FLAG_NO_MESSAGE : 0);
    out.writeByte(VERSION);
    out.writeByte(flags);
    if (headers != null) {
      CallMetadataCodec.writeHeaderBlock(headers, out);
    }
    if (trailers != null) {
      CallMetadataCodec.writeHeaderBlock(trailers, out);
    }
    return out;
  }

  private static Headers nonEmpty(Headers h) {
    return h == null || h.isEmpty() ? null : h;
  }

  /**
   * Decodes the readable bytes of {@code in} (indexes left alone).
   *
   * @throws StatusException INTERNAL when they are not response metadata of this version
   */
  public static Decoded decode(ByteBuf in) {
    int i = in.readerIndex();
    int end = in.writerIndex();
    try {
      if (end - i < 2) {
        throw CallMetadataCodec.bad("response metadata is " + (end - i) + " bytes, at least 2 needed");
      }
      int version = in.getUnsignedByte(i++);
      if (version != VERSION) {
        throw CallMetadataCodec.bad("response metadata version " + version + " is not supported");
      }
      int flags = in.getUnsignedByte(i++);
      if ((flags & ~KNOWN_FLAGS) != 0) {
        throw CallMetadataCodec.bad(
            "response metadata has unknown flags 0x" + Integer.toHexString(flags & ~KNOWN_FLAGS));
      }
      Headers[] read = new Headers[1];
      Headers headers = null;
      Headers trailers = null;
      if ((flags & FLAG_HEADERS) != 0) {
        i = CallMetadataCodec.readHeaderBlock(in, i, end, read);
        headers = read[0];
      }
      if ((flags & FLAG_TRAILERS) != 0) {
        i = CallMetadataCodec.readHeaderBlock(in, i, end, read);
        trailers = read[0];
      }
      if (i != end) {
        throw CallMetadataCodec.bad("response metadata has " + (end - i) + " trailing bytes");
      }
      return new Decoded(headers, trailers, (flags & FLAG_NO_MESSAGE) != 0);
    } catch (IllegalArgumentException e) {
      throw new StatusException(
          Status.of(Status.Code.INTERNAL, "bad response metadata from the server: " + e.getMessage()));
    }
  }

  /** The base64 text (standard alphabet, no padding) of the encoding, as an ERROR's data ends with it. */
  static String encodeText(Headers headers, Headers trailers) {
    ByteBuf b = encode(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT, headers, trailers, false);
    try {
      byte[] bytes = new byte[b.readableBytes()];
      b.readBytes(bytes);
      return Base64.getEncoder().withoutPadding().encodeToString(bytes);
    } finally {
      b.release();
    }
  }

  /** Decodes {@link #encodeText} output; null when {@code text} is not that. */
  static Decoded decodeText(String text) {
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      return null;
    }
    try {
      return decode(Unpooled.wrappedBuffer(bytes));
    } catch (StatusException e) {
      return null;
    }
  }
}
