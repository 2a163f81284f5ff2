package io.sluice.transport.http2.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@link WriteStallGuard} on an embedded channel whose writes stay queued until flushed (the
 * socket "takes" them at the flush): high water mark 16 bytes, timeout 1 s, on a fake clock.
 */
class WriteStallGuardTest {
  private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(1);
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);

  private EmbeddedChannel channel() {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.config().setWriteBufferWaterMark(new WriteBufferWaterMark(8, 16));
    ch.freezeTime();
    ch.pipeline().addFirst(new WriteStallGuard(TIMEOUT, clock::get));
    return ch;
  }

  /** A guarded channel served as HTTP/1.1: reads stop while it is unwritable. */
  private EmbeddedChannel http1Channel() {
    EmbeddedChannel ch = channel();
    WriteStallGuard.pauseReadsWhileUnwritable(ch);
    return ch;
  }

  private static void queue(EmbeddedChannel ch, int bytes) {
    ch.write(Unpooled.wrappedBuffer(new byte[bytes]));
  }

  private void advance(EmbeddedChannel ch, long nanos) {
    clock.addAndGet(nanos);
    ch.advanceTimeBy(nanos, TimeUnit.NANOSECONDS);
    ch.runScheduledPendingTasks();
  }

  @Test
  void aPeerThatTakesNothingForTheTimeoutIsCut() {
    EmbeddedChannel ch = channel();
    queue(ch, 32);
    assertThat(ch.isWritable()).isFalse();
    advance(ch, TIMEOUT - 1);
    assertThat(ch.isOpen()).as("open before the timeout").isTrue();
    advance(ch, 1);
    assertThat(ch.isOpen()).as("cut at the timeout").isFalse();
    ch.finishAndReleaseAll();
  }

  @Test
  void aPeerThatTakesWhatWasQueuedIsNotCut() {
    EmbeddedChannel ch = channel();
    queue(ch, 32);
    advance(ch, TIMEOUT / 2);
    ch.flush(); // the peer read it: writable again
    assertThat(ch.isWritable()).isTrue();
    advance(ch, TIMEOUT);
    assertThat(ch.isOpen()).isTrue();
    ch.finishAndReleaseAll();
  }

  @Test
  void aSlowReaderStartsTheClockOverEachTimeItTakesSomething() {
    EmbeddedChannel ch = channel();
    queue(ch, 32);
    advance(ch, TIMEOUT * 3 / 4);
    ch.flush(); // progress
    queue(ch, 32); // unwritable again, from now
    advance(ch, TIMEOUT / 2); // the first check: 1 s after the first stall, only 0.5 s into this one
    assertThat(ch.isOpen()).as("a reader that took something 0.5 s ago").isTrue();
    advance(ch, TIMEOUT / 2);
    assertThat(ch.isOpen()).as("then nothing for the whole timeout").isFalse();
    ch.finishAndReleaseAll();
  }

  @Test
  void anUnwritableChannelIsNotReadUntilWritableAgain() {
    EmbeddedChannel ch = http1Channel();
    assertThat(ch.config().isAutoRead()).isTrue();
    queue(ch, 32); // the peer reads nothing: the answers pile up
    assertThat(ch.isWritable()).isFalse();
    assertThat(ch.config().isAutoRead()).as("reads stop while unwritable").isFalse();
    ch.flush(); // the peer read them
    assertThat(ch.isWritable()).isTrue();
    assertThat(ch.config().isAutoRead()).as("reads go on once writable").isTrue();
    ch.finishAndReleaseAll();
  }

  @Test
  void aReadAskedForWhileUnwritableWaitsUntilWritable() {
    EmbeddedChannel ch = http1Channel();
    ch.config().setAutoRead(false); // reads asked for one at a time (as HTTP/1.1 serving does)
    AtomicInteger reads = new AtomicInteger();
    ch.pipeline().addFirst(new ChannelOutboundHandlerAdapter() { // below the guard: what it lets through
      @Override
      public void read(ChannelHandlerContext ctx) {
        reads.incrementAndGet();
        ctx.read();
      }
    });
    ch.read();
    assertThat(reads).as("a read while writable goes through").hasValue(1);
    queue(ch, 32);
    ch.read();
    assertThat(reads).as("held while unwritable").hasValue(1);
    assertThat(ch.config().isAutoRead()).as("autoRead left as the handlers set it").isFalse();
    ch.flush();
    assertThat(reads).as("asked for once writable").hasValue(2);
    assertThat(ch.config().isAutoRead()).isFalse();
    ch.finishAndReleaseAll();
  }

  /**
   * Not served as HTTP/1.1 (HTTP/2: gRPC, the stream mapping on a shared port), an unwritable
   * channel is still read: two peers streaming both ways could otherwise each wait for the other.
   */
  @Test
  void anUnwritableHttp2ChannelIsStillRead() {
    EmbeddedChannel ch = channel();
    AtomicInteger reads = new AtomicInteger();
    ch.pipeline().addFirst(new ChannelOutboundHandlerAdapter() {
      @Override
      public void read(ChannelHandlerContext ctx) {
        reads.incrementAndGet();
        ctx.read();
      }
    });
    queue(ch, 32);
    assertThat(ch.isWritable()).isFalse();
    assertThat(ch.config().isAutoRead()).isTrue();
    ch.read();
    assertThat(reads).hasValue(1);
    ch.finishAndReleaseAll();
  }

  @Test
  void unwritableWhenServedAsHttp1ReadsStopAtOnce() {
    EmbeddedChannel ch = channel();
    queue(ch, 32);
    WriteStallGuard.pauseReadsWhileUnwritable(ch);
    assertThat(ch.config().isAutoRead()).isFalse();
    ch.flush();
    assertThat(ch.config().isAutoRead()).isTrue();
    ch.finishAndReleaseAll();
  }

  @Test
  void removedWhileUnwritableTheGuardLeavesReadsAsTheyWere() {
    EmbeddedChannel ch = http1Channel();
    queue(ch, 32);
    assertThat(ch.config().isAutoRead()).isFalse();
    ch.pipeline().removeFirst(); // an RSocket engine takes the connection over
    assertThat(ch.config().isAutoRead()).isTrue();
    ch.finishAndReleaseAll();
  }
}
