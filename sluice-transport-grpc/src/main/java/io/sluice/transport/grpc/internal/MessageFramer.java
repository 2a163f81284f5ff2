package io.sluice.transport.grpc.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import java.io.IOException;

/**
 * Frames one message for the gRPC wire: a 5-byte prefix (a compressed flag, then the length as a
 * big-endian u32) and the message, compressed when an encoding other than identity is given.
 *
 * <p>Safe from any thread (a netty thread keeps a 2 KiB scratch array). <b>Buffers.</b> {@link
 * #frame} takes ownership of its message (released, also on failure) and returns a buffer the
 * caller owns, as {@link #encode} does.
 */
public final class MessageFramer {
  private MessageFramer() {}

  /** Length of the prefix before each message. */
  public static final int PREFIX = 5;

  /** Messages up to this many bytes are copied behind their prefix rather than composed with it. */
  private static final int COPY_BELOW = 1024;

  /**
   * Messages up to this many bytes bound for a direct buffer are encoded, behind their prefix, into
   * a scratch array of the event loop's thread first ({@link #encodeInto}); only on netty's threads,
   * so that no other thread (a virtual thread per call) keeps one.
   */
  static final int SCRATCH = 2048;

  private static final FastThreadLocal<byte[]> SCRATCH_BYTES =
      new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
          return new byte[PREFIX + SCRATCH];
        }
      };

  /**
   * {@code message} encoded uncompressed straight behind its prefix in one new buffer of the exact
   * size: no intermediate array, no copy, no composite.
   *
   * @throws StatusException INTERNAL if the message cannot be encoded
   */
  public static ByteBuf encode(ByteBufAllocator alloc, MessageLite message) {
    return encode(alloc, message, 0, 0);
  }

  /**
   * Writes {@code message} ({@code size} its serialized size), uncompressed and behind its prefix,
   * at the writer index of {@code out}, which grows to hold {@code PREFIX + size} more bytes if it must.
   *
   * @throws StatusException INTERNAL when the message cannot be encoded ({@code out} then as before)
   */
  public static void encodeInto(ByteBuf out, MessageLite message, int size) {
    int start = out.writerIndex();
    try {
      out.ensureWritable(PREFIX + size);
      if (out.hasArray()) {
        // Prefix and message straight into the array: one bounds check for both.
        byte[] a = out.array();
        int at = out.arrayOffset() + start;
        putPrefix(a, at, size);
        CodedOutputStream cos = CodedOutputStream.newInstance(a, at + PREFIX, size);
        message.writeTo(cos);
        cos.checkNoSpaceLeft();
        out.writerIndex(start + PREFIX + size);
        return;
      }
      if (size <= SCRATCH && FastThreadLocalThread.currentThreadHasFastThreadLocal()) {
        // A small message into a direct buffer: protobuf's encoder over a ByteBuffer costs more to
        // set up than such a message costs to write, and writes it a byte at a time through the
        // ByteBuffer's checks; prefix and message into the event loop's scratch array, then one copy.
        byte[] scratch = SCRATCH_BYTES.get();
        putPrefix(scratch, 0, size);
        CodedOutputStream cos = CodedOutputStream.newInstance(scratch, PREFIX, size);
        message.writeTo(cos);
        cos.checkNoSpaceLeft();
        out.writeBytes(scratch, 0, PREFIX + size);
        return;
      }
      out.writeByte(0).writeInt(size);
      CodedOutputStream cos = CodedOutputStream.newInstance(out.nioBuffer(start + PREFIX, size));
      message.writeTo(cos);
      cos.flush();
      cos.checkNoSpaceLeft();
      out.writerIndex(start + PREFIX + size);
    } catch (IOException | RuntimeException e) {
      out.writerIndex(start);
      throw new StatusException(Status.of(Status.Code.INTERNAL, "cannot encode the response: " + e));
    }
  }

  /** An uncompressed message's prefix for {@code size} bytes at {@code a[at]}. */
  private static void putPrefix(byte[] a, int at, int size) {
    a[at] = 0;
    a[at + 1] = (byte) (size >>> 24);
    a[at + 2] = (byte) (size >>> 16);
    a[at + 3] = (byte) (size >>> 8);
    a[at + 4] = (byte) size;
  }

  /**
   * {@link #encode(ByteBufAllocator, MessageLite)} into a buffer with {@code headRoom} bytes before
   * the prefix (its reader index) and {@code tailRoom} after the message: room for the frame
   * headers and header blocks of a whole answer ({@code H2Answers.writeWhole}).
   */
  public static ByteBuf encode(ByteBufAllocator alloc, MessageLite message, int headRoom, int tailRoom) {
    int size = message.getSerializedSize();
    int capacity = headRoom + PREFIX + size + tailRoom;
    ByteBuf out = alloc.buffer(capacity, capacity);
    try {
      out.setIndex(headRoom, headRoom);
      encodeInto(out, message, size);
      return out;
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }

  /** {@code message} (released) with its prefix, compressed with {@code encoding}. */
  public static ByteBuf frame(ByteBufAllocator alloc, ByteBuf message, GrpcEncoding encoding) {
    ByteBuf body = message;
    boolean compressed = encoding != GrpcEncoding.IDENTITY;
    if (compressed) {
      try {
        body = encoding.compress(alloc, message);
      } finally {
        message.release();
      }
    }
    int len = body.readableBytes();
    if (len <= COPY_BELOW) {
      ByteBuf out = alloc.buffer(PREFIX + len);
      out.writeByte(compressed ? 1 : 0).writeInt(len).writeBytes(body);
      body.release();
      return out;
    }
    ByteBuf prefix = alloc.buffer(PREFIX);
    prefix.writeByte(compressed ? 1 : 0).writeInt(len);
    CompositeByteBuf out = alloc.compositeBuffer(2);
    out.addComponents(true, prefix, body);
    return out;
  }
}
