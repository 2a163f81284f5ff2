package io.sluice.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.test.Hex;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CompositeMetadataTest {
  private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
  private final List<ByteBuf> buffers = new ArrayList<>();

  private ByteBuf buf() {
    ByteBuf b = ALLOC.buffer();
    buffers.add(b);
    return b;
  }

  private ByteBuf hex(String hex) {
    return buf().writeBytes(Hex.decode(hex));
  }

  private ByteBuf utf8(String s) {
    return buf().writeBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  @AfterEach
  void release() {
    buffers.forEach(ByteBuf::release);
  }

  @Test
  void wellKnownEntryIsIdWithTopBitThenU24LengthThenContent() {
    ByteBuf out = buf();
    CompositeMetadata.encodeEntry(out, WellKnownMimeType.APPLICATION_JSON, utf8("{}"));
    assertThat(Hex.encode(out)).isEqualTo("85" + "000002" + "7b7d");
  }

  @Test
  void customMimeTypeIsWrittenWithItsLengthMinusOne() {
    ByteBuf out = buf();
    CompositeMetadata.encodeEntry(out, "text/x.sluice", utf8("hi"));
    // 13 characters: header 0x0c (length - 1, as rsocket-java and Spring write it).
    assertThat(Hex.encode(out)).isEqualTo("0c" + "746578742f782e736c75696365" + "000002" + "6869");
  }

  @Test
  void aMimeStringWithAWellKnownIdIsSentAsTheId() {
    ByteBuf out = buf();
    CompositeMetadata.encodeEntry(out, "message/x.rsocket.routing.v0", utf8("x"));
    assertThat(Hex.encode(out)).startsWith("fe000001");
  }

  @Test
  void routeEntryIsWrittenInPlace() {
    ByteBuf out = buf();
    CompositeMetadata.encodeRoute(out, "echo.route");
    assertThat(Hex.encode(out)).isEqualTo("fe" + "00000b" + "0a" + "6563686f2e726f757465");
    assertThat(CompositeMetadata.route(out)).isEqualTo("echo.route");
  }

  @Test
  void beginAndEndEntryFillInTheLength() {
    ByteBuf out = buf();
    int at = CompositeMetadata.beginEntry(out, "application/x.custom");
    out.writeBytes(new byte[300]);
    CompositeMetadata.endEntry(out, at);
    CompositeMetadata.Reader r = CompositeMetadata.reader(out);
    assertThat(r.next()).isTrue();
    assertThat(r.mimeType()).isEqualTo("application/x.custom");
    assertThat(r.contentLength()).isEqualTo(300);
    assertThat(r.next()).isFalse();
  }

  @Test
  void readerWalksEntriesInOrderIncludingDuplicates() {
    ByteBuf out = buf();
    CompositeMetadata.encodeRoute(out, "first.route");
    CompositeMetadata.encodeEntry(out, "text/x.sluice", utf8("custom"));
    CompositeMetadata.encodeEntry(out, WellKnownMimeType.TEXT_PLAIN, utf8("one"));
    CompositeMetadata.encodeEntry(out, WellKnownMimeType.TEXT_PLAIN, utf8("two"));
    List<String> seen = new ArrayList<>();
    CompositeMetadata.Reader r = CompositeMetadata.reader(out);
    while (r.next()) {
      String content =
          r.wellKnownType() == WellKnownMimeType.MESSAGE_RSOCKET_ROUTING
              ? RoutingMetadata.firstTag(r.content())
              : r.content().toString(StandardCharsets.UTF_8);
      seen.add(r.entry() + ":" + r.mimeType() + "=" + content);
    }
    assertThat(seen)
        .containsExactly(
            "1:message/x.rsocket.routing.v0=first.route",
            "2:text/x.sluice=custom",
            "3:text/plain=one",
            "4:text/plain=two");
    assertThat(CompositeMetadata.validate(out)).isEqualTo(4);
  }

  @Test
  void readerLeavesIndexesAndReferenceCountAlone() {
    ByteBuf out = buf();
    out.writeBytes(Hex.decode("ffff")); // bytes before the metadata: the reader starts at readerIndex
    out.readerIndex(2);
    CompositeMetadata.encodeEntry(out, WellKnownMimeType.TEXT_PLAIN, utf8("abc"));
    int reader = out.readerIndex();
    int writer = out.writerIndex();
    CompositeMetadata.Reader r = CompositeMetadata.reader(out);
    assertThat(r.next()).isTrue();
    assertThat(r.contentOffset()).isEqualTo(2 + 1 + 3);
    assertThat(r.content().toString(StandardCharsets.UTF_8)).isEqualTo("abc");
    assertThat(r.next()).isFalse();
    assertThat(out.readerIndex()).isEqualTo(reader);
    assertThat(out.writerIndex()).isEqualTo(writer);
    assertThat(out.refCnt()).isEqualTo(1);
  }

  @Test
  void readerIsReusable() {
    CompositeMetadata.Reader r = new CompositeMetadata.Reader();
    for (String tag : List.of("a", "bb")) {
      ByteBuf out = buf();
      CompositeMetadata.encodeRoute(out, tag);
      r.reset(out);
      assertThat(r.next()).isTrue();
      assertThat(RoutingMetadata.firstTag(r.content())).isEqualTo(tag);
    }
  }

  @Test
  void reservedWellKnownIdIsReportedByNumber() {
    ByteBuf in = hex("d0" + "000001" + "2a");
    CompositeMetadata.Reader r = CompositeMetadata.reader(in);
    assertThat(r.next()).isTrue();
    assertThat(r.isWellKnown()).isTrue();
    assertThat(r.wellKnownId()).isEqualTo(0x50);
    assertThat(r.wellKnownType()).isNull();
    assertThat(r.mimeType()).isNull();
    assertThat(r.contentLength()).isEqualTo(1);
  }

  @Test
  void mimeTypeEqualsComparesWithoutDecoding() {
    ByteBuf out = buf();
    CompositeMetadata.encodeEntry(out, "text/x.sluice", utf8(""));
    CompositeMetadata.encodeEntry(out, WellKnownMimeType.APPLICATION_JSON, utf8(""));
    CompositeMetadata.Reader r = CompositeMetadata.reader(out);
    r.next();
    assertThat(r.mimeTypeEquals("text/x.sluice")).isTrue();
    assertThat(r.mimeTypeEquals("text/x.sluicE")).isFalse();
    assertThat(r.mimeTypeEquals("text/x.sluice2")).isFalse();
    r.next();
    assertThat(r.mimeTypeEquals("application/json")).isTrue();
    assertThat(CompositeMetadata.find(out, "text/x.sluice")).isNotNull();
    assertThat(CompositeMetadata.find(out, WellKnownMimeType.APPLICATION_JSON)).isNotNull();
    assertThat(CompositeMetadata.find(out, WellKnownMimeType.TEXT_PLAIN)).isNull();
    assertThat(CompositeMetadata.route(out)).isNull();
  }

  @Test
  void emptyMetadataHasNoEntries() {
    assertThat(CompositeMetadata.reader(buf()).next()).isFalse();
    assertThat(CompositeMetadata.validate(buf())).isZero();
  }

  @Test
  void longestAndInvalidCustomMimeTypes() {
    ByteBuf out = buf();
    String longest = "x".repeat(CompositeMetadata.MAX_MIME_LENGTH);
    CompositeMetadata.encodeEntry(out, longest, utf8("v"));
    assertThat((int) out.getUnsignedByte(0)).isEqualTo(0x7F);
    CompositeMetadata.Reader r = CompositeMetadata.reader(out);
    r.next();
    assertThat(r.mimeType()).isEqualTo(longest);

    assertThatThrownBy(() -> CompositeMetadata.encodeEntry(buf(), "", utf8("v")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1..128");
    assertThatThrownBy(() -> CompositeMetadata.encodeEntry(buf(), longest + "x", utf8("v")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("got 129");
    assertThatThrownBy(() -> CompositeMetadata.encodeEntry(buf(), "text/\u00e9", utf8("v")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("US-ASCII");
  }

  @Test
  void contentAboveTheU24MaximumIsRefused() {
    ByteBuf out = buf();
    int at = CompositeMetadata.beginEntry(out, WellKnownMimeType.TEXT_PLAIN);
    out.ensureWritable(CompositeMetadata.MAX_CONTENT_LENGTH + 1);
    out.writerIndex(out.writerIndex() + CompositeMetadata.MAX_CONTENT_LENGTH + 1);
    assertThatThrownBy(() -> CompositeMetadata.endEntry(out, at))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("u24");
  }

  @Test
  void customMimeTypeRunningPastTheEndIsMalformed() {
    // Header says a 13-byte MIME string, only 4 bytes follow.
    ByteBuf in = hex("0c" + "74657874");
    CompositeMetadata.Reader r = CompositeMetadata.reader(in);
    assertThatThrownBy(r::next)
        .isInstanceOf(MalformedMetadataException.class)
        .hasMessage("composite metadata entry 1 at offset 0: its MIME type of 13 bytes runs past the end (4 bytes left)");
    assertThat(r.next()).as("a failed reader stays at the end").isFalse();
  }

  @Test
  void cutShortLengthIsMalformed() {
    ByteBuf in = hex("85" + "000001" + "41" + "85" + "00");
    CompositeMetadata.Reader r = CompositeMetadata.reader(in);
    assertThat(r.next()).isTrue();
    assertThatThrownBy(r::next)
        .isInstanceOf(MalformedMetadataException.class)
        .hasMessage("composite metadata entry 2 at offset 5: its u24 length is cut short (1 bytes left)");
  }

  @Test
  void contentLengthPastTheEndIsMalformed() {
    ByteBuf in = hex("fe" + "0000ff" + "0a6563686f");
    assertThatThrownBy(() -> CompositeMetadata.route(in))
        .isInstanceOf(MalformedMetadataException.class)
        .hasMessageContaining("content length 255 runs past the end (5 bytes left)");
    assertThatThrownBy(() -> CompositeMetadata.validate(in)).isInstanceOf(MalformedMetadataException.class);
  }

  @Test
  void accessorsWithoutACurrentEntryFail() {
    CompositeMetadata.Reader r = CompositeMetadata.reader(buf());
    assertThatThrownBy(r::content).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> new CompositeMetadata.Reader().next()).isInstanceOf(IllegalStateException.class);
  }
}
