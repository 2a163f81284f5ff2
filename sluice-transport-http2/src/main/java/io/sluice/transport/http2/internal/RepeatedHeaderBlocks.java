package io.sluice.transport.http2.internal;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersDecoder;
import io.netty.handler.codec.http2.ReadOnlyHttp2Headers;
import io.netty.util.AsciiString;
import java.util.Map;

/**
 * A connection's HPACK decoding that remembers a few recent header blocks that left the decoder's
 * dynamic table alone, and answers a block seen again byte for byte with what it decoded to,
 * without decoding it: one read-only headers object, shared by every block it answers, or (headers
 * netty's read-only ones cannot hold, see {@link #readOnly}) a copy per block. A peer making the
 * same call over and over sends the same block every time once its encoder has settled: a gRPC
 * client's request headers, all of them fields the encoder indexed long ago, or h2load's, whose
 * {@code :path} nghttp2 sends as a literal it never indexes (then Huffman-decoded anew on every
 * call by netty's decoder); a client receives the same response headers and trailers on every call.
 *
 * <p>Why that is right: what a block decodes to depends only on its bytes, the dynamic table and
 * the decoder's limits. A block is remembered only if it has nothing but indexed fields and
 * literals that are not indexed ({@link #leavesTableAlone}): decoding it changes nothing. Every
 * remembered block is forgotten when any block may change the table (a literal with incremental
 * indexing, a table size update, anything the scan does not understand), when a decode fails
 * (netty may have changed the table before it failed), and when netty changes the decoder's
 * limits ({@link #maxHeaderTableSize(long)}, {@link #maxHeaderListSize(long, long)}). So a block
 * that matches a remembered one meets the very table and limits it was decoded against, and
 * decodes to the same headers (netty's checks included, which passed then). The checks netty makes
 * after decoding (pseudo-headers a request needs, content-length) still run on what is handed out.
 * Nothing in Sluice changes the headers it receives; netty's decoder does once, writing {@code
 * content-length} back normalized, so headers with that field are always copies. Any other change
 * would throw (read-only), not reach the next stream.
 *
 * <p>Bounded: {@link #SLOTS} blocks of at most {@link #MAX_BLOCK} bytes and {@link #MAX_FIELDS}
 * fields each, the arrays made when the first block is remembered. A block is remembered on its
 * first sighting (its bytes) and its headers on its second, so a peer whose blocks never repeat
 * (a deadline that changes on every call) costs a scan and a short copy per block. Confined to the
 * connection's event loop.
 */
final class RepeatedHeaderBlocks implements Http2HeadersDecoder, Http2HeadersDecoder.Configuration {
  static final int SLOTS = 4;
  static final int MAX_BLOCK = 256;
  static final int MAX_FIELDS = 16;

  private final Http2HeadersDecoder decoder;
  private final Http2HeadersDecoder.Configuration config;
  /** Whether {@code decoder} validates header names (its headers then carry netty's validator). */
  private final boolean validate;
  /** The remembered blocks' bytes (null until one is); {@code lengths[i] == 0}: slot i is free. */
  private byte[][] blocks;
  private int[] lengths;
  /**
   * What block i decoded to, once seen twice (else null): read-only and handed out as it is, or
   * mutable and only ever copied.
   */
  private Http2Headers[] decoded;
  /** A direct block's bytes while {@link #find} compares them (made on first need). */
  private byte[] probe;
  /** The slot the next new block takes (round robin). */
  private int next;
  /** Decodes answered from a remembered block, for tests. */
  private long hits;
  /** The end of the integer or string the scan read last; -1 if it ran past the block. */
  private int scanned;
  /** The value of the integer the scan read last. */
  private int scannedValue;

  /** Over {@code decoder}, which validates header names if {@code validate}. */
  RepeatedHeaderBlocks(Http2HeadersDecoder decoder, boolean validate) {
    this.decoder = decoder;
    this.config = decoder.configuration();
    this.validate = validate;
  }

