package io.sluice.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The per-thread cells under the RPC meters: what event loops (netty FastThreadLocalThreads) and
 * other threads write sums exactly, a read while they write never goes back or below zero, and a
 * maximum taken while it is written is kept for the next take.
 */
class PerThreadCellsTest {
  private static final int PER_THREAD = 200_000;

  /** Writes PER_THREAD counts, the values 1..PER_THREAD and their maximum into {@code row}. */
  private static Runnable writer(PerThreadCells cells, int row, CountDownLatch go) {
    return () -> {
      try {
        go.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      for (int i = 1; i <= PER_THREAD; i++) {
        long[] c = cells.mine(row);
        if (c != null) {
          PerThreadCells.add(c, 0, 1);
          PerThreadCells.add(c, 1, i);
          PerThreadCells.max(c, 2, i);
        } else {
          synchronized (cells) {
            long[] s = cells.sharedRow(row);
            PerThreadCells.add(s, 0, 1);
            PerThreadCells.add(s, 1, i);
            PerThreadCells.max(s, 2, i);
          }
        }
      }
    };
  }

  private static List<Thread> twoLoopsAndTwoOthers(PerThreadCells cells, int row, CountDownLatch go) {
    List<Thread> threads = new ArrayList<>();
    threads.add(new FastThreadLocalThread(writer(cells, row, go), "loop-1"));
    threads.add(new FastThreadLocalThread(writer(cells, row, go), "loop-2"));
    threads.add(new Thread(writer(cells, row, go), "other-1"));
    threads.add(new Thread(writer(cells, row, go), "other-2"));
    return threads;
  }

  @Test
  void loopsAndOtherThreadsSumExactly() throws Exception {
    PerThreadCells cells = new PerThreadCells(3);
    int unused = cells.newRow();
    int row = cells.newRow();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = twoLoopsAndTwoOthers(cells, row, go);
    threads.forEach(Thread::start);
    go.countDown();
    for (Thread t : threads) {
      t.join(60_000);
      assertThat(t.isAlive()).as(t.getName() + " finished").isFalse();
    }
    long n = threads.size();
    assertThat(cells.sum(row, 0)).isEqualTo(n * PER_THREAD);
    assertThat(cells.sum(row, 1)).isEqualTo(n * PER_THREAD * (PER_THREAD + 1L) / 2);
    assertThat(cells.takeMax(row, 2)).isEqualTo(PER_THREAD);
    assertThat(cells.sum(unused, 0)).isZero();
    long[] both = new long[2];
    cells.sumInto(row, 0, both);
    assertThat(both).containsExactly(n * PER_THREAD, n * PER_THREAD * (PER_THREAD + 1L) / 2);
  }

  @Test
  void aReadWhileThreadsWriteNeverGoesBackAndLosesNothingOnceTheyStop() throws Exception {
    PerThreadCells cells = new PerThreadCells(3);
    int row = cells.newRow();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = twoLoopsAndTwoOthers(cells, row, go);
    threads.forEach(Thread::start);
    AtomicReference<String> wrong = new AtomicReference<>();
    long reads = 0;
    long lastCount = 0;
    long lastSum = 0;
    go.countDown();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (threads.stream().anyMatch(Thread::isAlive) && reads < 10_000_000 && System.nanoTime() < deadline) {
      long count = cells.sum(row, 0);
      long sum = cells.sum(row, 1);
      if (count < lastCount || sum < lastSum || count < 0 || sum < 0) {
        wrong.compareAndSet(null, "read " + count + "/" + sum + " after " + lastCount + "/" + lastSum);
      }
      lastCount = count;
      lastSum = sum;
      reads++;
    }
    for (Thread t : threads) {
      t.join(60_000);
      assertThat(t.isAlive()).as(t.getName() + " finished").isFalse();
    }
    assertThat(wrong.get()).isNull();
    assertThat(reads).isPositive();
    assertThat(cells.sum(row, 0)).isEqualTo((long) threads.size() * PER_THREAD);
    assertThat(cells.sum(row, 1)).isEqualTo(threads.size() * PER_THREAD * (PER_THREAD + 1L) / 2);
  }

  @Test
  void aMaximumIsTakenOnceAndALaterOneIsKept() throws Exception {
    PerThreadCells cells = new PerThreadCells(1);
    int row = cells.newRow();
    Thread loop =
        new FastThreadLocalThread(
            () -> {
              PerThreadCells.max(cells.mine(row), 0, 7);
              PerThreadCells.max(cells.mine(row), 0, 5);
            });
    loop.start();
    loop.join(60_000);
    synchronized (cells) {
      PerThreadCells.max(cells.sharedRow(row), 0, 3);
    }
    assertThat(cells.takeMax(row, 0)).isEqualTo(7);
    assertThat(cells.takeMax(row, 0)).isZero();
    synchronized (cells) {
      PerThreadCells.max(cells.sharedRow(row), 0, 2);
    }
    assertThat(cells.takeMax(row, 0)).isEqualTo(2);
  }

  @Test
  void onlyEventLoopsGetACopyOfTheirOwn() throws Exception {
    PerThreadCells cells = new PerThreadCells(1);
    int row = cells.newRow();
    assertThat(cells.mine(row)).as("a plain thread writes the shared copy").isNull();
    AtomicReference<long[]> seen = new AtomicReference<>();
    Thread loop = new FastThreadLocalThread(() -> seen.set(cells.mine(row)));
    loop.start();
    loop.join(60_000);
    assertThat(seen.get()).hasSize(1);
  }
}
