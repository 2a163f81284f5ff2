package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.sluice.internal.frame.FrameType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The frame store's positions, trims, replay bounds and byte bounds; every buffer released. */
class ResumeStoreTest {

  /** Counts what the store allocates, so that a test sees every chunk come back. */
  private final UnpooledByteBufAllocator alloc = new UnpooledByteBufAllocator(false);

  private static ByteBuf frame(int size, int fill) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) (fill + i);
    }
    return Unpooled.wrappedBuffer(b); // not tracked by the leak detector: expected values need no release
  }

  /** Stores a frame of {@code size} bytes (filled from {@code fill}) and releases the caller's copy. */
  private static boolean add(ResumeStore s, int size, int fill) {
    ByteBuf f = frame(size, fill);
    try {
      return s.add(f, f.readerIndex(), size);
    } finally {
      f.release();
    }
  }

  private long held() {
    return alloc.metric().usedHeapMemory();
  }

  @Test
  void positionsCountStoredBytesAndTrimsDropWholeFramesOnly() {
    ResumeStore s = new ResumeStore(alloc, 1000, null);
    assertThat(add(s, 10, 0)).isTrue();
    assertThat(add(s, 20, 10)).isTrue();
    assertThat(add(s, 30, 30)).isTrue();
    assertThat(s.endPosition()).isEqualTo(60);
    assertThat(s.frameCount()).isEqualTo(3);
    s.trimTo(25); // inside the second frame: only the first goes
    assertThat(s.firstPosition()).isEqualTo(10);
    assertThat(s.bytes()).isEqualTo(50);
    assertThat(s.frameCount()).isEqualTo(2);
    assertThat(s.canReplayFrom(10)).isTrue();
    assertThat(s.canReplayFrom(30)).isTrue();
    assertThat(s.canReplayFrom(60)).isTrue();
    assertThat(s.canReplayFrom(25)).as("inside a frame").isFalse();
    assertThat(s.canReplayFrom(5)).as("acknowledged already").isFalse();
    assertThat(s.canReplayFrom(61)).as("beyond what was sent").isFalse();
    List<ByteBuf> replayed = new ArrayList<>();
    s.replayFrom(10, replayed::add);
    assertThat(replayed).hasSize(2);
    assertThat(replayed.get(0)).isEqualTo(frame(20, 10));
    assertThat(replayed.get(1)).isEqualTo(frame(30, 30));
    replayed.forEach(ByteBuf::release);
    s.trimTo(5); // behind: nothing changes
    assertThat(s.firstPosition()).isEqualTo(10);
    s.release();
    assertThat(held()).as("every chunk released").isZero();
  }

  @Test
  void largeFramesAreHeldAsSlicesBetweenCopiedOnesAndReplayInOrder() {
    ResumeStore s = new ResumeStore(alloc, 1 << 20, null);
    int big = ResumeStore.COPY_LIMIT + 1;
    ByteBuf large = frame(big, 7);
    assertThat(add(s, 14, 1)).isTrue();
    assertThat(s.add(large, 0, big)).isTrue();
    assertThat(large.refCnt()).as("held by the store, not copied").isEqualTo(2);
    assertThat(add(s, 14, 2)).isTrue();
    large.release();
    assertThat(s.endPosition()).isEqualTo(14 + big + 14);
    assertThat(s.canReplayFrom(14)).isTrue();
    assertThat(s.canReplayFrom(14 + big)).isTrue();
    List<ByteBuf> replayed = new ArrayList<>();
    s.replayFrom(14, replayed::add);
    assertThat(replayed).containsExactly(frame(big, 7), frame(14, 2));
    replayed.forEach(ByteBuf::release);
    s.trimTo(14 + big); // the large frame goes whole
    assertThat(large.refCnt()).isZero();
    assertThat(s.frameCount()).isEqualTo(1);
    s.release();
    assertThat(held()).isZero();
  }

  @Test
  void chunksAreReleasedAsTheirFramesAreAcknowledgedTheOpenOneToo() {
    ResumeStore s = new ResumeStore(alloc, 1 << 20, null);
    int perChunk = ResumeStore.CHUNK_SIZE / (3 + 100);
    for (int i = 0; i < perChunk * 3; i++) {
      assertThat(add(s, 100, i)).isTrue();
    }
    long threeChunks = held();
    assertThat(threeChunks).isEqualTo(3L * ResumeStore.CHUNK_SIZE);
    s.trimTo(100L * perChunk * 2); // the first two chunks are acknowledged: kept as spares
    assertThat(s.spareChunks()).isEqualTo(ResumeStore.SPARES);
    assertThat(held()).isEqualTo(3L * ResumeStore.CHUNK_SIZE);
    for (int i = 0; i < perChunk * 2; i++) { // two more chunks' worth: the spares, no allocation
      assertThat(add(s, 100, i)).isTrue();
    }
    assertThat(s.spareChunks()).isZero();
    assertThat(held()).isEqualTo(3L * ResumeStore.CHUNK_SIZE);
    s.trimTo(s.endPosition() - 100); // all but the last frame: one chunk held, two spares
    assertThat(held()).isEqualTo(3L * ResumeStore.CHUNK_SIZE);
    assertThat(s.frameCount()).isEqualTo(1);
    assertThat(s.canReplayFrom(s.endPosition() - 100)).isTrue();
    s.trimTo(s.endPosition()); // all acknowledged: an idle session holds nothing, spares neither
    assertThat(s.frameCount()).isZero();
    assertThat(s.bytes()).isZero();
    assertThat(held()).isZero();
    assertThat(add(s, 100, 0)).isTrue();
    assertThat(s.canReplayFrom(100L * perChunk * 5)).isTrue();
    s.release();
    assertThat(held()).isZero();
  }

  @Test
  void framesOfMixedSizesHoldAtMostTwiceTheirBytesPlusAChunk() {
    ResumeStore s = new ResumeStore(alloc, 4 << 20, null);
    for (int i = 0; i < 100; i++) { // small frames between 2 KB ones (a channel's REQUEST_Ns)
      assertThat(add(s, 14, i)).isTrue();
      assertThat(add(s, 2000, i)).isTrue();
    }
    assertThat(held()).isLessThanOrEqualTo(2 * (s.bytes() + 3L * s.frameCount()) + ResumeStore.CHUNK_SIZE);
    s.release();
    s = new ResumeStore(alloc, 4 << 20, null);
    for (int size : new int[] {ResumeStore.CHUNK_SIZE / 2 + 1, 14, 9000, 14}) {
      for (int i = 0; i < 50; i++) {
        assertThat(add(s, size, i)).isTrue();
      }
    }
    long framesAndLengths = s.bytes() + 3L * s.frameCount(); // all copied: at most 16 KiB each
    assertThat(held()).isLessThanOrEqualTo(2 * framesAndLengths + ResumeStore.CHUNK_SIZE);
    s.release();
    assertThat(held()).isZero();
  }

  @Test
  void theChunkOpenedAfterALargeFrameWastesLessThanThatFrameHolds() {
    ResumeStore s = new ResumeStore(alloc, 4 << 20, null);
    int large = ResumeStore.COPY_LIMIT + 1; // held as a slice of the sender's buffer
    for (int i = 0; i < 100; i++) {
      assertThat(add(s, 14, i)).isTrue();
      assertThat(add(s, large, i)).isTrue();
    }
    long copied = 100L * (3 + 14);
    long sliced = 100L * large;
    assertThat(held()).isLessThanOrEqualTo(2 * copied + sliced + ResumeStore.CHUNK_SIZE);
    s.release();
    assertThat(held()).isZero();
  }

  @Test
  void aRunOfPrefixedFramesIsStoredAtOnceAndTrimmedAndReplayedFrameByFrame() {
    ResumeStore s = new ResumeStore(alloc, 100, null);
    ByteBuf batch = Unpooled.buffer();
    batch.writeByte(0xEE); // a byte before the run: not stored
    for (int[] f : new int[][] {{10, 0}, {20, 10}, {30, 30}}) {
      batch.writeMedium(f[0]).writeBytes(frame(f[0], f[1]));
    }
    assertThat(s.addRun(batch, 1, batch.writerIndex(), 3, 60)).isTrue();
    assertThat(s.frameCount()).isEqualTo(3);
    assertThat(s.endPosition()).isEqualTo(60);
    assertThat(s.canReplayFrom(30)).isTrue();
    assertThat(s.canReplayFrom(31)).isFalse();
    s.trimTo(10);
    List<ByteBuf> replayed = new ArrayList<>();
    s.replayFrom(10, replayed::add);
    assertThat(replayed).containsExactly(frame(20, 10), frame(30, 30));
    replayed.forEach(ByteBuf::release);
    assertThat(s.addRun(batch, 1, batch.writerIndex(), 3, 60))
        .as("past the bound: nothing stored")
        .isFalse();
    assertThat(s.bytes()).isEqualTo(50);
    assertThat(s.frameCount()).isEqualTo(2);
    s.release();
    assertThat(held()).isZero();
  }

  @Test
  void aRunThatDoesNotFitTheOpenChunkFillsItFrameByFrameAndTheRestStartsTheNext() {
    ResumeStore s = new ResumeStore(alloc, 1 << 20, null);
    int perChunk = ResumeStore.CHUNK_SIZE / (3 + 100);
    ByteBuf batch = Unpooled.buffer();
    for (int i = 0; i < perChunk + 5; i++) {
      batch.writeMedium(100).writeBytes(frame(100, i));
    }
    assertThat(add(s, 100, 0)).isTrue(); // the open chunk has room for perChunk - 1 more
    assertThat(s.addRun(batch, 0, batch.writerIndex(), perChunk + 5, 100L * (perChunk + 5)))
        .isTrue();
    assertThat(held()).as("two chunks, none larger").isEqualTo(2L * ResumeStore.CHUNK_SIZE);
    assertThat(s.frameCount()).isEqualTo(perChunk + 6);
    assertThat(s.canReplayFrom(100L * perChunk)).as("the first frame of the second chunk").isTrue();
    List<ByteBuf> replayed = new ArrayList<>();
    s.replayFrom(100, replayed::add);
    assertThat(replayed).hasSize(perChunk + 5);
    for (int i = 0; i < perChunk + 5; i++) {
      assertThat(replayed.get(i)).isEqualTo(frame(100, i));
    }
    replayed.forEach(ByteBuf::release);
    s.trimTo(100L * perChunk); // the first chunk is acknowledged (kept as a spare)
    assertThat(s.frameCount()).isEqualTo(6);
    assertThat(s.spareChunks()).isEqualTo(1);
    assertThat(held()).isEqualTo(2L * ResumeStore.CHUNK_SIZE);
    s.trimTo(s.endPosition());
    assertThat(held()).isZero();
    s.release();
    assertThat(held()).isZero();
  }

  @Test
  void aRunThatDoesNotFitAChunkAtLeastHalfFullStartsTheNextWithoutFillingIt() {
    ResumeStore s = new ResumeStore(alloc, 1 << 20, null);
    int half = ResumeStore.CHUNK_SIZE / 2 / (3 + 100) + 1; // just over half a chunk
    for (int i = 0; i < half; i++) {
      assertThat(add(s, 100, i)).isTrue();
    }
    ByteBuf batch = Unpooled.buffer();
    for (int i = 0; i < half; i++) {
      batch.writeMedium(100).writeBytes(frame(100, half + i));
    }
    assertThat(s.addRun(batch, 0, batch.writerIndex(), half, 100L * half)).isTrue();
    assertThat(held()).isEqualTo(2L * ResumeStore.CHUNK_SIZE);
    assertThat(held()).isLessThanOrEqualTo(2 * (s.bytes() + 3L * s.frameCount()) + ResumeStore.CHUNK_SIZE);
    s.trimTo(100L * half); // exactly the first chunk
    assertThat(s.frameCount()).isEqualTo(half);
    List<ByteBuf> replayed = new ArrayList<>();
    s.replayFrom(100L * half, replayed::add);
    assertThat(replayed).hasSize(half);
    for (int i = 0; i < half; i++) {
      assertThat(replayed.get(i)).isEqualTo(frame(100, half + i));
    }
    replayed.forEach(ByteBuf::release);
    s.release();
    assertThat(held()).isZero();
  }

  /**
   * A stream paced by its peer's credit is often all acknowledged for a moment: its dropped chunks
   * stay as spares (no allocation for the next run, even one larger than a chunk, as the engine's
   * writer hands over batches of up to 64 KiB) until an acknowledgement finds the store empty with
   * nothing stored since the previous one.
   */
  @Test
  void sparesServeTheNextRunsUntilTheStoreIsIdle() {
    ResumeStore s = new ResumeStore(alloc, 1 << 20, null);
    int frames = ResumeStore.CHUNK_SIZE / (3 + 100) + 10; // a run larger than a chunk
    ByteBuf batch = Unpooled.buffer();
    for (int i = 0; i < frames; i++) {
      batch.writeMedium(100).writeBytes(frame(100, i));
    }
    assertThat(s.addRun(batch, 0, batch.writerIndex(), frames, 100L * frames)).isTrue();
    long oneRun = held();
    assertThat(oneRun).as("a power of two above the run").isEqualTo(2L * ResumeStore.CHUNK_SIZE);
    for (int round = 0; round < 5; round++) {
      s.trimTo(s.endPosition()); // all acknowledged, but frames were stored since the last trim
      assertThat(s.spareChunks()).isEqualTo(1);
      assertThat(held()).isEqualTo(oneRun);
      assertThat(s.addRun(batch, 0, batch.writerIndex(), frames, 100L * frames)).isTrue();
      assertThat(held()).as("the spare took the run").isEqualTo(oneRun);
      assertThat(s.spareChunks()).isZero();
    }
    s.trimTo(s.endPosition());
    assertThat(held()).isEqualTo(oneRun);
    s.trimTo(s.endPosition()); // nothing stored since: idle
    assertThat(s.spareChunks()).isZero();
    assertThat(held()).isZero();
    s.release();
    assertThat(held()).isZero();
  }

  /** A run of {@code frames} prefixed frames of 100 bytes: about 40 KiB, a chunk of 64 KiB each. */
  private static ByteBuf run40k() {
    ByteBuf batch = Unpooled.buffer();
    for (int i = 0; i < 400; i++) {
      batch.writeMedium(100).writeBytes(frame(100, i));
    }
    return batch;
  }

  /**
   * A session that stores a little between every acknowledgement is never idle, so it keeps its
   * spares for its life. They take nothing of the budget all sessions share: held there, they got
   * another session's frames refused and that session ended (a cache must not end a session).
   */
  @Test
  void oneSessionsSparesNeverGetAnotherSessionsFramesRefused() {
    ResumeBudget budget = new ResumeBudget(256 * 1024);
    ResumeStore a = new ResumeStore(alloc, 1 << 20, budget);
    ResumeStore b = new ResumeStore(alloc, 1 << 20, budget);
    ByteBuf batch = run40k();
    for (int i = 0; i < 4; i++) { // four runs, each in a chunk of its own
      assertThat(a.addRun(batch, 0, batch.writerIndex(), 400, 100L * 400)).isTrue();
    }
    for (int round = 0; round < 3; round++) {
      a.trimTo(a.endPosition()); // all acknowledged, but frames were stored since the last trim
      assertThat(add(a, 100, round)).isTrue(); // a little traffic before the next acknowledgement
    }
    assertThat(a.spareChunks()).as("the first session holds spares").isPositive();
    for (int i = 0; i < 3; i++) { // 120 KB of frames for the other session
      assertThat(b.addRun(batch, 0, batch.writerIndex(), 400, 100L * 400))
          .as("run %d of the other session, with the first one's spares held", i)
          .isTrue();
    }
    assertThat(b.refusedByBudget()).isFalse();
    a.release();
    b.release();
    assertThat(budget.used()).isZero();
    assertThat(held()).isZero();
  }

  /** Spares stay within the store's own bound with its frames, and give way to frames. */
  @Test
  void sparesStayWithinTheBoundAndGiveWayToFrames() {
    long bound = 100 * 1024;
    ResumeStore s = new ResumeStore(alloc, bound, null);
    ByteBuf batch = run40k();
    assertThat(s.addRun(batch, 0, batch.writerIndex(), 400, 100L * 400)).isTrue();
    assertThat(s.addRun(batch, 0, batch.writerIndex(), 400, 100L * 400)).isTrue();
    s.trimTo(s.endPosition());
    assertThat(s.spareChunks()).as("one spare of 64 KiB fits the bound, two do not").isEqualTo(1);
    assertThat(held()).isLessThanOrEqualTo(bound);
    assertThat(add(s, ResumeStore.COPY_LIMIT * 5, 1)).as("a frame that needs the spare's room").isTrue();
    assertThat(s.spareChunks()).isZero();
    s.release();
    assertThat(held()).isZero();
  }

  /**
   * A peer may acknowledge frames it has not received (hostile, or a cut mid-replay) while replay
   * slices of a chunk are still queued on a transport: the chunk must not be cleared and refilled
   * under them as a spare.
   */
  @Test
  void aChunkThatReplaySlicesShareIsNotReusedAsASpare() {
    ResumeStore s = new ResumeStore(alloc, 1 << 20, null);
    for (int i = 0; i < 10; i++) {
      assertThat(add(s, 100, i)).isTrue();
    }
    List<ByteBuf> replayed = new ArrayList<>();
    s.replayFrom(0, replayed::add); // queued on the transport, not written yet
    s.trimTo(s.endPosition()); // the peer acknowledges them anyway
    for (int i = 0; i < 10; i++) {
      assertThat(add(s, 100, 50 + i)).isTrue(); // new frames: a reused chunk would overwrite
    }
    try {
      for (int i = 0; i < 10; i++) {
        assertThat(replayed.get(i)).as("replayed frame %s", i).isEqualTo(frame(100, i));
      }
    } finally {
      replayed.forEach(ByteBuf::release);
    }
    s.release();
    assertThat(held()).isZero();
  }

  @Test
  void aFrameOfTheCopyLimitItselfIsCopiedWhole() {
    ResumeStore s = new ResumeStore(alloc, 1 << 20, null);
    assertThat(add(s, 14, 1)).isTrue();
    assertThat(add(s, ResumeStore.COPY_LIMIT, 2)).isTrue(); // with its length, more than a chunk
    assertThat(add(s, 14, 3)).isTrue();
    List<ByteBuf> replayed = new ArrayList<>();
    s.replayFrom(0, replayed::add);
    assertThat(replayed)
        .containsExactly(frame(14, 1), frame(ResumeStore.COPY_LIMIT, 2), frame(14, 3));
    replayed.forEach(ByteBuf::release);
    s.release();
    assertThat(held()).isZero();
  }

  @Test
  void aFrameThatWouldPassTheBoundIsRefused() {
    ResumeStore s = new ResumeStore(alloc, 100, null);
    assertThat(add(s, 60, 0)).isTrue();
    assertThat(add(s, 41, 0)).isFalse();
    assertThat(s.bytes()).isEqualTo(60);
    assertThat(s.highWater()).isEqualTo(60);
    assertThat(s.frameCount()).isEqualTo(1);
    s.release();
    assertThat(held()).isZero();
    assertThat(add(s, 1, 0)).as("a released store takes nothing").isFalse();
    assertThat(held()).isZero();
  }

  @Test
  void theServerWideBudgetBoundsAllStoresAndComesBackOnRelease() {
    ResumeBudget budget = new ResumeBudget(ResumeBudget.STEP * 2);
    ResumeStore one = new ResumeStore(alloc, ResumeBudget.STEP * 4, budget);
    ResumeStore two = new ResumeStore(alloc, ResumeBudget.STEP * 4, budget);
    assertThat(add(one, (int) ResumeBudget.STEP, 0)).isTrue();
    assertThat(add(two, (int) ResumeBudget.STEP, 0)).isTrue();
    assertThat(add(one, 10, 0)).as("the budget is spent").isFalse();
    assertThat(one.refusedByBudget()).isTrue();
    one.release();
    assertThat(add(two, 10, 0)).isTrue();
    two.release();
    assertThat(budget.used()).isZero();
    assertThat(held()).isZero();
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
