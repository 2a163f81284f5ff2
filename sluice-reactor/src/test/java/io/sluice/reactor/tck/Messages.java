package io.sluice.reactor.tck;

import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.Message;

/** Test messages from the pooled allocator, so the leak detector tracks them. */
final class Messages {
  private Messages() {}

  static Message pooled(String data) {
    return Message.utf8(PooledByteBufAllocator.DEFAULT, data);
  }
}
