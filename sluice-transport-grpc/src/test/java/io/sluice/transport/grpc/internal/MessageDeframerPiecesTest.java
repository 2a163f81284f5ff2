package io.sluice.transport.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.transport.http2.internal.ReadBudget;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How a long message is gathered: its bytes go straight from the DATA payloads into pieces of its
 * own once it is asked for (one copy, no queue in between, no buffer grown by copying), the pieces
 * hold little more than the bytes that came (a prefix may lie), and bytes nobody asked for yet
 * still wait untouched.
 */
class MessageDeframerPiecesTest {
  /** An allocator that remembers the capacity of every heap buffer it made. */
  static final class Recording extends AbstractByteBufAllocator {
    final List<Integer> heapCapacities = new ArrayList<>();

    Recording() {
      super(false);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
      heapCapacities.add(initialCapacity);
      return new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
      throw new AssertionError("the deframer takes heap buffers only");
    }

    @Override
    public boolean isDirectBufferPooled() {
      return false;
    }

    long allocated() {
      return heapCapacities.stream().mapToLong(Integer::longValue).sum();
    }
  }

  private static byte at(int i) {
    return (byte) (i * 31 + (i >>> 8));
  }

  /** {@code n} bytes of the message's pattern from {@code from}, in a buffer the size of a read. */
  private static ByteBuf slice(int from, int n) {
    ByteBuf b = Unpooled.buffer(n);
    for (int i = 0; i < n; i++) {
      b.writeByte(at(from + i));
    }
    return b;
  }

  private static void add(MessageDeframer d, ByteBuf b) {
    d.add(b);
    b.release();
  }

  @Test
  void aLongMessageAskedForGoesStraightIntoPiecesOfItsOwn() {
    Recording alloc = new Recording();
    int length = (1 << 20) + 7;
    int frame = 16 << 10;
    MessageDeframer d = new MessageDeframer(alloc, alloc, 4 << 20, GrpcEncoding.IDENTITY, ReadBudget.UNLIMITED);
    try {
      ByteBuf first = Unpooled.buffer().writeByte(0).writeInt(length).writeBytes(slice(0, frame - 5));
      add(d, first);
      assertThat(d.next()).as("only the first DATA has come").isNull();
      int received = frame - 5;
      long consumed = d.takeConsumed();
      assertThat(consumed).isEqualTo(frame);
      ByteBuf message = null;
      while (received < length) {
        int n = Math.min(frame, length - received);
        add(d, slice(received, n));
        received += n;
        assertThat(d.buffered()).as("bytes of the message asked for wait in no queue").isZero();
        assertThat(d.takeConsumed()).as("and are given back to the window at once").isEqualTo(n);
        assertThat(alloc.allocated())
            .as("memory held after %d bytes of the message came", received)
            .isLessThanOrEqualTo(received + Math.max(8192, received / 4));
        message = d.next();
        assertThat(message == null).isEqualTo(received < length);
      }
      try {
        assertThat(message.readableBytes()).isEqualTo(length);
        for (int i = 0; i < length; i++) {
          if (message.getByte(i) != at(i)) {
            throw new AssertionError("byte " + i + " of the message differs");
          }
        }
        assertThat(alloc.allocated()).as("pieces made, none grown by copying").isEqualTo(length);
        assertThat(alloc.heapCapacities.size()).as("pieces (%s)", alloc.heapCapacities).isLessThanOrEqualTo(24);
        assertThat(message).isInstanceOf(CompositeByteBuf.class);
        assertThat(((CompositeByteBuf) message).numComponents()).isEqualTo(alloc.heapCapacities.size());
      } finally {
        message.release();
      }
    } finally {
      d.close();
    }
  }

