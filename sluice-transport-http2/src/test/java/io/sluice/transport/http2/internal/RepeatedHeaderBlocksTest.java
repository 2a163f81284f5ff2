package io.sluice.transport.http2.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link RepeatedHeaderBlocks} against netty's decoder alone: fed the same blocks, it must give the
 * same headers or the same failure, block after block, while answering repeated blocks without
 * decoding them.
 */
class RepeatedHeaderBlocksTest {

  @ParameterizedTest(name = "direct buffers: {0}")
  @ValueSource(booleans = {false, true})
  void aRepeatedBlockIsAnsweredWithoutDecodingAndNoAnswerCanChangeTheNext(boolean direct) throws Exception {
    RepeatedHeaderBlocks blocks = new RepeatedHeaderBlocks(netty(), true);
    byte[] block = h2loadLikeRequest("/grpc.testing.BenchmarkService/UnaryCall");
    Http2Headers first = decode(blocks, block, direct);
    Http2Headers second = decode(blocks, block, direct);
    assertThat(blocks.hits()).isZero(); // remembered on the first sighting, decoded on the second
    Http2Headers third = decode(blocks, block, direct);
    assertThat(blocks.hits()).isEqualTo(1);
    assertThat(entries(third)).isEqualTo(entries(first)).isEqualTo(entries(second));
    assertThat(third.path().toString()).isEqualTo("/grpc.testing.BenchmarkService/UnaryCall");
    assertThatThrownBy(() -> third.set("grpc-timeout", "1S")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> third.remove(":path")).isInstanceOf(UnsupportedOperationException.class);
    second.set("grpc-timeout", "1S"); // the decoder's own, which the remembered one is not
    second.remove(":path");
    Http2Headers fourth = decode(blocks, block, direct);
    assertThat(blocks.hits()).isEqualTo(2);
    assertThat(fourth).isSameAs(third); // shared: read-only
    assertThat(entries(fourth)).isEqualTo(entries(first));
  }

  /**
   * Answers and trailers are shared as requests are; headers netty's read-only ones cannot hold,
   * or that netty's decoder changes (content-length), are copied each time.
   */
  @Test
  void answersAndTrailersAreSharedAndWhatCannotBeReadOnlyIsCopiedEachTime() throws Exception {
    Http2Headers answer = new DefaultHttp2Headers().status("200").add("content-type", "application/grpc");
    Http2Headers trailers = new DefaultHttp2Headers().add("grpc-status", "0").add("x-b", "1").add("x-b", "2");
    Http2Headers connect =
        new DefaultHttp2Headers().method("CONNECT").scheme("https").authority("a").path("/ws").add(":protocol", "websocket");
    Http2Headers noAuthority = new DefaultHttp2Headers().method("POST").scheme("http").path("/p");
    // netty's connection decoder sets content-length again on what it is handed
    Http2Headers withLength =
        new DefaultHttp2Headers().method("POST").scheme("http").authority("a").path("/p").add("content-length", "5");
    for (Http2Headers h : List.of(answer, trailers, connect, noAuthority, withLength)) {
      RepeatedHeaderBlocks blocks = new RepeatedHeaderBlocks(netty(), true);
      byte[] block = encodeWithoutIndexing(h);
      Http2Headers seen = null;
      for (int i = 0; i < 4; i++) {
        Http2Headers got = decode(blocks, block, i % 2 == 0);
        assertThat(entries(got)).as("%s", h).isEqualTo(entries(h));
        boolean shared = h == answer || h == trailers;
        if (i == 3) { // the second answer from memory
          assertThat(got == seen).as("the same object for %s", h).isEqualTo(shared);
        }
        if (i == 2 && !shared) {
          got.add("x-mine", "1"); // a copy of its own: the next answer has no x-mine
        }
        seen = got;
      }
      assertThat(blocks.hits()).isEqualTo(2);
    }
  }

  @Test
  void aBlockThatIndexesAFieldIsNeverAnsweredFromMemory() throws Exception {
    RepeatedHeaderBlocks blocks = new RepeatedHeaderBlocks(netty(), true);
    Block b = new Block();
    b.literal(0x40, 6, 0, "x-a", "1"); // with incremental indexing: each decode adds an entry
    for (int i = 0; i < 5; i++) {
      decode(blocks, b.bytes());
    }
    assertThat(blocks.hits()).isZero();
  }

