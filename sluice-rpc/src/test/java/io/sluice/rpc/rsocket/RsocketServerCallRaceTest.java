package io.sluice.rpc.rsocket;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.sluice.Message;
import io.sluice.StreamHandle;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServerMethodDefinition;
import io.sluice.rpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A unary response is encoded on the handler's thread while the event loop may end the call
 * (the caller cancels, the deadline passes): whichever wins, the encoded response is released
 * exactly once. The loop's move is made from inside the encoding (the allocator's hook), which is
 * the window the race needs, so the test is deterministic.
 */
class RsocketServerCallRaceTest {
  private static final MethodDescriptor<BytesValue, BytesValue> UNARY =
      MethodDescriptor.<BytesValue, BytesValue>builder()
          .service("test.Race")
          .method("Unary")
          .kind(MethodKind.UNARY)
          .requestParser(BytesValue.parser())
          .responseParser(BytesValue.parser())
          .build();

  /** Keeps every buffer it makes; runs its hook once, inside the next allocation. */
  static final class HookAlloc extends AbstractByteBufAllocator {
    final List<ByteBuf> made = new ArrayList<>();
    Runnable hook;

    HookAlloc() {
      super(false);
    }

    @Override
    public boolean isDirectBufferPooled() {
      return false;
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
      return newHeapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
      ByteBuf b = UnpooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
      made.add(b);
      Runnable h = hook;
      hook = null;
      if (h != null) {
        h.run();
      }
      return b;
    }
  }

  /** A stream handle on the calling thread that releases what it is given, as the core does. */
  static final class Handle implements StreamHandle {
    final HookAlloc alloc = new HookAlloc();
    final List<String> signals = new ArrayList<>();

    @Override
    public void request(long n) {}

    @Override
    public void cancel() {
      signals.add("cancel");
    }

    @Override
    public void next(Message message) {
      signals.add("next");
      message.release();
    }

    @Override
    public void nextAndComplete(Message message) {
      signals.add("nextAndComplete");
      message.release();
    }

    @Override
    public void complete() {
      signals.add("complete");
    }

    @Override
    public void error(Throwable cause) {
      signals.add("error");
    }

    @Override
    public Executor executor() {
      return ImmediateEventExecutor.INSTANCE; // in its event loop: the caller's thread
    }

    @Override
    public ByteBufAllocator alloc() {
      return alloc;
    }
  }

  private static RsocketServerCall<BytesValue, BytesValue> call(Handle h) {
    ServerMethodDefinition<BytesValue, BytesValue> def =
        ServerMethodDefinition.of(UNARY, (ServerCall<BytesValue, BytesValue> c) -> null);
    return new RsocketServerCall<>(
        def,
        CallMetadata.of("test.Race", "Unary"),
        h,
        RpcInstrumentation.CallObserver.NONE,
        System.nanoTime(),
        RpcResponder.Interaction.RESPONSE,
        null,
        true);
  }

  /** A response over 4 KiB: encoded into a buffer of the handle's allocator. */
  private static final BytesValue BIG = BytesValue.of(ByteString.copyFrom(new byte[5000]));

  private static void endsWhileTheResponseIsEncoded(Consumer<RsocketServerCall<BytesValue, BytesValue>> loopMove) {
    Handle h = new Handle();
    RsocketServerCall<BytesValue, BytesValue> call = call(h);
    h.alloc.hook = () -> loopMove.accept(call);
    call.sendMessage(BIG); // the handler's thread
    call.close(Status.OK); // and its close, which comes too late
    assertThat(h.alloc.made).hasSize(1);
    assertThat(h.alloc.made.get(0).refCnt()).as("the encoded response is released").isZero();
    assertThat(h.signals).doesNotContain("nextAndComplete");
  }

  @Test
  void aCancelWhileTheResponseIsEncodedLeavesNothingHeld() {
    endsWhileTheResponseIsEncoded(RsocketServerCall::onCancel);
  }

  @Test
  void aDeadlineOrOtherCloseWhileTheResponseIsEncodedLeavesNothingHeld() {
    endsWhileTheResponseIsEncoded(c -> c.close(Status.of(Status.Code.DEADLINE_EXCEEDED, "deadline")));
  }

  @Test
  void withoutARaceTheResponseGoesOutOnce() {
    Handle h = new Handle();
    RsocketServerCall<BytesValue, BytesValue> call = call(h);
    call.sendMessage(BIG);
    call.close(Status.OK);
    assertThat(h.signals).containsExactly("nextAndComplete");
    assertThat(h.alloc.made.get(0).refCnt()).isZero();
  }
}
