package io.sluice.rpc.rsocket;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.Message;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.Headers;
import org.junit.jupiter.api.Test;

/** {@link RpcRequests}: rank and idempotent flag read from a request's call metadata in place. */
class RpcRequestsTest {

  /** A request whose metadata is {@code m} encoded, with a few bytes of data. */
  private static Message request(CallMetadata m) {
    ByteBuf md = CallMetadataCodec.encode(PooledByteBufAllocator.DEFAULT, m);
    return Message.of(md, PooledByteBufAllocator.DEFAULT.buffer().writeBytes(new byte[] {9, 9}));
  }

  private static Message rawMetadata(int... bytes) {
    ByteBuf md = PooledByteBufAllocator.DEFAULT.buffer();
    for (int b : bytes) {
      md.writeByte(b);
    }
    return Message.of(md, PooledByteBufAllocator.DEFAULT.buffer(0));
  }

  private static void checkAndRelease(Message m, int rank, boolean idempotent) {
    try {
      int ri = m.metadata() != null ? m.metadata().readerIndex() : 0;
      assertThat(RpcRequests.rank(m)).isEqualTo(rank);
      assertThat(RpcRequests.idempotent(m)).isEqualTo(idempotent);
      if (m.hasMetadata()) {
        assertThat(m.metadata().readerIndex()).as("indexes left alone").isEqualTo(ri);
      }
      assertThat(m.refCnt()).isOne();
    } finally {
      m.release();
    }
  }

  @Test
  void rankAndIdempotentFromEveryLayout() {
    checkAndRelease(request(CallMetadata.of("a.S", "M")), 0, false);
    checkAndRelease(request(CallMetadata.of("a.S", "M", Headers.EMPTY, -1, true, 0)), 0, true);
    checkAndRelease(request(CallMetadata.of("a.S", "M", Headers.EMPTY, -1, false, 7)), 7, false);
    checkAndRelease(request(CallMetadata.of("a.S", "M", Headers.EMPTY, 250, true, 3)), 3, true);
    checkAndRelease(
        request(CallMetadata.of("svc", "m", Headers.of("k", "v"), 250, false, 12)), 12, false);
    checkAndRelease(request(CallMetadata.of("s", "m", Headers.EMPTY, 1, true, -2)), -2, true);
  }

  @Test
  void aRequestThatIsNotAnRpcCallHasRankZeroAndIsNotIdempotent() {
    Message noMetadata = Message.of(null, PooledByteBufAllocator.DEFAULT.buffer().writeByte(1));
    checkAndRelease(noMetadata, 0, false);
    checkAndRelease(rawMetadata(2, 0x09, 1, 's', 1, 'm', 0, 0, 0, 5), 0, false); // version 2
    checkAndRelease(rawMetadata(1, 0x49, 1, 's', 1, 'm', 0, 0, 0, 5), 0, false); // reserved flag
    checkAndRelease(rawMetadata(1, 0x89, 1, 's', 1, 'm', 0, 0, 0, 5), 0, false); // reserved flag
    checkAndRelease(rawMetadata(1, 0x09, 1, 's', 1, 'm', 0, 0), 0, true); // truncated rank
    checkAndRelease(rawMetadata(1, 0x09, 9, 's', 1, 'm'), 0, false); // names overrun
    // names overrun with a deadline: the rank must not be read from inside the names
    checkAndRelease(rawMetadata(1, 0x0B, 9, 's', 1, 'm', 0, 0, 0, 5), 0, false);
    checkAndRelease(rawMetadata(1, 0x09, 0, 1, 'm', 0, 0, 0, 5), 0, false); // empty service
    checkAndRelease(rawMetadata(1, 0x01), 0, false); // too short
    checkAndRelease(rawMetadata(1, 0x09, 1, 's', 1, 'm', 0, 0, 0, 5), 5, true);
  }

  /** Flags 0x10 (no message) and 0x20 (response metadata) are part of format 1.1: still RPC calls. */
  @Test
  void theNoMessageAndResponseMetadataFlagsKeepRankAndIdempotent() {
    CallMetadata m = CallMetadata.of("s", "m", Headers.EMPTY, -1, true, 7);
    checkAndRelease(request(m.withResponseMetadata(true)), 7, true);
    checkAndRelease(request(CallMetadata.of("a.S", "M", Headers.of("k", "v"), 250, true, 3)
        .withResponseMetadata(true)), 3, true);
    checkAndRelease(rawMetadata(1, 0x19, 1, 's', 1, 'm', 0, 0, 0, 5), 5, true); // no-message
    checkAndRelease(rawMetadata(1, 0x39, 1, 's', 1, 'm', 0, 0, 0, 5), 5, true); // both
    checkAndRelease(rawMetadata(1, 0x2B, 1, 's', 1, 'm', 0, 0, 0, 1, 0, 0, 0, 4), 4, true);
  }
}
