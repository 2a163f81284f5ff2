package io.sluice.metadata;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Composite metadata, {@code message/x.rsocket.composite-metadata.v0}: any number of entries, each
 * a MIME type and a u24-length-prefixed content, kept in order.
 *
 * <pre>
 * entry := u8 header, [MIME string], u24 content length, content
 * header: bit 7 set   - bits 0..6 are a well-known MIME id ({@link WellKnownMimeType})
 *         bit 7 clear - bits 0..6 are the MIME string's length minus one (1..128 bytes follow)
 * </pre>
 *
 * <p>The extension text says "length", but rsocket-java and Spring write the length minus one (a
 * MIME string is never empty), and so does this codec, for interop.
 *
 * <p><b>Encoding</b> appends to a buffer the caller owns: {@link #encodeEntry} copies a content
 * buffer in (it does not release it); {@link #beginEntry}/{@link #endEntry} let the content be
 * written straight into {@code out} (for example by {@link RoutingMetadata#encodeTag}) with no
 * intermediate buffer.
 *
 * <pre>{@code
 * ByteBuf md = alloc.buffer();
 * int at = CompositeMetadata.beginEntry(md, WellKnownMimeType.MESSAGE_RSOCKET_ROUTING);
 * RoutingMetadata.encodeTag(md, "echo.route");
 * CompositeMetadata.endEntry(md, at);
 * }</pre>
 *
 * <p><b>Decoding</b> goes through a reusable {@link Reader}, which walks the readable bytes of a
 * buffer without moving its indexes, retaining it or allocating per entry.
 *
 * <p><b>Threads.</b> The static methods keep no state and may be called from any thread; a {@link
 * Reader} is for one thread at a time.
 *
 * <p><b>Buffers.</b> Nothing here releases or retains a buffer it is given. {@code
 * encode(ByteBufAllocator, String, ByteBuf)} returns a new buffer the caller releases; {@code find}
 * and {@link Reader#content()} return slices that are not retained, valid only while the composite
 * buffer is.
 */
public final class CompositeMetadata {
  /** The extension's MIME type, for SETUP's metadata MIME type. */
  public static final String MIME_TYPE =
      WellKnownMimeType.MESSAGE_RSOCKET_COMPOSITE_METADATA.mimeType();

  /** Largest content of one entry (u24). */
  public static final int MAX_CONTENT_LENGTH = 0xFFFFFF;

  /** Longest custom MIME string (its length minus one must fit 7 bits). */
  public static final int MAX_MIME_LENGTH = 128;

  private static final int WELL_KNOWN = 0x80;

  private CompositeMetadata() {}

  // ---- encoding --------------------------------------------------------------------------------

  /**
   * Appends an entry with a well-known MIME id and a copy of {@code content}'s readable bytes.
   * {@code content} is not released and its indexes do not move.
   */
  public static void encodeEntry(ByteBuf out, WellKnownMimeType mimeType, ByteBuf content) {
    Objects.requireNonNull(content, "content");
    checkContentLength(content.readableBytes());
    int at = beginEntry(out, mimeType);
    out.writeBytes(content, content.readerIndex(), content.readableBytes());
    endEntry(out, at);
  }

  /**
   * Appends an entry for {@code mimeType} (sent as its well-known id if it has one) with a copy of
   * {@code content}'s readable bytes.
   */
  public static void encodeEntry(ByteBuf out, String mimeType, ByteBuf content) {
    Objects.requireNonNull(content, "content");
    checkContentLength(content.readableBytes());
    int at = beginEntry(out, mimeType);
    out.writeBytes(content, content.readerIndex(), content.readableBytes());
    endEntry(out, at);
  }

  /** A new buffer holding one entry; the caller releases it. */
  public static ByteBuf encode(ByteBufAllocator alloc, String mimeType, ByteBuf content) {
    ByteBuf out = alloc.buffer();
    try {
      encodeEntry(out, mimeType, content);
      return out;
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }

  /**
   * Writes an entry's header with a well-known id and a placeholder length; the content follows in
   * {@code out}, then {@link #endEntry} with the returned index fills the length in.
   */
  public static int beginEntry(ByteBuf out, WellKnownMimeType mimeType) {
    Objects.requireNonNull(mimeType, "mimeType");
    out.writeByte(WELL_KNOWN | mimeType.id());
    int at = out.writerIndex();
    out.writeMedium(0);
    return at;
  }

  /** Like {@link #beginEntry(ByteBuf, WellKnownMimeType)} for any MIME type (US-ASCII, 1..128). */
  public static int beginEntry(ByteBuf out, String mimeType) {
    Objects.requireNonNull(mimeType, "mimeType");
    WellKnownMimeType known = WellKnownMimeType.fromMimeType(mimeType);
    if (known != null) {
      return beginEntry(out, known);
    }
    int length = mimeType.length();
    if (length == 0 || length > MAX_MIME_LENGTH) {
      throw new IllegalArgumentException(
          "a composite metadata MIME type must be 1.." + MAX_MIME_LENGTH + " characters, got " + length);
    }
    for (int i = 0; i < length; i++) {
      if (mimeType.charAt(i) > 0x7F) {
        throw new IllegalArgumentException("a composite metadata MIME type must be US-ASCII: " + mimeType);
      }
    }
    out.writeByte(length - 1);
    out.writeCharSequence(mimeType, StandardCharsets.US_ASCII);
    int at = out.writerIndex();
    out.writeMedium(0);
    return at;
  }

  /** Fills in the length of the entry started by {@link #beginEntry} at {@code lengthIndex}. */
  public static void endEntry(ByteBuf out, int lengthIndex) {
    int length = out.writerIndex() - lengthIndex - 3;
    if (length < 0) {
      throw new IllegalArgumentException("endEntry: index " + lengthIndex + " is past the buffer's end");
    }
    checkContentLength(length);
    out.setMedium(lengthIndex, length);
  }

  /** Appends a routing entry ({@link RoutingMetadata}) holding {@code tags}. */
  public static void encodeRoute(ByteBuf out, CharSequence... tags) {
    int at = beginEntry(out, WellKnownMimeType.MESSAGE_RSOCKET_ROUTING);
    RoutingMetadata.encode(out, tags);
    endEntry(out, at);
  }

  private static void checkContentLength(int length) {
    if (length > MAX_CONTENT_LENGTH) {
      throw new IllegalArgumentException(
          "composite metadata entry of " + length + " bytes exceeds the u24 maximum " + MAX_CONTENT_LENGTH);
    }
  }

  // ---- decoding --------------------------------------------------------------------------------

  /** A reader over {@code composite}'s readable bytes. */
  public static Reader reader(ByteBuf composite) {
    return new Reader().reset(composite);
  }

  /**
   * The content of the first entry of type {@code mimeType} as a slice (not retained), or null.
   * Checks the entries it walks over.
   */
  public static ByteBuf find(ByteBuf composite, WellKnownMimeType mimeType) {
    Reader r = reader(composite);
    while (r.next()) {
      if (r.wellKnownType() == mimeType) {
        return r.content();
      }
    }
    return null;
  }

  /** The content of the first entry whose MIME type is {@code mimeType}, or null. */
  public static ByteBuf find(ByteBuf composite, String mimeType) {
    WellKnownMimeType known = WellKnownMimeType.fromMimeType(mimeType);
    if (known != null) {
      return find(composite, known);
    }
    Reader r = reader(composite);
    while (r.next()) {
      if (r.mimeTypeEquals(mimeType)) {
        return r.content();
      }
    }
    return null;
  }

  /** The first tag of the first routing entry (a Spring-style route), or null if there is none. */
  public static String route(ByteBuf composite) {
    ByteBuf routing = find(composite, WellKnownMimeType.MESSAGE_RSOCKET_ROUTING);
    return routing == null ? null : RoutingMetadata.firstTag(routing);
  }

  /** Checks every entry; throws {@link MalformedMetadataException} on the first bad one. */
  public static int validate(ByteBuf composite) {
    Reader r = reader(composite);
    int entries = 0;
    while (r.next()) {
      entries++;
    }
    return entries;
  }

  /**
   * Walks the entries of a composite metadata buffer. Reusable ({@link #reset}); not thread-safe.
   * The buffer must stay unchanged and alive while the reader is used.
   *
   * <pre>{@code
   * CompositeMetadata.Reader r = CompositeMetadata.reader(metadata);
   * while (r.next()) {
   *   if (r.wellKnownType() == WellKnownMimeType.MESSAGE_RSOCKET_ROUTING) { ... r.content() ... }
   * }
   * }</pre>
   */
  public static final class Reader {
    private ByteBuf buf;
    private int position;
    private int end;
    private int entry;
    private int wellKnownId;
    private int mimeOffset;
    private int mimeLength;
    private int contentOffset;
    private int contentLength;

    /** Starts over on {@code composite}'s readable bytes. */
    public Reader reset(ByteBuf composite) {
      this.buf = Objects.requireNonNull(composite, "composite");
      this.position = composite.readerIndex();
      this.end = composite.writerIndex();
      this.entry = 0;
      this.wellKnownId = -1;
      this.contentOffset = -1;
      return this;
    }

    /**
     * Moves to the next entry; false at the end.
     *
     * @throws MalformedMetadataException if the entry does not fit the buffer
     */
    public boolean next() {
      if (buf == null) {
        throw new IllegalStateException("reset(ByteBuf) first");
      }
      if (position >= end) {
        contentOffset = -1;
        return false;
      }
      int start = position;
      entry++;
      int header = buf.getUnsignedByte(position++);
      if ((header & WELL_KNOWN) != 0) {
        wellKnownId = header & 0x7F;
        mimeOffset = -1;
        mimeLength = 0;
      } else {
        wellKnownId = -1;
        mimeLength = (header & 0x7F) + 1;
        if (end - position < mimeLength) {
          throw malformed(start, "its MIME type of " + mimeLength + " bytes runs past the end ("
              + (end - position) + " bytes left)");
        }
        mimeOffset = position;
        position += mimeLength;
      }
      if (end - position < 3) {
        throw malformed(start, "its u24 length is cut short (" + (end - position) + " bytes left)");
      }
      contentLength = buf.getUnsignedMedium(position);
      position += 3;
      if (end - position < contentLength) {
        throw malformed(start, "its content length " + contentLength + " runs past the end ("
            + (end - position) + " bytes left)");
      }
      contentOffset = position;
      position += contentLength;
      return true;
    }

    private MalformedMetadataException malformed(int offset, String what) {
      position = end;
      contentOffset = -1;
      return new MalformedMetadataException(
          "composite metadata entry " + entry + " at offset " + (offset - buf.readerIndex()) + ": " + what);
    }

    private void checkEntry() {
      if (contentOffset < 0) {
        throw new IllegalStateException("no current entry: call next() first");
      }
    }

    /** True if the current entry's MIME type is sent as a well-known id. */
    public boolean isWellKnown() {
      checkEntry();
      return wellKnownId >= 0;
    }

    /** The current entry's well-known id (0..127), or -1 for a MIME string. */
    public int wellKnownId() {
      checkEntry();
      return wellKnownId;
    }

    /** The current entry's well-known type, or null for a MIME string or a reserved id. */
    public WellKnownMimeType wellKnownType() {
      checkEntry();
      return wellKnownId >= 0 ? WellKnownMimeType.fromId(wellKnownId) : null;
    }

    /**
     * The current entry's MIME type as a string (allocates for MIME strings), or null for a
     * reserved well-known id this table does not know.
     */
    public String mimeType() {
      checkEntry();
      if (wellKnownId >= 0) {
        WellKnownMimeType t = WellKnownMimeType.fromId(wellKnownId);
        return t == null ? null : t.mimeType();
      }
      return buf.toString(mimeOffset, mimeLength, StandardCharsets.US_ASCII);
    }

    /** Whether the current entry's MIME type is {@code mimeType}, without allocating. */
    public boolean mimeTypeEquals(CharSequence mimeType) {
      checkEntry();
      if (wellKnownId >= 0) {
        WellKnownMimeType t = WellKnownMimeType.fromId(wellKnownId);
        return t != null && t.mimeType().contentEquals(mimeType);
      }
      if (mimeType.length() != mimeLength) {
        return false;
      }
      for (int i = 0; i < mimeLength; i++) {
        if ((char) buf.getUnsignedByte(mimeOffset + i) != mimeType.charAt(i)) {
          return false;
        }
      }
      return true;
    }

    /** Absolute index of the current entry's content in the buffer. */
    public int contentOffset() {
      checkEntry();
      return contentOffset;
    }

    /** Length of the current entry's content. */
    public int contentLength() {
      checkEntry();
      return contentLength;
    }

    /** The current entry's content as a slice of the buffer (not retained). */
    public ByteBuf content() {
      checkEntry();
      return buf.slice(contentOffset, contentLength);
    }

    /** 1-based number of the current entry. */
    public int entry() {
      return entry;
    }
  }
}
