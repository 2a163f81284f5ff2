package io.sluice.transport.grpc.internal.web;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.sluice.rpc.Headers;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.transport.grpc.internal.GrpcMetadata;
import io.sluice.transport.grpc.internal.StatusMessages;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

/**
 * gRPC-Web's body format (the PROTOCOL-WEB document of the gRPC project): messages behind gRPC's
 * 5-byte prefix, and the trailers as one last frame whose flag byte is {@code 0x80} and whose
 * payload is HTTP/1-style header lines; for {@code -text}, all of it base64 (each frame the server
 * writes is encoded on its own, padded; a request may be several padded segments).
 *
 * <p>Stateless: safe from any thread. Returned buffers are the caller's to release.
 */
final class GrpcWebCodec {
  private GrpcWebCodec() {}

  static final int PREFIX = 5;
  static final byte TRAILERS_FLAG = (byte) 0x80;

  /**
   * The one message of a request body (already base64-decoded for {@code -text}); a retained
   * slice of {@code body}.
   *
   * @throws StatusException INTERNAL for a body that is not exactly one uncompressed message
   */
  static ByteBuf oneMessage(ByteBuf body, String method) {
    if (body.readableBytes() < PREFIX) {
      throw new StatusException(
          Status.of(Status.Code.INTERNAL, method + " takes one request; the body holds no complete message"));
    }
    byte flag = body.getByte(body.readerIndex());
    long length = body.getUnsignedInt(body.readerIndex() + 1);
    if (flag != 0) {
      throw new StatusException(
          Status.of(Status.Code.INTERNAL, "message flag " + (flag & 0xff) + ": only uncompressed messages (flag 0) are accepted"));
    }
    long rest = body.readableBytes() - PREFIX;
    if (length != rest) {
      throw new StatusException(
          Status.of(
              Status.Code.INTERNAL,
              length > rest
                  ? "the body ended in the middle of a message"
                  : method + " takes one request; the body holds more than one message"));
    }
    return body.retainedSlice(body.readerIndex() + PREFIX, (int) length);
  }

  /** {@code message} (owned, released) behind a data frame's prefix. */
  static ByteBuf frame(ByteBufAllocator alloc, ByteBuf message) {
    try {
      ByteBuf out = alloc.buffer(PREFIX + message.readableBytes());
      out.writeByte(0).writeInt(message.readableBytes()).writeBytes(message);
      return out;
    } finally {
      message.release();
    }
  }

  /** The trailers frame: {@code grpc-status}, {@code grpc-message} and the trailer metadata. */
  static ByteBuf trailers(ByteBufAllocator alloc, Status status, Headers trailers) {
    StringBuilder sb = new StringBuilder(64);
    sb.append("grpc-status:").append(status.code().value()).append("\r\n");
    if (!status.description().isEmpty()) {
      sb.append("grpc-message:").append(StatusMessages.encode(status.description())).append("\r\n");
    }
    if (trailers != null) {
      for (Map.Entry<String, String> e : trailers.entries()) {
        if (!GrpcMetadata.isReserved(e.getKey())) {
          sb.append(e.getKey()).append(':').append(e.getValue()).append("\r\n");
        }
      }
    }
    byte[] bytes = sb.toString().getBytes(StandardCharsets.US_ASCII);
    ByteBuf out = alloc.buffer(PREFIX + bytes.length);
    out.writeByte(TRAILERS_FLAG).writeInt(bytes.length).writeBytes(bytes);
    return out;
  }

  /** {@code data} (owned, released) as base64 text, padded. */
  static ByteBuf toText(ByteBufAllocator alloc, ByteBuf data) {
    try {
      byte[] raw = new byte[data.readableBytes()];
      data.getBytes(data.readerIndex(), raw);
      byte[] text = Base64.getEncoder().encode(raw);
      return alloc.buffer(text.length).writeBytes(text);
    } finally {
      data.release();
    }
  }

  /**
   * A {@code -text} request body decoded: base64 in one or more padded segments, whitespace
   * ignored. A new heap buffer.
   *
   * @throws StatusException INTERNAL for text that is not base64
   */
  static ByteBuf fromText(ByteBuf text) {
    StringBuilder clean = new StringBuilder(text.readableBytes());
    for (int i = text.readerIndex(); i < text.writerIndex(); i++) {
      char c = (char) (text.getByte(i) & 0xff);
      if (c != ' ' && c != '\r' && c != '\n' && c != '\t') {
        clean.append(c);
      }
    }
    ByteBuf out = Unpooled.buffer(clean.length() / 4 * 3 + 3);
    try {
      int start = 0;
      for (int i = 0; i < clean.length(); i++) {
        // A segment ends after its padding: the quad boundary following an '='.
        if (clean.charAt(i) == '=' && (i + 1) % 4 == 0) {
          out.writeBytes(Base64.getDecoder().decode(clean.substring(start, i + 1)));
          start = i + 1;
        }
      }
      if (start < clean.length()) {
        out.writeBytes(Base64.getDecoder().decode(clean.substring(start)));
      }
      return out;
    } catch (IllegalArgumentException e) {
      out.release();
      throw new StatusException(Status.of(Status.Code.INTERNAL, "the grpc-web-text body is not base64: " + e.getMessage()));
    }
  }
}
