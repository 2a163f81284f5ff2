package io.sluice.grpcstub;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.sluice.Message;
import io.sluice.StreamHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * A channel handler under manual flow control ({@code disableAutoRequest()}) holds the first
 * request until it asks for it. A handler that fails the call before asking, after the caller
 * half-closed (so the core has no more inbound signal to give), must not leave it held.
 */
class ServerCallHeldFirstTest {

  /** A stream handle on the calling thread; records what the call does with it. */
  static final class Handle implements StreamHandle {
    final List<String> signals = new ArrayList<>();

    @Override
    public void request(long n) {
      signals.add("request(" + n + ")");
    }

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
    public void complete() {
      signals.add("complete");
    }

    @Override
    public void error(Throwable cause) {
      signals.add("error");
    }

    @Override
    public Executor executor() {
      return ImmediateEventExecutor.INSTANCE;
    }

    @Override
    public ByteBufAllocator alloc() {
      return PooledByteBufAllocator.DEFAULT;
    }
  }

  /** A request observer that records what reaches it and releases every message. */
  static final class Requests implements StreamObserver<Message> {
    final List<String> seen = new ArrayList<>();

    @Override
    public void onNext(Message value) {
      seen.add("next");
      value.release();
    }

    @Override
    public void onError(Throwable t) {
      seen.add("error");
    }

    @Override
    public void onCompleted() {
      seen.add("completed");
    }
  }

  private static Message first() {
    return Message.of(PooledByteBufAllocator.DEFAULT.buffer(64).writeZero(64));
  }

  @Test
  void aHandlerThatFailsBeforeAskingReleasesTheHeldFirstRequest() {
    for (boolean halfClosed : new boolean[] {true, false}) {
      Handle h = new Handle();
      ServerCall call = new ServerCall(ServerCall.Kind.CHANNEL, h);
      call.disableAutoRequest();
      Requests requests = new Requests();
      Message first = first();
      call.channelStarted(requests, first, halfClosed);
      call.onError(Status.PERMISSION_DENIED.asRuntimeException());
      assertThat(h.signals).as("halfClosed=%s", halfClosed).contains("error");
      assertThat(first.refCnt()).as("the held first request, halfClosed=%s", halfClosed).isZero();
      call.request(1); // too late: nothing is delivered
      assertThat(requests.seen).isEmpty();
    }
  }

  @Test
  void aHandlerThatCompletesBeforeAskingReleasesItToo() {
    Handle h = new Handle();
    ServerCall call = new ServerCall(ServerCall.Kind.CHANNEL, h);
    call.disableAutoRequest();
    Message first = first();
    call.channelStarted(new Requests(), first, true);
    call.onCompleted();
    assertThat(first.refCnt()).isZero();
  }
}
