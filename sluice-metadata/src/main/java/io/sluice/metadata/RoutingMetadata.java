package io.sluice.metadata;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Routing metadata, {@code message/x.rsocket.routing.v0}: a list of tags, each a u8 length and that
 * many bytes of UTF-8. Spring Messaging puts its route (e.g. {@code "echo.route"}) in the first tag,
 * usually inside {@link CompositeMetadata}.
 *
 * <p>Encoders append to a buffer the caller owns; the {@link Reader} walks a buffer's readable
 * bytes without moving its indexes or retaining it.
 *
 * <p><b>Threads.</b> The static methods keep no state and may be called from any thread; a {@link
 * Reader} is for one thread at a time. <b>Buffers.</b> Nothing here releases or retains a buffer it
 * is given; {@code encode(ByteBufAllocator, CharSequence...)} returns a new buffer the caller
 * releases.
 */
public final class RoutingMetadata {
  /** The extension's MIME type. */
  public static final String MIME_TYPE = WellKnownMimeType.MESSAGE_RSOCKET_ROUTING.mimeType();

  /** Longest tag in UTF-8 bytes (u8 length). */
  public static final int MAX_TAG_LENGTH = 255;

  private RoutingMetadata() {}

  /**
   * Appends one tag.
   *
   * @throws IllegalArgumentException if the tag is empty or longer than 255 UTF-8 bytes
   */
  public static void encodeTag(ByteBuf out, CharSequence tag) {
    Objects.requireNonNull(tag, "tag");
    int length = ByteBufUtil.utf8Bytes(tag);
    if (length == 0 || length > MAX_TAG_LENGTH) {
      throw new IllegalArgumentException(
          "a routing tag must be 1.." + MAX_TAG_LENGTH + " UTF-8 bytes, got " + length + ": " + tag);
    }
    out.writeByte(length);
    ByteBufUtil.reserveAndWriteUtf8(out, tag, length);
  }

  /** Appends every tag, in order. */
  public static void encode(ByteBuf out, CharSequence... tags) {
    for (CharSequence tag : tags) {
      encodeTag(out, tag);
    }
  }

  /** Appends every tag, in order. */
  public static void encode(ByteBuf out, Iterable<? extends CharSequence> tags) {
    for (CharSequence tag : tags) {
      encodeTag(out, tag);
    }
  }

  /** A new buffer holding {@code tags}; the caller releases it. */
  public static ByteBuf encode(ByteBufAllocator alloc, CharSequence... tags) {
    ByteBuf out = alloc.buffer();
    try {
      encode(out, tags);
      return out;
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }

  /** Every tag, decoded. */
  public static List<String> tags(ByteBuf routing) {
    List<String> tags = new ArrayList<>();
    Reader r = reader(routing);
    while (r.next()) {
      tags.add(r.tag());
    }
    return tags;
  }

  /** The first tag, or null if there are none. */
  public static String firstTag(ByteBuf routing) {
    Reader r = reader(routing);
    return r.next() ? r.tag() : null;
  }

  public static Reader reader(ByteBuf routing) {
    return new Reader().reset(routing);
  }

  /** Walks the tags of a routing buffer. Reusable ({@link #reset}); not thread-safe. */
  public static final class Reader {
    private ByteBuf buf;
    private int position;
    private int end;
    private int index;
    private int tagOffset = -1;
    private int tagLength;

    public Reader reset(ByteBuf routing) {
      this.buf = Objects.requireNonNull(routing, "routing");
      this.position = routing.readerIndex();
      this.end = routing.writerIndex();
      this.index = 0;
      this.tagOffset = -1;
      return this;
    }

    /**
     * Moves to the next tag; false at the end.
     *
     * @throws MalformedMetadataException if the tag's length runs past the end
     */
    public boolean next() {
      if (buf == null) {
        throw new IllegalStateException("reset(ByteBuf) first");
      }
      if (position >= end) {
        tagOffset = -1;
        return false;
      }
      index++;
      int start = position;
      int length = buf.getUnsignedByte(position++);
      if (end - position < length) {
        int left = end - position;
        position = end;
        tagOffset = -1;
        throw new MalformedMetadataException(
            "routing tag " + index + " at offset " + (start - buf.readerIndex()) + ": its length "
                + length + " runs past the end (" + left + " bytes left)");
      }
      tagOffset = position;
      tagLength = length;
      position += length;
      return true;
    }

    private void checkTag() {
      if (tagOffset < 0) {
        throw new IllegalStateException("no current tag: call next() first");
      }
    }

    /** The current tag, decoded from UTF-8. */
    public String tag() {
      checkTag();
      return buf.toString(tagOffset, tagLength, StandardCharsets.UTF_8);
    }

    public int tagOffset() {
      checkTag();
      return tagOffset;
    }

    public int tagLength() {
      checkTag();
      return tagLength;
    }
  }
}
