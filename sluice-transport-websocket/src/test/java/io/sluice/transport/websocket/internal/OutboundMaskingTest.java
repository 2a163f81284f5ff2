package io.sluice.transport.websocket.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link WebSocketFramePrefix}, the header the core writes in front of each frame, at the lengths
 * where its form changes, and {@link OutboundMasking}, a client's masking of what the core writes.
 */
class OutboundMaskingTest {
  private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

  private static byte[] pattern(int size, int seed) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) (i * 13 + seed);
    }
    return b;
  }

  /** A parsed header: payload length, where the payload starts, the key (0 if unmasked). */
  private record Header(long length, int size, boolean masked, int key) {
    static Header at(ByteBuf b, int i) {
      assertThat((int) b.getUnsignedByte(i)).as("FIN + binary").isEqualTo(0x82);
      int b1 = b.getUnsignedByte(i + 1);
      boolean masked = (b1 & 0x80) != 0;
      int len7 = b1 & 0x7F;
      long length;
      int size;
      if (len7 < 126) {
        length = len7;
        size = 2;
      } else if (len7 == 126) {
        length = b.getUnsignedShort(i + 2);
        size = 4;
      } else {
        length = b.getLong(i + 2);
        size = 10;
      }
      int key = masked ? b.getInt(i + size) : 0;
      return new Header(length, masked ? size + 4 : size, masked, key);
    }
  }

  @Test
  void theHeaderTakesTheShortestFormForEachLength() {
    int[] lengths = {0, 1, 125, 126, 127, 65535, 65536, 65537, 0xFFFFFF};
    int[] unmaskedSizes = {2, 2, 2, 4, 4, 4, 10, 10, 10};
    assertThat(WebSocketFramePrefix.SERVER.maxLength()).isEqualTo(10);
    assertThat(WebSocketFramePrefix.CLIENT.maxLength()).isEqualTo(14);
    for (int i = 0; i < lengths.length; i++) {
      for (WebSocketFramePrefix prefix :
          new WebSocketFramePrefix[] {WebSocketFramePrefix.SERVER, WebSocketFramePrefix.CLIENT}) {
        boolean client = prefix == WebSocketFramePrefix.CLIENT;
        ByteBuf b = ALLOC.buffer(16);
        try {
          prefix.write(b, lengths[i]);
          int expected = unmaskedSizes[i] + (client ? 4 : 0);
          assertThat(b.readableBytes())
              .as("header of %s bytes, client %s", lengths[i], client)
              .isEqualTo(expected);
          assertThat(expected).isEqualTo(WebSocketFrames.headerSize(lengths[i], client));
          Header h = Header.at(b, 0);
          assertThat(h.length()).isEqualTo(lengths[i]);
          assertThat(h.masked()).isEqualTo(client);
          assertThat(h.key()).as("the key is set when the batch is handed over").isZero();
        } finally {
          b.release();
        }
      }
    }
  }

  @Test
  void aBatchIsMaskedInPlaceEachFrameWithItsOwnKey() {
    int[] lengths = {5, 125, 126, 300, 1, 0, 8};
    ByteBuf batch = ALLOC.buffer(2048);
    for (int i = 0; i < lengths.length; i++) {
      WebSocketFramePrefix.CLIENT.write(batch, lengths[i]);
      batch.writeBytes(pattern(lengths[i], i));
    }
    ByteBuf out = new OutboundMasking().mask(batch, ALLOC);
    try {
      assertThat(out).as("masked in place").isSameAs(batch);
      Set<Integer> keys = new HashSet<>();
      int at = out.readerIndex();
      for (int i = 0; i < lengths.length; i++) {
        Header h = Header.at(out, at);
        assertThat(h.length()).isEqualTo(lengths[i]);
        keys.add(h.key());
        byte[] payload = new byte[lengths[i]];
        out.getBytes(at + h.size(), payload);
        if (lengths[i] >= 4) {
          assertThat(payload).as("frame %s is masked", i).isNotEqualTo(pattern(lengths[i], i));
        }
        assertThat(unmask(payload, h.key(), 0)).as("frame %s", i).isEqualTo(pattern(lengths[i], i));
        at += h.size() + lengths[i];
      }
      assertThat(at).isEqualTo(out.writerIndex());
      assertThat(keys).as("a fresh key per frame").hasSizeGreaterThan(1);
    } finally {
      out.release();
    }
  }

  @Test
  void aLargePayloadThatFollowsItsHeaderIsMaskedIntoACopyAndLeftAsItWas() {
    int length = 70_000;
    byte[] frame = pattern(length, 3);
    // The batch: a small frame, then the header of the large one and its first 7 bytes.
    ByteBuf batch = ALLOC.buffer(256);
    WebSocketFramePrefix.CLIENT.write(batch, 3);
    batch.writeBytes(pattern(3, 9));
    int largeAt = batch.writerIndex();
    WebSocketFramePrefix.CLIENT.write(batch, length);
    batch.writeBytes(frame, 0, 7);
    OutboundMasking masking = new OutboundMasking();
    ByteArrayOutputStream wire = new ByteArrayOutputStream();
    ByteBuf out = masking.mask(batch, ALLOC);
    Header large = Header.at(out, largeAt);
    assertThat(large.length()).isEqualTo(length);
    wire.writeBytes(ByteBufUtil.getBytes(out, largeAt + large.size(), 7));
    out.release();
    // The rest in pieces of every length modulo 4, as the application's buffers (kept by it).
    int at = 7;
    int[] pieces = {1, 2, 3, 5, 4, 6};
    int p = 0;
    while (at < length) {
      int n = Math.min(pieces[p++ % pieces.length] * 997, length - at);
      ByteBuf piece = ALLOC.buffer(n).writeBytes(frame, at, n);
      piece.retain(); // still the application's: must come back unchanged
      ByteBuf masked = masking.mask(piece, ALLOC);
      try {
        assertThat(masked).as("a copy").isNotSameAs(piece);
        assertThat(piece.refCnt()).as("the piece was released once").isEqualTo(1);
        assertThat(ByteBufUtil.getBytes(piece))
            .as("the application's buffer")
            .isEqualTo(Arrays.copyOfRange(frame, at, at + n));
        wire.writeBytes(ByteBufUtil.getBytes(masked));
      } finally {
        piece.release();
        masked.release();
      }
      at += n;
    }
    assertThat(unmask(wire.toByteArray(), large.key(), 0)).isEqualTo(frame);

    // Then a new batch again, masked in place.
    ByteBuf next = ALLOC.buffer(16);
    WebSocketFramePrefix.CLIENT.write(next, 4);
    next.writeBytes(pattern(4, 1));
    ByteBuf nextOut = masking.mask(next, ALLOC);
    try {
      assertThat(nextOut).isSameAs(next);
      Header h = Header.at(nextOut, 0);
      byte[] payload = ByteBufUtil.getBytes(nextOut, h.size(), 4);
      assertThat(unmask(payload, h.key(), 0)).isEqualTo(pattern(4, 1));
    } finally {
      nextOut.release();
    }
  }

  @Test
  void moreBytesThanTheFrameHasLeftIsABugReportedAsSuch() {
    ByteBuf batch = ALLOC.buffer(64);
    WebSocketFramePrefix.CLIENT.write(batch, 200);
    batch.writeZero(10);
    OutboundMasking masking = new OutboundMasking();
    masking.mask(batch, ALLOC).release();
    ByteBuf tooLong = ALLOC.buffer(191).writeZero(191);
    assertThatThrownBy(() -> masking.mask(tooLong, ALLOC))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("191 bytes written where 190 bytes");
    assertThat(tooLong.refCnt()).isZero();
  }

  /** XORs {@code b} with {@code key}, the first byte at key byte {@code phase}. */
  private static byte[] unmask(byte[] b, int key, int phase) {
    byte[] out = b.clone();
    for (int i = 0; i < out.length; i++) {
      out[i] ^= (byte) (key >>> (24 - 8 * ((i + phase) & 3)));
    }
    return out;
  }
}
