package io.sluice.transport.grpc.internal.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.rsocket.CallMetadataCodec;

/**
 * The call metadata and request HEADERS of a call's first message, remembered for the call
 * metadata a connection sees again and again: clients reuse one encoding per method and options
 * when there is no deadline, so a repeated call costs a hash and a comparison of its few dozen
 * bytes instead of decoding names and headers and building the HEADERS. Calls with a deadline are
 * decoded each time (their {@code grpc-timeout} differs). Entries are matched by content, never by
 * buffer identity. The HEADERS are shared: netty encodes a new stream's HEADERS at once and keeps
 * nothing of them.
 *
 * <p><b>Threads.</b> The connection's event loop only. Holds copies of the bytes, no buffers.
 */
final class CallStarts {
  /** A call's metadata and its request HEADERS (shared: never modify them). */
  record Start(CallMetadata metadata, Http2Headers headers) {}

  private static final int SLOTS = 64;
  private static final int MAX_CACHED = 512; // bytes of metadata worth remembering

  private final AsciiString scheme;
  private final AsciiString authority;
  private final byte[][] keys = new byte[SLOTS][];
  private final Start[] starts = new Start[SLOTS];

  CallStarts(AsciiString scheme, AsciiString authority) {
    this.scheme = scheme;
    this.authority = authority;
  }

  /**
   * The start of a call whose first message has {@code metadata} (read, indexes left alone).
   *
   * @throws io.sluice.rpc.StatusException INVALID_ARGUMENT when it is not call metadata
   */
  Start of(ByteBuf metadata) {
    int n = metadata.readableBytes();
    int slot = -1;
    if (n <= MAX_CACHED) {
      slot = ByteBufUtil.hashCode(metadata) & (SLOTS - 1);
      byte[] key = keys[slot];
      if (key != null && key.length == n && same(metadata, key)) {
        return starts[slot];
      }
    }
    CallMetadata md = CallMetadataCodec.decode(metadata);
    Start s = new Start(md, RequestHeaders.of(scheme, authority, md));
    if (slot >= 0 && !md.hasTimeout()) {
      keys[slot] = ByteBufUtil.getBytes(metadata);
      starts[slot] = s;
    }
    return s;
  }

  private static boolean same(ByteBuf b, byte[] key) {
    int base = b.readerIndex();
    for (int i = 0; i < key.length; i++) {
      if (b.getByte(base + i) != key[i]) {
        return false;
      }
    }
    return true;
  }
}
