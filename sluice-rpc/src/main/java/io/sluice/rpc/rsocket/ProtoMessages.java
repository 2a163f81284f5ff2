package io.sluice.rpc.rsocket;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Moves protobuf messages in and out of Sluice {@link Message}s: the data is the protobuf
 * encoding; the first message of a call also carries the encoded {@link CallMetadata}.
 */
public final class ProtoMessages {
  private ProtoMessages() {}

  /** A buffer holding the protobuf encoding of {@code m}; the caller owns it. */
  public static ByteBuf encode(ByteBufAllocator alloc, MessageLite m) {
    int size = m.getSerializedSize();
    ByteBuf buf = alloc.buffer(size, size);
    try {
      ByteBuffer nio = buf.nioBuffer(0, size);
      CodedOutputStream out = CodedOutputStream.newInstance(nio);
      m.writeTo(out);
      out.checkNoSpaceLeft();
      buf.writerIndex(size);
      return buf;
    } catch (IOException | RuntimeException e) {
      buf.release();
      throw new StatusException(Status.of(Status.Code.INTERNAL, "cannot encode " + e), e);
    }
  }

  /** The first message of a call: call metadata plus the request. */
  public static Message first(ByteBufAllocator alloc, CallMetadata metadata, MessageLite request) {
    ByteBuf md = CallMetadataCodec.encode(alloc, metadata);
    try {
      return Message.of(md, encode(alloc, request));
    } catch (RuntimeException e) {
      md.release();
      throw e;
    }
  }

  /** A later message of a call: data only. */
  public static Message next(ByteBufAllocator alloc, MessageLite m) {
    return Message.of(encode(alloc, m));
  }

  /**
   * Parses the data of {@code message} and releases the message.
   *
   * @throws StatusException INTERNAL when the bytes are not a valid message of the type
   */
  public static <T> T parse(Parser<T> parser, Message message) {
    try {
      ByteBuf data = message.data();
      return parser.parseFrom(data.nioBuffer());
    } catch (InvalidProtocolBufferException e) {
      throw new StatusException(Status.of(Status.Code.INTERNAL, "cannot parse message: " + e.getMessage()), e);
    } finally {
      message.release();
    }
  }
}
