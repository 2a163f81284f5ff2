package io.sluice.test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ReferenceCounted;
import io.sluice.Message;
import java.nio.charset.StandardCharsets;

/**
 * Creating and consuming {@link Message}s in tests. Creation methods hand ownership to the caller;
 * the {@code *AndRelease} methods take it: they read the message, then release it even when reading
 * fails, so a test that uses them cannot leak what it received.
 *
 * <p>Note: netty 4.2 does not leak-track unpooled heap buffers, so a leaked {@link #utf8} message
 * goes unnoticed by {@link LeakCheckExtension}; prefer {@link #pooled} where ownership is under
 * test.
 *
 * <p><b>Threads.</b> Stateless: call it from any thread.
 */
public final class TestMessages {
  private TestMessages() {}

  /** Metadata (null when absent) and data of a message, decoded as UTF-8. */
  public record Text(String metadata, String data) {}

  /** A message with UTF-8 data in an unpooled heap buffer. */
  public static Message utf8(String data) {
    return Message.utf8(UnpooledByteBufAllocator.DEFAULT, data);
  }

  /** A message with UTF-8 metadata ({@code null}: none) and data in unpooled heap buffers. */
  public static Message utf8(String metadata, String data) {
    return Message.utf8(UnpooledByteBufAllocator.DEFAULT, metadata, data);
  }

  /** A message with UTF-8 data in a buffer from {@link PooledByteBufAllocator#DEFAULT}. */
  public static Message pooled(String data) {
    return Message.utf8(PooledByteBufAllocator.DEFAULT, data);
  }

  /** A message with UTF-8 metadata ({@code null}: none) and data in pooled buffers. */
  public static Message pooled(String metadata, String data) {
    return Message.utf8(PooledByteBufAllocator.DEFAULT, metadata, data);
  }

  /** A message with UTF-8 metadata ({@code null}: none) and data from {@code alloc}. */
  public static Message utf8(ByteBufAllocator alloc, String metadata, String data) {
    return Message.utf8(alloc, metadata, data);
  }

  /** A message with {@code size} bytes of data (0, 1, 2, ... mod 256) from {@code alloc}. */
  public static Message ofSize(ByteBufAllocator alloc, int size) {
    ByteBuf data = alloc.buffer(size);
    for (int i = 0; i < size; i++) {
      data.writeByte(i);
    }
    return Message.of(data);
  }

  /** The data as UTF-8; releases the message. */
  public static String dataAndRelease(Message message) {
    try {
      return message.data().toString(StandardCharsets.UTF_8);
    } finally {
      message.release();
    }
  }

  /** The metadata as UTF-8, or {@code null} if it has none; releases the message. */
  public static String metadataAndRelease(Message message) {
    try {
      return message.hasMetadata() ? message.metadata().toString(StandardCharsets.UTF_8) : null;
    } finally {
      message.release();
    }
  }

  /** Metadata and data as UTF-8; releases the message. */
  public static Text textAndRelease(Message message) {
    try {
      return new Text(
          message.hasMetadata() ? message.metadata().toString(StandardCharsets.UTF_8) : null,
          message.data().toString(StandardCharsets.UTF_8));
    } finally {
      message.release();
    }
  }

  /** The readable bytes of {@code buf} as UTF-8; releases it. */
  public static String utf8AndRelease(ByteBuf buf) {
    try {
      return buf.toString(StandardCharsets.UTF_8);
    } finally {
      buf.release();
    }
  }

  /** Releases every non-null object whose reference count is above zero; for cleanup paths. */
  public static void releaseAll(Iterable<? extends ReferenceCounted> objects) {
    for (ReferenceCounted o : objects) {
      if (o != null && o.refCnt() > 0) {
        o.release();
      }
    }
  }
}
