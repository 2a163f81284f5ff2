package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.internal.frame.FrameType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The frame store's positions, trims, replay bounds and byte bounds; every buffer released. */
class ResumeStoreTest {

  private static ByteBuf frame(int size) {
    ByteBuf b = PooledByteBufAllocator.DEFAULT.buffer(size);
    b.writeZero(size);
    return b;
  }

  @Test
  void positionsCountStoredBytesAndTrimsDropWholeFramesOnly() {
    ResumeStore s = new ResumeStore(1000, null);
    ByteBuf a = frame(10);
    ByteBuf b = frame(20);
    ByteBuf c = frame(30);
    assertThat(s.add(a)).isTrue();
    assertThat(s.add(b)).isTrue();
    assertThat(s.add(c)).isTrue();
    assertThat(s.endPosition()).isEqualTo(60);
    s.trimTo(25); // inside b: only a goes
    assertThat(a.refCnt()).isZero();
    assertThat(b.refCnt()).isEqualTo(1);
    assertThat(s.firstPosition()).isEqualTo(10);
    assertThat(s.bytes()).isEqualTo(50);
    assertThat(s.canReplayFrom(10)).isTrue();
    assertThat(s.canReplayFrom(30)).isTrue();
    assertThat(s.canReplayFrom(60)).isTrue();
    assertThat(s.canReplayFrom(25)).as("inside a frame").isFalse();
    assertThat(s.canReplayFrom(5)).as("acknowledged already").isFalse();
    assertThat(s.canReplayFrom(61)).as("beyond what was sent").isFalse();
    List<ByteBuf> replayed = new ArrayList<>();
    s.replayFrom(30, replayed::add);
    assertThat(replayed).hasSize(1);
    assertThat(replayed.get(0).readableBytes()).isEqualTo(30);
    replayed.forEach(ByteBuf::release);
    s.trimTo(5); // behind: nothing changes
    assertThat(s.firstPosition()).isEqualTo(10);
    s.release();
    assertThat(b.refCnt()).isZero();
    assertThat(c.refCnt()).isZero();
  }

  @Test
  void aFrameThatWouldPassTheBoundIsRefusedAndReleased() {
    ResumeStore s = new ResumeStore(100, null);
    assertThat(s.add(frame(60))).isTrue();
    ByteBuf big = frame(41);
    assertThat(s.add(big)).isFalse();
    assertThat(big.refCnt()).isZero();
    assertThat(s.bytes()).isEqualTo(60);
    assertThat(s.highWater()).isEqualTo(60);
    s.release();
  }

  @Test
  void theServerWideBudgetBoundsAllStoresAndComesBackOnRelease() {
    ResumeBudget budget = new ResumeBudget(ResumeBudget.STEP * 2);
    ResumeStore one = new ResumeStore(ResumeBudget.STEP * 4, budget);
    ResumeStore two = new ResumeStore(ResumeBudget.STEP * 4, budget);
    assertThat(one.add(frame((int) ResumeBudget.STEP))).isTrue();
    assertThat(two.add(frame((int) ResumeBudget.STEP))).isTrue();
    assertThat(one.add(frame(10))).as("the budget is spent").isFalse();
    one.release();
    assertThat(two.add(frame(10))).isTrue();
    two.release();
    assertThat(budget.used()).isZero();
  }

  @Test
  void theSpecCountsRequestsRequestNCancelPayloadAndErrorOnly() {
    assertThat(ResumableSession.counted(FrameType.REQUEST_RESPONSE)).isTrue();
    assertThat(ResumableSession.counted(FrameType.REQUEST_FNF)).isTrue();
    assertThat(ResumableSession.counted(FrameType.REQUEST_STREAM)).isTrue();
    assertThat(ResumableSession.counted(FrameType.REQUEST_CHANNEL)).isTrue();
    assertThat(ResumableSession.counted(FrameType.REQUEST_N)).isTrue();
    assertThat(ResumableSession.counted(FrameType.CANCEL)).isTrue();
    assertThat(ResumableSession.counted(FrameType.PAYLOAD)).isTrue();
    assertThat(ResumableSession.counted(FrameType.ERROR)).isTrue();
    assertThat(ResumableSession.counted(FrameType.SETUP)).isFalse();
    assertThat(ResumableSession.counted(FrameType.LEASE)).isFalse();
    assertThat(ResumableSession.counted(FrameType.KEEPALIVE)).isFalse();
    assertThat(ResumableSession.counted(FrameType.METADATA_PUSH)).isFalse();
    assertThat(ResumableSession.counted(FrameType.RESUME)).isFalse();
    assertThat(ResumableSession.counted(FrameType.RESUME_OK)).isFalse();
    assertThat(ResumableSession.counted(FrameType.EXT)).isFalse();
  }
}