  @Test
  void aBlockThatChangesTheTableMakesEveryRememberedOneDecodeAgain() throws Exception {
    RepeatedHeaderBlocks blocks = new RepeatedHeaderBlocks(netty(), true);
    Block indexing = new Block();
    indexing.literal(0x40, 6, 0, "x-a", "first"); // entry 62
    decode(blocks, indexing.bytes());
    Block ref = new Block();
    ref.indexed(62);
    assertThat(decode(blocks, ref.bytes()).get("x-a").toString()).isEqualTo("first");
    assertThat(decode(blocks, ref.bytes()).get("x-a").toString()).isEqualTo("first");
    assertThat(decode(blocks, ref.bytes()).get("x-a").toString()).isEqualTo("first");
    assertThat(blocks.hits()).isEqualTo(1);
    Block another = new Block();
    another.literal(0x40, 6, 0, "x-b", "second"); // now entry 62; x-a is 63
    decode(blocks, another.bytes());
    assertThat(entries(decode(blocks, ref.bytes()))).containsExactly("x-b: second");
    assertThat(blocks.hits()).isEqualTo(1);
  }

  /** Random sequences from a small pool, so that blocks repeat; the two decoders must agree. */
  @Test
  void agreesWithNettysDecoderOnRandomSequences() throws Exception {
    long hits = 0;
    for (long seed = 1; seed <= 40; seed++) {
      hits += run(new Random(seed), 1500);
    }
    assertThat(hits).as("blocks answered from memory").isGreaterThan(2_000);
  }