  @Test
  void aMessageInOnePieceIsNoComposite() {
    MessageDeframer d = new MessageDeframer(new Recording(), 1 << 20, GrpcEncoding.IDENTITY);
    try {
      add(d, Unpooled.buffer().writeByte(0).writeInt(6000).writeBytes(slice(0, 6000)));
      ByteBuf m = d.next();
      assertThat(m).isNotInstanceOf(CompositeByteBuf.class);
      assertThat(m.readableBytes()).isEqualTo(6000);
      m.release();
    } finally {
      d.close();
    }
  }

  @Test
  void aLongMessageTakesNoPooledMemory() {
    Recording pooled = new Recording();
    Recording unpooled = new Recording();
    MessageDeframer d = new MessageDeframer(pooled, unpooled, 1 << 20, GrpcEncoding.IDENTITY, ReadBudget.UNLIMITED);
    try {
      for (int length : new int[] {MessageDeframer.LONG, MessageDeframer.LONG + 1}) {
        add(d, Unpooled.buffer().writeByte(0).writeInt(length).writeBytes(slice(0, length)));
        ByteBuf m = d.next();
        assertThat(m.readableBytes()).isEqualTo(length);
        m.release();
      }
      assertThat(pooled.heapCapacities).as("pooled pieces").containsExactly(MessageDeframer.LONG);
      assertThat(unpooled.heapCapacities).as("unpooled pieces").containsExactly(MessageDeframer.LONG + 1);
    } finally {
      d.close();
    }
  }

  @Test
  void smallMessagesWholeInOneChunkAreSlicesOfIt() {
    Recording alloc = new Recording();
    MessageDeframer d = new MessageDeframer(alloc, 1 << 20, GrpcEncoding.IDENTITY);
    List<ByteBuf> got = new ArrayList<>();
    try {
      ByteBuf in = Unpooled.buffer();
      for (int i = 0; i < 3; i++) {
        in.writeByte(0).writeInt(100 + i).writeBytes(slice(0, 100 + i));
      }
      add(d, in);
      assertThat(alloc.heapCapacities).as("the chunk the small input was copied into").hasSize(1);
      for (ByteBuf m; (m = d.next()) != null; ) {
        got.add(m);
      }
      assertThat(alloc.heapCapacities).as("no buffer per message").hasSize(1);
    } finally {
      d.close();
    }
    assertThat(got).hasSize(3);
    for (int i = 0; i < 3; i++) {
      ByteBuf m = got.get(i);
      assertThat(m.readableBytes()).as("message %d, read after the deframer closed", i).isEqualTo(100 + i);
      assertThat(m.getByte(99 + i)).isEqualTo(at(99 + i));
      m.release();
    }
  }

  @Test
  void aPrefixThatLiesGetsNoMoreMemoryThanTheBytesThatCame() {
    Recording alloc = new Recording(); // the pieces of a long message; its prefix is queued in a chunk
    MessageDeframer d =
        new MessageDeframer(new Recording(), alloc, 16 << 20, GrpcEncoding.IDENTITY, ReadBudget.UNLIMITED);
    try {
      add(d, Unpooled.buffer().writeByte(0).writeInt(16 << 20).writeZero(10));
      assertThat(d.next()).isNull();
      for (int i = 0; i < 3; i++) {
        add(d, Unpooled.buffer().writeZero(10));
      }
      assertThat(alloc.allocated()).as("held for 40 bytes of a message declaring 16 MiB").isEqualTo(8192);
    } finally {
      d.close();
    }
  }