  @Override
  public Http2Headers decodeHeaders(int streamId, ByteBuf block) throws Http2Exception {
    int length = block.readableBytes();
    boolean small = length > 0 && length <= MAX_BLOCK;
    int slot = -1;
    if (small && blocks != null) {
      slot = find(block, length);
      if (slot >= 0 && decoded[slot] != null) {
        block.skipBytes(length);
        hits++;
        Http2Headers d = decoded[slot];
        return d instanceof ReadOnlyHttp2Headers ? d : copy(d, validate);
      }
    }
    // A block too long to remember is scanned only if there is something to forget.
    boolean alone = (small || blocks != null) && leavesTableAlone(block);
    if (!alone) {
      forget(); // this block may change the table, and with it what the remembered ones mean
    }
    boolean keep = small && alone;
    int start = block.readerIndex();
    Http2Headers headers;
    try {
      headers = decoder.decodeHeaders(streamId, block);
    } catch (Http2Exception | RuntimeException e) {
      forget(); // netty may have changed the table before it failed
      throw e;
    }
    if (keep) {
      if (slot >= 0) {
        if (headers.size() <= MAX_FIELDS) {
          // Before anyone sees (and might change) the original: a read-only one, handed out as it
          // is from now on, or a copy, copied again for each block it answers.
          Http2Headers ro = readOnly(headers);
          decoded[slot] = ro != null ? ro : copy(headers, validate);
        }
      } else {
        remember(block, start, length);
      }
    }
    return headers;
  }

  /** The slot holding {@code block}'s readable bytes, or -1. */
  private int find(ByteBuf block, int length) {
    byte[] bytes = null;
    int offset = 0;
    for (int i = 0; i < SLOTS; i++) {
      if (lengths[i] != length) {
        continue;
      }
      if (bytes == null) {
        // The block's bytes as an array once, compared whole: a direct buffer (netty's inbound
        // buffers are) read byte by byte costs a bounds and liveness check per byte.
        if (block.hasArray()) {
          bytes = block.array();
          offset = block.arrayOffset() + block.readerIndex();
        } else {
          if (probe == null) {
            probe = new byte[MAX_BLOCK];
          }
          block.getBytes(block.readerIndex(), probe, 0, length);
          bytes = probe;
        }
      }
      if (java.util.Arrays.equals(blocks[i], 0, length, bytes, offset, offset + length)) {
        return i;
      }
    }
    return -1;
  }

  private void remember(ByteBuf block, int start, int length) {
    if (blocks == null) {
      blocks = new byte[SLOTS][];
      lengths = new int[SLOTS];
      decoded = new Http2Headers[SLOTS];
    }
    int i = next;
    next = (next + 1) % SLOTS;
    byte[] bytes = blocks[i];
    if (bytes == null || bytes.length < length) {
      bytes = new byte[Math.max(length, 64)];
      blocks[i] = bytes;
    }
    block.getBytes(start, bytes, 0, length);
    lengths[i] = length;
    decoded[i] = null;
  }

  /** Forgets every remembered block (keeps the arrays). */
  private void forget() {
    if (blocks != null) {
      java.util.Arrays.fill(lengths, 0);
      java.util.Arrays.fill(decoded, null);
    }
  }

  /**
   * {@code headers} as netty's read-only headers, which can be shared, or null when they cannot
   * say the same: its read-only headers know the pseudo-headers of a request (all four of
   * {@code :method}, {@code :path}, {@code :scheme}, {@code :authority}), of an answer ({@code
   * :status} alone) or none (trailers), and hold names and values as {@link AsciiString} (as
   * netty's decoder makes them). A request with {@code :protocol} (extended CONNECT), or without
   * {@code :authority}, is copied instead, and so are headers with {@code content-length}: netty's
   * connection decoder sets that field again on what it is handed (a read-only one would throw,
   * and fail the connection). The other fields keep their order.
   */
  static Http2Headers readOnly(Http2Headers headers) {
    AsciiString method = null, path = null, scheme = null, authority = null, status = null;
    int pseudo = 0;
    AsciiString[] others = new AsciiString[2 * headers.size()];
    int n = 0;
    for (Map.Entry<CharSequence, CharSequence> e : headers) {
      if (!(e.getKey() instanceof AsciiString name) || !(e.getValue() instanceof AsciiString value)) {
        return null;
      }
      if (!Http2Headers.PseudoHeaderName.hasPseudoHeaderFormat(name)) {
        if (HttpHeaderNames.CONTENT_LENGTH.contentEqualsIgnoreCase(name)) {
          return null; // netty's decoder sets it again (normalized) on the headers it hands on
        }
        others[n++] = name;
        others[n++] = value;
        continue;
      }
      pseudo++;
      if (Http2Headers.PseudoHeaderName.METHOD.value().contentEquals(name) && method == null) {
        method = value;
      } else if (Http2Headers.PseudoHeaderName.PATH.value().contentEquals(name) && path == null) {
        path = value;
      } else if (Http2Headers.PseudoHeaderName.SCHEME.value().contentEquals(name) && scheme == null) {
        scheme = value;
      } else if (Http2Headers.PseudoHeaderName.AUTHORITY.value().contentEquals(name) && authority == null) {
        authority = value;
      } else if (Http2Headers.PseudoHeaderName.STATUS.value().contentEquals(name) && status == null) {
        status = value;
      } else {
        return null; // :protocol, or one seen twice (netty's decoder refuses that already)
      }
    }
    if (n < others.length) {
      others = java.util.Arrays.copyOf(others, n);
    }
    if (pseudo == 0) {
      return ReadOnlyHttp2Headers.trailers(false, others);
    }
    if (pseudo == 1 && status != null) {
      return ReadOnlyHttp2Headers.serverHeaders(false, status, others);
    }
    if (pseudo == 4 && method != null && path != null && scheme != null && authority != null) {
      return ReadOnlyHttp2Headers.clientHeaders(false, method, path, scheme, authority, others);
    }
    return null;
  }

