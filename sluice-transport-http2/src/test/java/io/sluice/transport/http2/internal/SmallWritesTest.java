package io.sluice.transport.http2.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SmallWrites} on an embedded channel: small writes leave as one buffer at the flush, in
 * order with the large ones between them, each write's promise completing with the buffer that
 * carried it (or failing with it), and nothing is held past a flush, a close or the handler's
 * removal.
 */
class SmallWritesTest {
  private final SmallWrites small = new SmallWrites();
  private EmbeddedChannel ch;

  @AfterEach
  void close() {
    if (ch != null) {
      ch.finishAndReleaseAll();
    }
  }

  private static ByteBuf text(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
  }

  /** What was written to the socket since the last call, one string per buffer (released). */
  private List<String> sent() {
    List<String> out = new ArrayList<>();
    for (Object o; (o = ch.readOutbound()) != null; ) {
      ByteBuf b = (ByteBuf) o;
      out.add(b.toString(StandardCharsets.US_ASCII));
      b.release();
    }
    return out;
  }

  @Test
  void smallWritesLeaveAsOneBufferAtTheFlushInOrderAroundALargeOne() {
    ch = new EmbeddedChannel(small);
    ChannelPromise a = ch.newPromise();
    ChannelPromise b = ch.newPromise();
    ByteBuf first = text("ab");
    ch.write(first, a);
    ch.write(text("cd"), ch.voidPromise());
    assertThat(first.refCnt()).as("copied and released").isZero();
    assertThat(sent()).as("nothing before the flush").isEmpty();
    assertThat(a.isDone()).isFalse();
    String large = "L".repeat(SmallWrites.SMALL + 1);
    ch.write(text(large), b);
    ch.write(text("ef"));
    ch.flush();
    assertThat(sent()).containsExactly("abcd", large, "ef");
    assertThat(a.isSuccess()).isTrue();
    assertThat(b.isSuccess()).isTrue();
  }

  @Test
  void appendedBytesSitWhereTheirWriteWould() {
    ch = new EmbeddedChannel(small);
    ch.write(text("x"));
    ChannelPromise p = ch.newPromise();
    ByteBuf g = small.append(3, p);
    g.setBytes(g.writerIndex() - 3, "yyy".getBytes(StandardCharsets.US_ASCII));
    ch.write(text("z"));
    ch.flush();
    assertThat(sent()).containsExactly("xyyyz");
    assertThat(p.isSuccess()).isTrue();
  }

  @Test
  void everyPromiseOfAGatheredBufferCompletesWithIt() {
    ch = new EmbeddedChannel(small);
    List<ChannelPromise> promises = new ArrayList<>();
    for (int i = 0; i < 20; i++) { // more than the array it starts with
      ChannelPromise p = ch.newPromise();
      promises.add(p);
      ch.write(text("w" + i), p);
    }
    ch.flush();
    assertThat(sent()).hasSize(1);
    assertThat(promises).allMatch(ChannelPromise::isSuccess);
  }

  @Test
  void aFailedGatheredWriteFailsEveryPromiseInIt() {
    RuntimeException boom = new RuntimeException("socket gone");
    ch =
        new EmbeddedChannel(
            new ChannelOutboundHandlerAdapter() {
              @Override
              public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                ((ByteBuf) msg).release();
                promise.setFailure(boom);
              }
            },
            small);
    ChannelPromise a = ch.newPromise();
    ChannelPromise b = ch.newPromise();
    ch.write(text("a"), a);
    ch.write(text("b"), b);
    ch.flush();
    assertThat(a.cause()).isSameAs(boom);
    assertThat(b.cause()).isSameAs(boom);
  }

  @Test
  void aWriteCancelledBeforeItGoesIsDropped() {
    ch = new EmbeddedChannel(small);
    ChannelPromise p = ch.newPromise();
    assertThat(p.cancel(false)).isTrue();
    ByteBuf dropped = text("no");
    ch.write(dropped, p);
    assertThat(dropped.refCnt()).isZero();
    ch.write(text("yes"));
    ch.flush();
    assertThat(sent()).containsExactly("yes");
  }

  @Test
  void aFullGatheringGoesOnWithoutWaitingForTheFlush() {
    ch = new EmbeddedChannel(small);
    String piece = "p".repeat(SmallWrites.SMALL);
    int fit = SmallWrites.CHUNK / SmallWrites.SMALL;
    for (int i = 0; i <= fit; i++) {
      ch.write(text(piece));
    }
    // EmbeddedChannel hands out only flushed writes: flush, then count what was cut where.
    ch.flush();
    List<String> out = sent();
    assertThat(out).hasSize(2);
    assertThat(out.get(0)).hasSize(SmallWrites.CHUNK);
    assertThat(out.get(1)).isEqualTo(piece);
  }

  @Test
  void closeAndRemovalSendWhatWasGathered() {
    ch = new EmbeddedChannel(small);
    ChannelPromise p = ch.newPromise();
    ch.write(text("bye"), p);
    ch.pipeline().remove(small);
    ch.flush();
    assertThat(sent()).containsExactly("bye");
    assertThat(p.isSuccess()).isTrue();

    SmallWrites other = new SmallWrites();
    ch.pipeline().addLast(other);
    ChannelPromise q = ch.newPromise();
    ch.write(text("last"), q);
    ch.close();
    // Written before the close, never flushed: failed and released by the channel, as without
    // the gathering (the leak detector would see a buffer held).
    assertThat(q.isDone()).isTrue();
  }
}