  @Test
  void bytesAfterTheMessageWaitUntilTheNextIsAskedFor() {
    MessageDeframer d = new MessageDeframer(new Recording(), 1 << 20, GrpcEncoding.IDENTITY);
    try {
      add(d, Unpooled.buffer().writeByte(0).writeInt(10_000).writeBytes(slice(0, 4000)));
      assertThat(d.next()).isNull();
      d.takeConsumed();
      // The rest of the first message and the whole of a second in one input.
      add(d, Unpooled.buffer().writeBytes(slice(4000, 6000)).writeByte(0).writeInt(3).writeBytes(slice(0, 3)));
      assertThat(d.buffered()).as("the second message waits").isEqualTo(8);
      assertThat(d.takeConsumed()).as("only the first message's bytes are taken").isEqualTo(6000);
      ByteBuf first = d.next();
      assertThat(first.readableBytes()).isEqualTo(10_000);
      assertThat(first.getByte(9_999)).isEqualTo(at(9_999));
      first.release();
      assertThat(d.buffered()).isEqualTo(8);
      ByteBuf second = d.next();
      assertThat(second.readableBytes()).isEqualTo(3);
      assertThat(second.getByte(2)).isEqualTo(at(2));
      second.release();
      assertThat(d.buffered()).isZero();
      assertThat(d.takeConsumed()).isEqualTo(8);
    } finally {
      d.close();
    }
  }

  @Test
  void aPrefixInOneInputAndOneSplitAcrossInputsReadAlike() {
    MessageDeframer d = new MessageDeframer(new Recording(), 1 << 20, GrpcEncoding.IDENTITY);
    try {
      add(d, Unpooled.buffer().writeByte(0).writeShort(0));
      assertThat(d.next()).as("three bytes of a prefix").isNull();
      assertThat(d.isMidMessage()).isTrue();
      add(d, Unpooled.buffer().writeShort(300).writeBytes(slice(0, 300)).writeByte(0).writeInt(70_000));
      ByteBuf split = d.next();
      assertThat(split.readableBytes()).isEqualTo(300);
      assertThat(split.getByte(299)).isEqualTo(at(299));
      split.release();
      add(d, slice(0, 70_000));
      ByteBuf whole = d.next();
      assertThat(whole.readableBytes()).isEqualTo(70_000);
      assertThat(whole.getByte(69_999)).isEqualTo(at(69_999));
      whole.release();
      assertThat(d.isMidMessage()).isFalse();
      add(d, Unpooled.buffer().writeByte(2).writeInt(1).writeByte(1));
      assertThatThrownBy(d::next)
          .isInstanceOfSatisfying(
              StatusException.class, e -> assertThat(e.status().description()).contains("flags byte 2"));
    } finally {
      d.close();
    }
  }

  @Test
  void aSmallWholeMessageIsRefusedWhenTheBudgetIsHeldByOthers() {
    ReadBudget budget = new ReadBudget(1000);
    assertThat(budget.reserve(950)).isTrue(); // calls still reading
    MessageDeframer d = new MessageDeframer(new Recording(), 1 << 20, GrpcEncoding.IDENTITY, budget);
    try {
      add(d, Unpooled.buffer().writeByte(0).writeInt(40).writeBytes(slice(0, 40)).writeByte(0).writeInt(60).writeZero(60));
      ByteBuf fits = d.next();
      assertThat(fits.readableBytes()).isEqualTo(40);
      fits.release();
      assertThatThrownBy(d::next)
          .isInstanceOfSatisfying(
              StatusException.class, e -> assertThat(e.status().code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
      assertThat(budget.held()).isEqualTo(950);
    } finally {
      d.close();
    }
  }

  @Test
  void bytesOverTheBudgetWaitAndTheNextReadFailsTheCall() {
    ReadBudget budget = new ReadBudget(10_000);
    MessageDeframer d = new MessageDeframer(new Recording(), 1 << 20, GrpcEncoding.IDENTITY, budget);
    try {
      add(d, Unpooled.buffer().writeByte(0).writeInt(50_000).writeBytes(slice(0, 6000)));
      assertThat(d.next()).isNull();
      assertThat(budget.held()).isEqualTo(6000);
      add(d, slice(6000, 8000));
      assertThat(budget.held()).as("nothing reserved past the budget").isEqualTo(6000);
      assertThat(d.buffered()).isEqualTo(8000);
      assertThatThrownBy(d::next)
          .isInstanceOfSatisfying(
              StatusException.class, e -> assertThat(e.status().code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
      assertThat(budget.held()).as("the failed call gave back what it held").isZero();
    } finally {
      d.close();
    }
  }
}