  /**
   * A copy with netty's decoder's validation settings (names as {@code validate} says, values not
   * checked), which makes the copy a plain walk over the entries: netty re-checks nothing when both
   * sides validate alike.
   */
  private static Http2Headers copy(Http2Headers headers, boolean validate) {
    Http2Headers c = new DefaultHttp2Headers(validate, false, headers.size());
    c.add(headers);
    return c;
  }

  /**
   * Whether decoding {@code block}'s readable bytes leaves the dynamic table as it is: only indexed
   * fields (RFC 7541 6.1) and literals without indexing or never indexed (6.2.2, 6.2.3), every one
   * whole. False for a literal with incremental indexing (6.2.1), a table size update (6.3), and
   * anything cut short or malformed, which the decoder is left to refuse.
   */
  boolean leavesTableAlone(ByteBuf block) {
    int end = block.writerIndex();
    int i = block.readerIndex();
    while (i < end) {
      int b = block.getUnsignedByte(i);
      if ((b & 0x80) != 0) { // indexed field
        readInt(block, i, end, 7);
        if (scanned < 0) {
          return false;
        }
        i = scanned;
      } else if ((b & 0xC0) == 0x40 || (b & 0xE0) == 0x20) {
        return false; // incremental indexing, or a table size update
      } else { // literal without indexing (0000) or never indexed (0001), 4-bit name index
        readInt(block, i, end, 4);
        if (scanned < 0) {
          return false;
        }
        i = scanned;
        if (scannedValue == 0) { // a literal name
          i = skipString(block, i, end);
          if (i < 0) {
            return false;
          }
        }
        i = skipString(block, i, end);
        if (i < 0) {
          return false;
        }
      }
    }
    return true;
  }

  /** Past the string literal at {@code i}, or -1 if it does not end in the block. */
  private int skipString(ByteBuf block, int i, int end) {
    if (i >= end) {
      return -1;
    }
    readInt(block, i, end, 7);
    if (scanned < 0 || scannedValue > end - scanned) {
      return -1;
    }
    return scanned + scannedValue;
  }

  /**
   * Reads the integer with a {@code prefix}-bit prefix at {@code i} (RFC 7541 5.1) into
   * {@link #scannedValue}, its end into {@link #scanned} (-1 if it runs past the block or past
   * 2^28).
   */
  private void readInt(ByteBuf block, int i, int end, int prefix) {
    int max = (1 << prefix) - 1;
    int value = block.getUnsignedByte(i) & max;
    i++;
    if (value == max) {
      int shift = 0;
      while (true) {
        if (i >= end || shift > 21) {
          scanned = -1;
          return;
        }
        int b = block.getUnsignedByte(i++);
        value += (b & 0x7F) << shift;
        shift += 7;
        if ((b & 0x80) == 0) {
          break;
        }
      }
    }
    scanned = i;
    scannedValue = value;
  }

  long hits() {
    return hits;
  }

  @Override
  public Http2HeadersDecoder.Configuration configuration() {
    return this;
  }

  @Override
  public void maxHeaderTableSize(long max) throws Http2Exception {
    forget();
    config.maxHeaderTableSize(max);
  }

  @Override
  public long maxHeaderTableSize() {
    return config.maxHeaderTableSize();
  }

  @Override
  public void maxHeaderListSize(long max, long goAwayMax) throws Http2Exception {
    forget();
    config.maxHeaderListSize(max, goAwayMax);
  }

  @Override
  public long maxHeaderListSize() {
    return config.maxHeaderListSize();
  }

  @Override
  public long maxHeaderListSizeGoAway() {
    return config.maxHeaderListSizeGoAway();
  }
}
