package io.sluice.transport.netty.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.transport.FrameReceiver;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The inbound splitter: frames lent to the receiver, and slices it keeps of them. */
class NettyDuplexTransportTest {

  /** Keeps a retained slice of every frame, as the engine keeps message payloads. */
  static final class Keeping implements FrameReceiver {
    final List<ByteBuf> kept = new ArrayList<>();
    final List<String> seen = new ArrayList<>();
    int readCompletes;

    @Override
    public int maxFrameSize() {
      return 1024;
    }

    @Override
    public int maxQueuedOutboundBytes() {
      return 64 * 1024;
    }

    @Override
    public void onFrame(ByteBuf frame) {
      seen.add(frame.toString(StandardCharsets.US_ASCII));
      kept.add(frame.retainedSlice());
    }

    @Override
    public void onReadComplete() {
      readCompletes++;
    }

    @Override
    public void onWritabilityChanged(boolean writable) {}

    @Override
    public void onTransportError(Throwable cause) {
      throw new AssertionError(cause);
    }

    @Override
    public void onClosed() {}
  }

  /** A pooled (leak-tracked) read buffer: the transport owns it once written inbound. */
  private static ByteBuf framed(String... frames) {
    ByteBuf b = PooledByteBufAllocator.DEFAULT.buffer();
    for (String f : frames) {
      byte[] bytes = f.getBytes(StandardCharsets.US_ASCII);
      b.writeMedium(bytes.length).writeBytes(bytes);
    }
    return b;
  }

  @Test
  void lendsEachFrameExactlyAndKeptSlicesSurviveLaterReads() {
    EmbeddedChannel ch = new EmbeddedChannel();
    NettyDuplexTransport t = new NettyDuplexTransport(ch);
    ch.pipeline().addLast(t);
    Keeping r = new Keeping();
    t.start(r);

    // Two whole frames and the first half of a third in one read, the rest in the next.
    ByteBuf first = framed("alpha", "beta", "gamma");
    ByteBuf second = first.readRetainedSlice(first.readableBytes() - 3);
    ch.writeInbound(second);
    ch.writeInbound(first);
    ch.writeInbound(framed("delta"));

    assertThat(r.seen).containsExactly("alpha", "beta", "gamma", "delta");
    List<String> kept = new ArrayList<>();
    for (ByteBuf b : r.kept) {
      kept.add(b.toString(StandardCharsets.US_ASCII));
      b.release();
    }
    assertThat(kept).containsExactly("alpha", "beta", "gamma", "delta");
    assertThat(r.readCompletes).isEqualTo(3);
    ch.finishAndReleaseAll();
  }

  @Test
  void anEmptyFrameIsLentAsEmpty() {
    EmbeddedChannel ch = new EmbeddedChannel();
    NettyDuplexTransport t = new NettyDuplexTransport(ch);
    ch.pipeline().addLast(t);
    Keeping r = new Keeping();
    t.start(r);
    ch.writeInbound(framed("", "x"));
    assertThat(r.seen).containsExactly("", "x");
    r.kept.forEach(ByteBuf::release);
    ch.finishAndReleaseAll();
  }

  /**
   * Bytes that reached the transport before the engine started it (a server that sniffed the
   * first bytes to choose this transport hands them on) are decoded once it starts, on the next
   * loop turn, not lost and not delivered from inside start.
   */
  @Test
  void framesReadBeforeTheStartAreDeliveredAfterIt() {
    EmbeddedChannel ch = new EmbeddedChannel();
    NettyDuplexTransport t = new NettyDuplexTransport(ch);
    ch.pipeline().addLast(t);
    ch.writeInbound(framed("early", "bird"));
    Keeping r = new Keeping();
    t.start(r);
    assertThat(r.seen).as("nothing from inside start").isEmpty();
    ch.runPendingTasks();
    assertThat(r.seen).containsExactly("early", "bird");
    assertThat(r.readCompletes).isEqualTo(1);
    ch.writeInbound(framed("late"));
    assertThat(r.seen).containsExactly("early", "bird", "late");
    r.kept.forEach(ByteBuf::release);
    ch.finishAndReleaseAll();
  }
}
