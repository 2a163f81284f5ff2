package io.sluice.rpc.rsocket;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import com.google.protobuf.UnsafeByteOperations;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.internal.PlatformDependent;
import io.sluice.Message;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Moves protobuf messages in and out of Sluice {@link Message}s: the data is the protobuf
 * encoding; the first message of a call also carries the encoded {@link CallMetadata}.
 *
 * <p><b>Threads.</b> Thread-safe: call it from any thread.
 *
 * <p><b>Buffers.</b> {@code encode}, {@code first} and {@code next} return a buffer or message that
 * the caller owns. {@code parse(Parser, Message)} releases the message, also when parsing fails;
 * {@code parse(Parser, ByteBuf)} leaves the buffer to its caller. A parsed protobuf message keeps
 * no reference to the buffer.
 */
public final class ProtoMessages {
  private ProtoMessages() {}

  /**
   * Messages up to this size are serialized into a new array wrapped as an unpooled buffer
   * (allocating a small array is cheaper than a pooled buffer, whose array access checks the pool
   * chunk's shared reference count on every message), and parsed by this thread's reusable
   * decoder ({@link ProtoCodecs}), whose array holds the whole message.
   */
  static final int SMALL_MESSAGE = 4096;

  /**
   * A buffer of exactly the size of the protobuf encoding of {@code m}, holding it; the caller owns
   * it. Small messages (up to 4 KiB) get a new array wrapped as a buffer; larger ones a heap
   * buffer of {@code alloc}, both written through protobuf's array encoder (the transport copies
   * the data into its frame, so a heap buffer costs no extra copy and spares the per-message NIO
   * views a direct buffer needs).
   */
  public static ByteBuf encode(ByteBufAllocator alloc, MessageLite m) {
    int size = m.getSerializedSize();
    if (size <= SMALL_MESSAGE) {
      byte[] bytes = new byte[size];
      try {
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        m.writeTo(out);
        out.checkNoSpaceLeft();
      } catch (IOException | RuntimeException e) {
        throw cannotEncode(e);
      }
      return Unpooled.wrappedBuffer(bytes);
    }
    ByteBuf buf = alloc.heapBuffer(size, size);
    try {
      CodedOutputStream out;
      if (buf.hasArray()) {
        out = CodedOutputStream.newInstance(buf.array(), buf.arrayOffset() + buf.writerIndex(), size);
      } else {
        ByteBuffer nio = buf.nioBuffer(buf.writerIndex(), size);
        out = CodedOutputStream.newInstance(nio);
      }
      m.writeTo(out);
      out.checkNoSpaceLeft();
      buf.writerIndex(buf.writerIndex() + size);
      return buf;
    } catch (IOException | RuntimeException e) {
      buf.release();
      throw cannotEncode(e);
    }
  }

  static StatusException cannotEncode(Exception e) {
    return new StatusException(Status.of(Status.Code.INTERNAL, "cannot encode " + e), e);
  }

  /** The first message of a call: call metadata plus the request. */
  public static Message first(ByteBufAllocator alloc, CallMetadata metadata, MessageLite request) {
    ByteBuf md = CallMetadataCodec.encodeCached(alloc, metadata);
    try {
      return Message.of(md, encode(alloc, request));
    } catch (RuntimeException e) {
      md.release();
      throw e;
    }
  }

  /**
   * The first frame of a client-streaming or bidi call that has no request message: the call
   * metadata with the no-message flag ({@link CallMetadataCodec#FLAG_NO_MESSAGE}) and empty data.
   */
  public static Message firstWithoutMessage(ByteBufAllocator alloc, CallMetadata metadata) {
    ByteBuf md = CallMetadataCodec.encode(alloc, metadata);
    CallMetadataCodec.setNoMessage(md);
    return Message.of(md, Unpooled.EMPTY_BUFFER);
  }

  /** A later message of a call: data only. */
  public static Message next(ByteBufAllocator alloc, MessageLite m) {
    return Message.of(encode(alloc, m));
  }

  /**
   * Parses the data of {@code message} and releases the message.
   *
   * <p>Messages up to 4 KiB are read from the data (a direct frame at its address) by this
   * thread's reusable decoder ({@link ProtoCodecs}): no copy of the frame, no decoder object. Larger
   * ones, and any on a virtual thread: heap data is parsed in place; direct or composite data is
   * copied once into a new array that the parsed message may alias for its {@code bytes} fields.
   *
   * @throws StatusException INTERNAL when the bytes are not a valid message of the type
   */
  public static <T> T parse(Parser<T> parser, Message message) {
    try {
      return parse(parser, message.data());
    } finally {
      message.release();
    }
  }

  private static final boolean UNSAFE = PlatformDependent.hasUnsafe();

  /**
   * Copies {@code len} bytes of {@code data} from {@code index} into {@code dst} at {@code off}
   * (within its readable bytes: the caller checked). Direct memory (a frame's data is a slice of
   * the transport's read buffer) is read at its address, heap memory from its array: the buffer
   * API would check the indexes and reference count at every level of slice and pool chunk, which
   * costs more than the copy itself for a message of a few dozen bytes.
   */
  static void copyOut(ByteBuf data, int index, byte[] dst, int off, int len) {
    if (UNSAFE && data.hasMemoryAddress()) {
      long address = data.memoryAddress() + index;
      if (len <= 32) {
        for (int i = 0; i < len; i++) {
          dst[off + i] = PlatformDependent.getByte(address + i);
        }
      } else {
        PlatformDependent.copyMemory(address, dst, off, len);
      }
    } else if (data.hasArray()) {
      // Heap data (a gRPC message the deframer copied) from its array, for the same reason.
      System.arraycopy(data.array(), data.arrayOffset() + index, dst, off, len);
    } else {
      data.getBytes(index, dst, off, len);
    }
  }

  /**
   * Parses the readable bytes of {@code data} (its indexes and reference count are left alone).
   *
   * @throws StatusException INTERNAL when the bytes are not a valid message of the type
   */
  public static <T> T parse(Parser<T> parser, ByteBuf data) {
    int len = data.readableBytes();
    if (len <= SMALL_MESSAGE && ProtoCodecs.keepsDecoder()) {
      return ProtoCodecs.parseSmall(parser, data, len);
    }
    CodedInputStream in;
    if (data.hasArray()) {
      // The array belongs to the buffer, which is released after parsing: no aliasing.
      in = CodedInputStream.newInstance(data.array(), data.arrayOffset() + data.readerIndex(), len);
    } else {
      byte[] copy = new byte[len];
      copyOut(data, data.readerIndex(), copy, 0, len);
      // Wrapped as an immutable ByteString, so that bytes fields really alias the copy.
      in = UnsafeByteOperations.unsafeWrap(copy).newCodedInput();
      in.enableAliasing(true);
    }
    try {
      T value = parser.parseFrom(in);
      in.checkLastTagWas(0);
      return value;
    } catch (InvalidProtocolBufferException e) {
      throw cannotParse(e);
    }
  }

  static StatusException cannotParse(InvalidProtocolBufferException e) {
    return new StatusException(Status.of(Status.Code.INTERNAL, "cannot parse message: " + e.getMessage()), e);
  }
}
