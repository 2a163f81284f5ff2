package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.sluice.ErrorCode;
import io.sluice.internal.frame.FrameType;
import io.sluice.test.ManualClockLoop;
import org.junit.jupiter.api.Test;

/**
 * Streams waiting for writability, and stream ERRORs from the peer: neither may keep state past
 * the stream's end or the limits. Runs on a hand-moved clock, so the per-second budgets see
 * exactly the time the test says.
 */
class BlockedStreamsEngineTest extends EngineTestBase {

  @Override
  SingleThreadEventExecutor newLoop() {
    return new ManualClockLoop();
  }

  private static ByteBuf[] requestThenError(int firstId, int pairs) {
    ByteBuf[] frames = new ByteBuf[pairs * 2];
    for (int i = 0; i < pairs; i++) {
      int id = firstId + 2 * i;
      frames[2 * i] = Wire.requestStream(id, 8, "go");
      frames[2 * i + 1] = Wire.error(id, ErrorCode.APPLICATION_ERROR, "bye");
    }
    return frames;
  }

  /**
   * A peer that reads slowly keeps the transport unwritable, so every stream it opens waits for
   * writability; a stream it then ends with ERROR must not stay in that wait list (with its state
   * and listener) once it ended: the list would otherwise grow past every stream limit.
   */
  @Test
  void streamsEndedByThePeerWhileWaitingForWritabilityAreNotKept() {
    Producers.Counting responder = new Producers.Counting(-1);
    acceptedServer(opts().maxActiveStreams(16).build(), responder);
    transport.setWritable(false);
    for (int round = 0; round < 10; round++) {
      transport.inject(requestThenError(1 + 200 * round, 100)); // 1,000 streams, 16 at most live
    }
    assertThat(Loop.call(loop, conn::activeStreams)).isZero();
    assertThat(Loop.call(loop, conn::blockedStreams))
        .as("streams kept waiting for writability")
        .isLessThanOrEqualTo(16);
    assertThat(responder.requested.get()).as("no demand while unwritable").isZero();

    // Still works: a live stream waits and is pumped once writable.
    transport.inject(Wire.requestStream(5001, 2, "live"));
    assertThat(Loop.call(loop, conn::blockedStreams)).isLessThanOrEqualTo(17);
    transport.setWritable(true);
    assertThat(transport.nextSkippingKeepAlives(FrameType.PAYLOAD).streamId()).isEqualTo(5001);
  }

  /** Stream ERRORs from the peer have a per-second budget, as CANCELs do (rapid reset). */
  @Test
  void aFloodOfStreamErrorsIsAConnectionError() {
    acceptedServer(
        opts().maxStreamErrorsPerSecond(50).build(), new Producers.Counting(-1));
    transport.setWritable(false);
    transport.inject(requestThenError(1, 50)); // at the budget
    transport.setWritable(true);
    transport.drain();
    assertThat(transport.isClosed()).isFalse();
    clock().advanceMillis(1000); // a new second, a new budget
    transport.inject(requestThenError(1001, 50));
    transport.drain();
    assertThat(transport.isClosed()).isFalse();

    transport.inject(requestThenError(2001, 1)); // the 51st within this second
    Wire.Sent error = null;
    for (Wire.Sent s : transport.drain()) {
      if (s.type() == FrameType.ERROR && s.streamId() == 0) {
        error = s;
      }
    }
    assertThat(error).as("connection ERROR").isNotNull();
    assertThat(ErrorCode.name(error.errorCode())).isEqualTo("CONNECTION_ERROR");
    assertThat(error.errorMessage()).contains("more than 50 stream ERROR frames per second");
    transport.awaitClosed();
  }
}