  private static long run(Random random, int steps) throws Exception {
    DefaultHttp2HeadersEncoder encoder =
        new DefaultHttp2HeadersEncoder(
            (name, value) -> name.toString().startsWith("x-secret"), false, 16, 0);
    Http2HeadersDecoder plain = netty();
    RepeatedHeaderBlocks remembering = new RepeatedHeaderBlocks(netty(), true);
    List<Http2Headers> sets = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      sets.add(randomHeaders(random, i));
    }
    List<byte[]> sent = new ArrayList<>();
    for (int step = 0; step < steps; step++) {
      int what = random.nextInt(100);
      byte[] block;
      if (what < 60 && !sent.isEmpty()) {
        block = sent.get(sent.size() - 1 - random.nextInt(Math.min(sent.size(), 4))); // again
      } else if (what < 85) {
        ByteBuf out = Unpooled.buffer();
        encoder.encodeHeaders(1, sets.get(random.nextInt(sets.size())), out);
        block = bytes(out);
      } else if (what < 97) {
        block = randomRawBlock(random);
      } else if (what < 98) {
        long size = 64L * random.nextInt(80);
        encoder.configuration().maxHeaderTableSize(size);
        plain.configuration().maxHeaderTableSize(size);
        remembering.configuration().maxHeaderTableSize(size);
        continue;
      } else if (what < 99) {
        long max = 200 + random.nextInt(8000);
        plain.configuration().maxHeaderListSize(max, max + 100);
        remembering.configuration().maxHeaderListSize(max, max + 100);
        continue;
      } else {
        block = new byte[1 + random.nextInt(20)]; // noise
        random.nextBytes(block);
      }
      sent.add(block);
      String expected = outcome(plain, block);
      String actual = outcome(remembering, block);
      assertThat(actual).as("step %d", step).isEqualTo(expected);
    }
    return remembering.hits();
  }

  private static String outcome(Http2HeadersDecoder decoder, byte[] block) {
    try {
      return entries(decode(decoder, block)).toString();
    } catch (Exception e) {
      // The message up to the buffer it may describe (a leak-aware wrapper's name differs).
      String m = String.valueOf(e.getMessage());
      return "failed: " + e.getClass().getSimpleName() + " " + m.replaceAll("!.*", "!");
    }
  }

  private static Http2Headers randomHeaders(Random random, int n) {
    Http2Headers h = new DefaultHttp2Headers();
    h.method("POST").scheme("http").path("/svc.S/M" + n).authority("127.0.0.1:" + (4000 + n));
    h.add("content-type", "application/grpc");
    h.add("te", "trailers");
    int extra = random.nextInt(4);
    for (int i = 0; i < extra; i++) {
      h.add((random.nextBoolean() ? "x-secret-" : "x-meta-") + random.nextInt(3), "v" + random.nextInt(3));
    }
    return h;
  }

  /** Indexed fields and unindexed literals (what is remembered), sometimes out of range or cut. */
  private static byte[] randomRawBlock(Random random) {
    Block b = new Block();
    int fields = 1 + random.nextInt(6);
    for (int i = 0; i < fields; i++) {
      int kind = random.nextInt(40);
      if (kind < 15) {
        b.indexed(1 + random.nextInt(random.nextInt(10) == 0 ? 200 : 70));
      } else if (kind < 25) {
        b.literal(random.nextBoolean() ? 0x00 : 0x10, 4, 0, "x-lit-" + random.nextInt(3), "v" + random.nextInt(3));
      } else if (kind < 37) {
        b.literal(0x00, 4, 1 + random.nextInt(61), null, "/p" + random.nextInt(3));
      } else if (kind < 39) {
        b.literal(0x40, 6, 0, "x-idx-" + random.nextInt(3), "w" + random.nextInt(3)); // changes the table
      } else {
        b.sizeUpdate(64L * random.nextInt(80)); // changes the table
      }
    }
    byte[] bytes = b.bytes();
    if (random.nextInt(10) == 0 && bytes.length > 1) {
      return java.util.Arrays.copyOf(bytes, 1 + random.nextInt(bytes.length - 1)); // cut short
    }
    return bytes;
  }

  /** A request header block as h2load sends it once its encoder settled: :path not indexed. */
  private static byte[] h2loadLikeRequest(String path) {
    Block b = new Block();
    b.indexed(3); // :method POST
    b.indexed(6); // :scheme http
    b.literal(0x00, 4, 4, null, path); // :path, literal without indexing
    b.literal(0x00, 4, 1, null, "127.0.0.1:8080"); // :authority
    b.literal(0x00, 4, 31, null, "application/grpc"); // content-type
    b.literal(0x00, 4, 0, "te", "trailers");
    return b.bytes();
  }

  /** {@code headers} as a block of literals without indexing, names literal too (it leaves the table alone). */
  private static byte[] encodeWithoutIndexing(Http2Headers headers) {
    Block b = new Block();
    for (Map.Entry<CharSequence, CharSequence> e : headers) {
      b.literal(0x00, 4, 0, e.getKey().toString(), e.getValue().toString());
    }
    return b.bytes();
  }

  private static Http2HeadersDecoder netty() {
    return new DefaultHttp2HeadersDecoder(true, 8192, -1);
  }

  private static Http2Headers decode(Http2HeadersDecoder decoder, byte[] block) throws Exception {
    // Half the blocks (by their bytes, so both decoders get the same kind) in direct buffers, as
    // netty reads them off a socket.
    return decode(decoder, block, (java.util.Arrays.hashCode(block) & 1) != 0);
  }

  /** Decodes {@code block} from a heap or a direct buffer, after a byte skipped. */
  private static Http2Headers decode(Http2HeadersDecoder decoder, byte[] block, boolean direct) throws Exception {
    ByteBuf in =
        (direct ? Unpooled.directBuffer(block.length + 1) : Unpooled.buffer(block.length + 1))
            .writeByte(0xff)
            .writeBytes(block)
            .skipBytes(1);
    try {
      return decoder.decodeHeaders(3, in);
    } finally {
      in.release();
    }
  }

  /**
   * The fields as text: the pseudo-headers first and sorted (their order means nothing, and
   * netty's read-only headers keep their own), then the others in the order they came.
   */
  private static List<String> entries(Http2Headers headers) {
    List<String> pseudo = new ArrayList<>();
    List<String> out = new ArrayList<>();
    for (Map.Entry<CharSequence, CharSequence> e : headers) {
      String field = e.getKey() + ": " + e.getValue();
      (field.startsWith(":") ? pseudo : out).add(field);
    }
    java.util.Collections.sort(pseudo);
    pseudo.addAll(out);
    return pseudo;
  }

  private static byte[] bytes(ByteBuf buf) {
    byte[] b = new byte[buf.readableBytes()];
    buf.readBytes(b);
    buf.release();
    return b;
  }

  /** Writes HPACK representations (RFC 7541), strings without Huffman coding. */
  private static final class Block {
    private final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();

    void indexed(int index) {
      integer(0x80, 7, index);
    }

    /** {@code first}: 0x40 incremental indexing, 0x00 without indexing, 0x10 never indexed. */
    void literal(int first, int prefix, int nameIndex, String name, String value) {
      integer(first, prefix, nameIndex);
      if (nameIndex == 0) {
        string(name);
      }
      string(value);
    }

    void sizeUpdate(long size) {
      integer(0x20, 5, size);
    }

    private void string(String s) {
      byte[] b = s.getBytes(StandardCharsets.US_ASCII);
      integer(0x00, 7, b.length);
      out.write(b, 0, b.length);
    }

    private void integer(int first, int prefix, long value) {
      int max = (1 << prefix) - 1;
      if (value < max) {
        out.write(first | (int) value);
        return;
      }
      out.write(first | max);
      value -= max;
      while (value >= 128) {
        out.write((int) (value % 128 + 128));
        value /= 128;
      }
      out.write((int) value);
    }

    byte[] bytes() {
      return out.toByteArray();
    }
  }
}
