package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.StreamHandle;
import io.sluice.internal.frame.FrameType;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Calls on a stream from threads off its event loop, and one task that makes them in place. */
class StreamCallsEngineTest extends EngineTestBase {

  @Test
  void aTaskRunInOrderActsAfterTheCallsQueuedBeforeIt() {
    client(opts().build());
    Recorder r = new Recorder();
    StreamHandle s = conn.requestChannel(msg("first"), false, 4, r); // queued: not on the loop
    StreamCalls.runInOrder(s, () -> StreamCalls.cancelInPlace(s));
    assertThat(transport.next(FrameType.REQUEST_CHANNEL).dataUtf8()).isEqualTo("first");
    transport.next(FrameType.CANCEL);
    transport.assertNothingSent();
  }

  /**
   * Once the loop has shut down every call from another thread fails, not only the first: the
   * first rejected hand-off must not leave the connection believing a drain is on its way.
   */
  @Test
  void everyCallAfterTheLoopShutDownIsRejected() throws Exception {
    client(opts().build());
    Recorder r = new Recorder();
    StreamHandle s = Loop.call(loop, () -> conn.requestStream(msg("go"), 4, r));
    transport.next(FrameType.REQUEST_STREAM);
    conn = null; // nothing left to dispose on a loop that is gone
    loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();

    assertThatThrownBy(() -> s.request(1)).isInstanceOf(RejectedExecutionException.class);
    assertThatThrownBy(() -> s.request(2)).isInstanceOf(RejectedExecutionException.class);
    assertThatThrownBy(() -> StreamCalls.runInOrder(s, () -> {}))
        .isInstanceOf(RejectedExecutionException.class);
  }
}
