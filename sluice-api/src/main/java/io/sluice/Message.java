package io.sluice;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCounted;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One RSocket message: optional metadata and data, each a netty {@link ByteBuf}.
 *
 * <p><b>Ownership.</b> A message has exactly one owner at a time. Handing a message to Sluice (as a
 * request, a response or a stream element) transfers ownership: Sluice releases it once written.
 * A message Sluice hands to you (a response, a request to your responder, a stream element) is
 * yours: release it when done, typically with {@link #release()} or try-with-resources via {@link
 * #close()}. Inbound messages are retained slices of the socket's read buffer, so holding one keeps
 * that buffer alive.
 *
 * <p><b>Threads.</b> A message is not thread-safe, but may be handed from one thread to another.
 */
public final class Message implements ReferenceCounted, AutoCloseable {
  private final ByteBuf metadata; // null when the message has no metadata
  private final ByteBuf data;

  private Message(ByteBuf metadata, ByteBuf data) {
    this.metadata = metadata;
    this.data = Objects.requireNonNull(data, "data");
  }

  /** A message with data only; takes ownership of {@code data}. */
  public static Message of(ByteBuf data) {
    return new Message(null, data);
  }

  /**
   * A message with metadata and data; takes ownership of both. A {@code null} metadata means "no
   * metadata" (the frame's M flag is clear), which differs from empty metadata.
   */
  public static Message of(ByteBuf metadata, ByteBuf data) {
    return new Message(metadata, data);
  }

  /** A message whose data is the UTF-8 encoding of {@code data}, in a buffer from {@code alloc}. */
  public static Message utf8(ByteBufAllocator alloc, CharSequence data) {
    return new Message(null, ByteBufUtilLite.utf8(alloc, data));
  }

  /** A message whose metadata and data are UTF-8 text; a {@code null} metadata means none. */
  public static Message utf8(ByteBufAllocator alloc, CharSequence metadata, CharSequence data) {
    ByteBuf md = metadata == null ? null : ByteBufUtilLite.utf8(alloc, metadata);
    return new Message(md, ByteBufUtilLite.utf8(alloc, data));
  }

  /** A message with UTF-8 data in an unpooled heap buffer: convenient for tests and examples. */
  public static Message utf8(CharSequence data) {
    return new Message(null, Unpooled.copiedBuffer(data, StandardCharsets.UTF_8));
  }

  /** An empty message: no metadata, zero-length data. */
  public static Message empty() {
    return new Message(null, Unpooled.EMPTY_BUFFER);
  }

  public boolean hasMetadata() {
    return metadata != null;
  }

  /** The metadata, or an empty buffer if there is none. The message keeps ownership. */
  public ByteBuf metadata() {
    return metadata == null ? Unpooled.EMPTY_BUFFER : metadata;
  }

  /** The data. The message keeps ownership. */
  public ByteBuf data() {
    return data;
  }

  /** The data decoded as UTF-8, without consuming it. */
  public String dataUtf8() {
    return data.toString(StandardCharsets.UTF_8);
  }

  /** The metadata decoded as UTF-8, or {@code null} if the message has none. */
  public String metadataUtf8() {
    return metadata == null ? null : metadata.toString(StandardCharsets.UTF_8);
  }

  /** Metadata and data bytes together. */
  public int size() {
    return data.readableBytes() + (metadata == null ? 0 : metadata.readableBytes());
  }

  @Override
  public int refCnt() {
    return data.refCnt();
  }

  @Override
  public Message retain() {
    data.retain();
    if (metadata != null) {
      metadata.retain();
    }
    return this;
  }

  @Override
  public Message retain(int increment) {
    data.retain(increment);
    if (metadata != null) {
      metadata.retain(increment);
    }
    return this;
  }

  @Override
  public Message touch() {
    return touch(null);
  }

  @Override
  public Message touch(Object hint) {
    data.touch(hint);
    if (metadata != null) {
      metadata.touch(hint);
    }
    return this;
  }

  @Override
  public boolean release() {
    boolean released = data.release();
    if (metadata != null) {
      metadata.release();
    }
    return released;
  }

  @Override
  public boolean release(int decrement) {
    boolean released = data.release(decrement);
    if (metadata != null) {
      metadata.release(decrement);
    }
    return released;
  }

  /** Same as {@link #release()}, for try-with-resources. */
  @Override
  public void close() {
    release();
  }

  @Override
  public String toString() {
    return "Message{metadata="
        + (metadata == null ? "none" : metadata.readableBytes() + "B")
        + ", data="
        + data.readableBytes()
        + "B}";
  }
}
