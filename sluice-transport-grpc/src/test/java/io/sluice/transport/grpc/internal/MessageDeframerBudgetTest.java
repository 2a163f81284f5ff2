package io.sluice.transport.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import org.junit.jupiter.api.Test;
import io.sluice.transport.http2.internal.ReadBudget;

/**
 * The connection's {@link ReadBudget} shared by its calls' deframers, and messages being read
 * held as copies (found by sluice-hostile-tests' GrpcAttacksTest#messagesAtTheLimitOnEveryStream:
 * 64 calls each reading a message at the limit took the server past its direct memory).
 */
class MessageDeframerBudgetTest {
  private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

  /** A prefix declaring {@code length} bytes, then {@code sent} of them. */
  private static ByteBuf partial(int length, int sent) {
    return Unpooled.buffer().writeByte(0).writeInt(length).writeZero(sent);
  }

  private static void add(MessageDeframer d, ByteBuf b) {
    d.add(b);
    b.release();
  }

  @Test
  void messagesBeingReadOnOneConnectionShareItsBudget() {
    ReadBudget budget = new ReadBudget(10_000);
    MessageDeframer a = new MessageDeframer(ALLOC, 1 << 20, GrpcEncoding.IDENTITY, budget);
    MessageDeframer b = new MessageDeframer(ALLOC, 1 << 20, GrpcEncoding.IDENTITY, budget);
    add(a, partial(8_000, 6_000));
    assertThat(a.next()).isNull();
    assertThat(budget.held()).isEqualTo(6_000);

    add(b, partial(8_000, 5_000));
    assertThatThrownBy(b::next)
        .isInstanceOfSatisfying(
            StatusException.class,
            e -> {
              assertThat(e.status().code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
              assertThat(e.status().description()).contains("more than 10000 bytes");
            });
    assertThat(budget.held()).as("the failed call gave back what it held").isEqualTo(6_000);

    add(a, Unpooled.buffer().writeZero(2_000)); // a's message is whole: its bytes go back
    ByteBuf m = a.next();
    assertThat(m.readableBytes()).isEqualTo(8_000);
    m.release();
    assertThat(budget.held()).isZero();

    MessageDeframer c = new MessageDeframer(ALLOC, 1 << 20, GrpcEncoding.IDENTITY, budget);
    add(c, partial(9_000, 9_000));
    m = c.next();
    assertThat(m.readableBytes()).isEqualTo(9_000);
    m.release();
    add(c, partial(9_000, 4_000));
    assertThat(c.next()).isNull();
    assertThat(budget.held()).isEqualTo(4_000);
    c.close(); // the call ended mid-message
    assertThat(budget.held()).isZero();
    a.close();
    b.close();
  }

  @Test
  void aMessageBeingReadDoesNotPinTheBuffersItsPiecesCameIn() {
    MessageDeframer d = new MessageDeframer(ALLOC, 1 << 20, GrpcEncoding.IDENTITY);
    // A 64 KiB network buffer holding a prefix and 16 KiB of a 100,000-byte message.
    ByteBuf network = ALLOC.directBuffer(64 << 10).writeByte(0).writeInt(100_000).writeZero(16 << 10);
    d.add(network);
    assertThat(d.next()).isNull();
    network.release();
    assertThat(network.refCnt()).as("references to the network buffer left").isZero();
    d.close();
  }

  @Test
  void theDefaultBudgetHoldsTwoMessagesAtTheLimit() {
    assertThat(ReadBudget.forMessageLimit(16 << 20).max()).isEqualTo(32L << 20);
    assertThat(ReadBudget.forMessageLimit(1024).max()).isEqualTo(8L << 20);
  }
}
