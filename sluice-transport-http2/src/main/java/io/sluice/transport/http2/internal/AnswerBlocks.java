package io.sluice.transport.http2.internal;

import static io.netty.handler.codec.http2.Http2CodecUtil.FRAME_HEADER_LENGTH;
import static io.netty.handler.codec.http2.Http2Flags.END_HEADERS;
import static io.netty.handler.codec.http2.Http2Flags.END_STREAM;
import static io.netty.handler.codec.http2.Http2FrameTypes.HEADERS;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.Http2Headers;
import java.util.Map;

/**
 * The header blocks of a connection's whole answers ({@link H2Answers#writeWhole}) as its HPACK
 * encoder wrote them, kept to be written again without encoding while they mean the same.
 *
 * <p>A block made only of indexed fields (RFC 7541 6.1) leaves the encoder's dynamic table as it
 * was, so its bytes stay what the encoder would write for the same headers until the table
 * changes: when another header block is encoded on the connection (netty's frame writer tells
 * {@link AnswerWatch}, which calls {@link #changed}), or the peer's SETTINGS are applied (the ACK
 * written, same), or the table's maximum size is another. A block is kept from the second answer
 * on: the first adds its fields to the table (literals with indexing), the second finds them
 * there. Any other block, and any block longer than {@link #MAX_BLOCK}, is written through the
 * frame writer every time.
 *
 * <p>Also the answers' side of the {@link ControlFrameBudget}: an answer written past the frame
 * writer is counted here, as {@link AnswerWatch} counts those written through it.
 *
 * <p>Two blocks are kept, keyed by identity: the last response headers and the last trailers. On
 * the connection's event loop only.
 */
final class AnswerBlocks {
  /** The longest block kept: what the room around a whole answer's message holds. */
  static final int MAX_BLOCK = 16;

  final ControlFrameBudget budget;

  /** Header blocks encoded and settings applied on the connection so far: the table's version. */
  private long changes;

  private final Block headers = new Block();
  private final Block trailers = new Block();

  /** Answers and requests written with kept blocks only, for tests. */
  private long keptWrites;

  /** The connection's context as the frame writer is given it here: it copies what is written. */
  private RecordingContext recorder;

  AnswerBlocks(ControlFrameBudget budget) {
    this.budget = budget;
  }

  /**
   * An answer or a request went out with kept blocks only (no HPACK encoding, past netty's frame
   * writer): it counts for the control-frame budget as those written through it do.
   */
  void keptWrite() {
    budget.answered();
    keptWrites++;
  }

  long keptWrites() {
    return keptWrites;
  }

  /** A header block was encoded on the connection, or the peer's settings applied. */
  void changed() {
    changes++;
  }

  /**
   * The kept block for {@code h} (the headers ending the stream when {@code endStream}) if it is
   * still what the encoder would write, with table maximum {@code tableSize}; null if not.
   */
  byte[] valid(Http2Headers h, boolean endStream, long tableSize) {
    Block b = endStream ? trailers : headers;
    return b.key == h && b.version == changes && b.tableSize == tableSize ? b.bytes : null;
  }

  /**
   * Writes HEADERS {@code h} on stream {@code id} through the connection's frame writer (netty's
   * HPACK encoder, given a {@link RecordingContext}), and keeps the block written if it is made
   * of indexed fields only.
   */
  void write(H2Handler handler, int id, Http2Headers h, boolean endStream, ChannelPromise promise) {
    ChannelHandlerContext ctx = handler.ctx();
    if (recorder == null || recorder.delegate() != ctx) {
      recorder = new RecordingContext(ctx, Unpooled.buffer(FRAME_HEADER_LENGTH + MAX_BLOCK));
    }
    long before = changes;
    recorder.start();
    ByteBuf recorded;
    try {
      handler.encoder().frameWriter().writeHeaders(recorder, id, h, 0, endStream, promise);
    } finally {
      recorded = recorder.stop();
    }
    Block b = endStream ? trailers : headers;
    Block other = endStream ? headers : trailers;
    byte[] block = changes == before + 1 && recorded != null ? indexedOnly(recorded, id, endStream) : null;
    if (block == null) {
      b.key = null;
      return;
    }
    // This block changed nothing in the table: a block kept before it is still good.
    if (other.key != null && other.version == before) {
      other.version = changes;
    }
    b.key = h;
    b.bytes = block;
    b.version = changes;
    b.tableSize = handler.encoder().configuration().headersConfiguration().maxHeaderTableSize();
    b.listSize = listSize(h);
  }

  /** The header list size of {@code h} (RFC 9113 6.5.2), the kept one for a kept block. */
  long listSize(Http2Headers h, byte[] kept, boolean endStream) {
    return kept != null ? (endStream ? trailers : headers).listSize : listSize(h);
  }

  /** The size SETTINGS_MAX_HEADER_LIST_SIZE bounds (RFC 9113 6.5.2): names, values, 32 each. */
  static long listSize(Http2Headers h) {
    long size = 0;
    for (Map.Entry<CharSequence, CharSequence> e : h) {
      size += e.getKey().length() + e.getValue().length() + 32;
    }
    return size;
  }

  /**
   * The block of the one HEADERS frame in {@code frame}, if it is that frame (END_HEADERS, no
   * padding or priority, stream {@code id}) and its block holds only indexed fields, each an
   * integer with a 7-bit prefix after a set high bit; null otherwise.
   */
  static byte[] indexedOnly(ByteBuf frame, int id, boolean endStream) {
    int n = frame.readableBytes() - FRAME_HEADER_LENGTH;
    int at = frame.readerIndex();
    if (n <= 0 || n > MAX_BLOCK
        || frame.getUnsignedMedium(at) != n
        || frame.getUnsignedByte(at + 3) != HEADERS
        || frame.getUnsignedByte(at + 4) != (END_HEADERS | (endStream ? END_STREAM : 0))
        || frame.getInt(at + 5) != id) {
      return null;
    }
    int i = at + FRAME_HEADER_LENGTH;
    int end = i + n;
    while (i < end) {
      int b = frame.getUnsignedByte(i++);
      if ((b & 0x80) == 0) {
        return null; // a literal or a table size update
      }
      if ((b & 0x7f) == 0x7f) { // the index goes on in 7-bit groups while their high bit is set
        while (i < end && (frame.getUnsignedByte(i) & 0x80) != 0) {
          i++;
        }
        if (i == end) {
          return null;
        }
        i++;
      }
    }
    byte[] block = new byte[n];
    frame.getBytes(at + FRAME_HEADER_LENGTH, block);
    return block;
  }

  private static final class Block {
    Http2Headers key;
    byte[] bytes;
    long version;
    long tableSize;
    long listSize;
  }
}
