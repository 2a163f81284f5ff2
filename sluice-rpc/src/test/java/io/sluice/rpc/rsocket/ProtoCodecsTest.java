package io.sluice.rpc.rsocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.ExtensionRegistryLite;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Parser;
import com.google.protobuf.StringValue;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The reused per-thread decoder of {@link ProtoCodecs}: one message after another on one thread,
 * from direct, heap and composite buffers, never aliasing the decoder's array or the frame, and
 * whole again after a failure.
 */
class ProtoCodecsTest {

  private static ByteBuf direct(com.google.protobuf.MessageLite m) {
    ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer();
    b.writeBytes(m.toByteArray());
    return b;
  }

  private static BytesValue bytesOf(int n, int seed) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 13 + seed);
    }
    return BytesValue.of(ByteString.copyFrom(b));
  }

  @Test
  void parsesManyMessagesInARowWithoutAliasingTheDecoderOrTheFrame() {
    List<BytesValue> sent = new ArrayList<>();
    List<BytesValue> parsed = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      // Sizes cross the decoder's array boundary cases: empty, tiny, near and at the limit.
      int n = i % 4 == 0 ? 0 : i % 4 == 1 ? i : i % 4 == 2 ? ProtoMessages.SMALL_MESSAGE - 3 - i % 3 : 100 + i;
      BytesValue v = bytesOf(n, i);
      sent.add(v);
      ByteBuf frame = direct(v);
      parsed.add(ProtoMessages.parse(BytesValue.parser(), frame));
      // Overwrite the frame's memory before releasing it: a parsed value must not see it.
      frame.setZero(0, frame.writerIndex());
      frame.release();
    }
    assertThat(parsed).isEqualTo(sent);
  }

  @Test
  void parsesHeapCompositeAndSlicedFramesLeavingTheirIndexes() {
    StringValue v = StringValue.of("héllo, wörld");
    byte[] enc = v.toByteArray();
    ByteBuf heap = Unpooled.buffer().writeBytes(new byte[] {9, 9}).writeBytes(enc);
    heap.readerIndex(2);
    ByteBuf composite =
        Unpooled.compositeBuffer()
            .addComponent(true, Unpooled.wrappedBuffer(enc, 0, 3))
            .addComponent(true, Unpooled.wrappedBuffer(enc, 3, enc.length - 3));
    try {
      assertThat(ProtoMessages.parse(StringValue.parser(), heap)).isEqualTo(v);
      assertThat(heap.readerIndex()).isEqualTo(2);
      assertThat(ProtoMessages.parse(StringValue.parser(), composite)).isEqualTo(v);
      assertThat(composite.readerIndex()).isZero();
    } finally {
      heap.release();
      composite.release();
    }
  }

  @Test
  void aFailedParseLeavesTheNextOneOnTheSameThreadWhole() {
    ByteBuf truncated = direct(bytesOf(50, 1));
    truncated.writerIndex(truncated.writerIndex() - 10);
    ByteBuf garbage = Unpooled.directBuffer().writeBytes(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF});
    try {
      assertThatThrownBy(() -> ProtoMessages.parse(BytesValue.parser(), truncated))
          .isInstanceOfSatisfying(
              StatusException.class, e -> assertThat(e.status().code()).isEqualTo(Status.Code.INTERNAL));
      assertThatThrownBy(() -> ProtoMessages.parse(BytesValue.parser(), garbage))
          .isInstanceOf(StatusException.class);
    } finally {
      truncated.release();
      garbage.release();
    }
    BytesValue v = bytesOf(20, 2);
    ByteBuf ok = direct(v);
    try {
      assertThat(ProtoMessages.parse(BytesValue.parser(), ok)).isEqualTo(v);
    } finally {
      ok.release();
    }
  }

  /**
   * A parser that fails with an Error (a StackOverflowError deep in a custom parser, say) after
   * the decoder buffered the message: the next small message on the thread must not be read with
   * those bytes in front of it.
   */
  @Test
  void aParserThatFailsWithAnErrorLeavesTheNextOneOnTheSameThreadWhole() {
    Parser<BytesValue> failing =
        new com.google.protobuf.AbstractParser<BytesValue>() {
          @Override
          public BytesValue parsePartialFrom(CodedInputStream input, ExtensionRegistryLite registry)
              throws InvalidProtocolBufferException {
            try {
              input.readTag(); // the decoder has read the frame's bytes into its buffer by now
            } catch (java.io.IOException e) {
              throw new AssertionError(e);
            }
            throw new StackOverflowError("deep in a custom parser");
          }
        };
    ByteBuf first = direct(bytesOf(50, 1));
    try {
      assertThatThrownBy(() -> ProtoMessages.parse(failing, first)).isInstanceOf(StackOverflowError.class);
    } finally {
      first.release();
    }
    BytesValue v = bytesOf(20, 2);
    ByteBuf ok = direct(v);
    try {
      assertThat(ProtoMessages.parse(BytesValue.parser(), ok)).isEqualTo(v);
    } finally {
      ok.release();
    }
  }

  @Test
  void aParserThatParsesAnotherMessageInsideGetsItsOwnDecoder() {
    BytesValue inner = bytesOf(30, 3);
    BytesValue outer = bytesOf(40, 4);
    ByteBuf innerFrame = direct(inner);
    ByteBuf outerFrame = direct(outer);
    AtomicReference<BytesValue> nested = new AtomicReference<>();
    Parser<BytesValue> reentrant =
        new com.google.protobuf.AbstractParser<BytesValue>() {
          @Override
          public BytesValue parsePartialFrom(CodedInputStream input, ExtensionRegistryLite registry)
              throws InvalidProtocolBufferException {
            nested.set(ProtoMessages.parse(BytesValue.parser(), innerFrame));
            return BytesValue.parser().parsePartialFrom(input, registry);
          }
        };
    try {
      assertThat(ProtoMessages.parse(reentrant, outerFrame)).isEqualTo(outer);
      assertThat(nested.get()).isEqualTo(inner);
    } finally {
      innerFrame.release();
      outerFrame.release();
    }
  }

  @Test
  void parsesOnAnEventLoopStyleThreadToo() throws Exception {
    BytesValue v = bytesOf(8, 5);
    AtomicReference<Object> got = new AtomicReference<>();
    Thread t =
        new FastThreadLocalThread(
            () -> {
              for (int i = 0; i < 3; i++) {
                ByteBuf frame = direct(v);
                try {
                  got.set(ProtoMessages.parse(BytesValue.parser(), frame));
                } catch (RuntimeException e) {
                  got.set(e);
                } finally {
                  frame.release();
                }
              }
            });
    t.start();
    t.join(10_000);
    assertThat(got.get()).isEqualTo(v);
  }
}
