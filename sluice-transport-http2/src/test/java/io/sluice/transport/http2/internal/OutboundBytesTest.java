package io.sluice.transport.http2.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link OutboundBytes}' counted promises: what the count's listener throws as a promise completes
 * stays there, as it would in a promise's listener, and never reaches the channel's outbound buffer
 * in the middle of its bookkeeping (the rest of its writes would go unwritten, unreleased or
 * uncompleted); and the count hears of each write before the write's other listeners.
 */
class OutboundBytesTest {
  /** A channel, and a count over it whose listener throws when it hears "writable again". */
  private final EmbeddedChannel ch = new EmbeddedChannel();

  /** The connection's flushes, as the count sees them. */
  private long flushes;

  private final OutboundBytes count =
      new OutboundBytes(ch, () -> flushes, writable -> {
        if (writable) {
          throw new IllegalStateException("the listener's own failure");
        }
      });

  @AfterEach
  void close() {
    ch.finishAndReleaseAll();
  }

  private ByteBuf bytes(int n) {
    return Unpooled.buffer(n).writeZero(n);
  }

  /** Two writes counted past a high water mark of 10 (the count unwritable): 100 bytes, then 5. */
  private ChannelPromise[] twoWritesPastTheHighWater() {
    count.highWater(10);
    ChannelPromise[] p = {count.track(100), count.track(5)};
    count.checkHighWater();
    assertThat(count.writable()).isFalse();
    return p;
  }

  @Test
  void aListenerThatThrowsAsAWriteCompletesLeavesTheOtherWritesAlone() {
    ChannelPromise[] p = twoWritesPastTheHighWater();
    ChannelPromise first = p[0];
    ChannelPromise second = p[1];
    ch.write(bytes(100), first);
    ch.write(bytes(5), second);
    flushes++;
    ch.flush(); // the first write's completion makes the count writable again: the listener throws
    assertThat(first.isSuccess()).as("first write").isTrue();
    assertThat(second.isSuccess()).as("second write (%s)", second.cause()).isTrue();
    assertThat(ch.isOpen()).as("channel open").isTrue();
    assertThat(count.writable()).isTrue();
    assertThat(count.written()).isEqualTo(105);
  }

  @Test
  void aListenerThatThrowsAsTheCloseFailsAWriteLeavesTheCloseWhole() {
    ChannelPromise[] p = twoWritesPastTheHighWater();
    ChannelPromise first = p[0];
    ChannelPromise second = p[1];
    ByteBuf a = bytes(100);
    ByteBuf b = bytes(5);
    ch.write(a, first);
    ch.write(b, second);
    ch.close(); // fails both unflushed writes: the first failure makes the count writable again
    assertThat(first.isDone() && second.isDone()).as("both writes complete").isTrue();
    assertThat(first.isSuccess() || second.isSuccess()).as("a write succeeded").isFalse();
    assertThat(a.refCnt() + b.refCnt()).as("references left to the two buffers").isZero();
    assertThat(ch.isActive()).as("channel active").isFalse();
    assertThat(count.written()).isZero();
    assertThat(count.unsent()).isZero();
  }

  @Test
  void theCountHearsOfAWriteBeforeItsOtherListeners() {
    ChannelPromise p = count.track(40);
    List<Long> unsentSeen = new ArrayList<>();
    p.addListener(f -> unsentSeen.add(count.unsent()));
    ch.write(bytes(40), p);
    flushes++;
    assertThat(count.unsent()).as("unsent bytes once flushed").isEqualTo(40);
    ch.flush();
    assertThat(unsentSeen).as("unsent bytes a listener of the write sees").containsExactly(0L);
  }

  @Test
  void aFailureWithoutACauseIsRefusedAndCountsNothing() {
    ChannelPromise p = count.track(10);
    flushes++;
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> p.tryFailure(null))
        .isInstanceOf(NullPointerException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> p.setFailure(null))
        .isInstanceOf(NullPointerException.class);
    assertThat(count.unsent()).as("unsent bytes after the refused failures").isEqualTo(10);
    p.setSuccess();
    assertThat(count.unsent()).as("unsent bytes once written").isZero();
    assertThat(count.written()).isEqualTo(10);
  }
}
