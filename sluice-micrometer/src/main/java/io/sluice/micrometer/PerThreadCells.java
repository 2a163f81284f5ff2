package io.sluice.micrometer;

import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * A table of counter rows written without atomics, read by the registry from outside (the shape of
 * netty's allocator metrics; see DESIGN.md, "Metrics without cost on the hot path").
 *
 * <p>Each event-loop thread (a netty {@link FastThreadLocalThread}) writes its own copy of a row,
 * found through one indexed {@link FastThreadLocal} read, with opaque stores: a plain move on x86,
 * no lock prefix, no fence, and no allocation once the thread has written the row. Any other
 * thread (a handler's executor, a Reactor timer, a virtual thread) writes the one shared copy of
 * the row under the table's lock, so a call that ends off the loop still counts and a short-lived
 * thread leaves nothing behind.
 *
 * <p>A reader sums (or, for a maximum, takes the largest of) the copies. Cells only grow, so a
 * reader sees each cell at some recent value, never torn (opaque access) and never smaller than a
 * value it saw before; once the writers are quiet it sees the exact totals. Cells of one row read
 * one after the other may come from slightly different instants.
 *
 * <p>Copies belong to their thread for the table's life: an event-loop thread that ends keeps its
 * counts in the totals (event loops are few and long-lived).
 */
final class PerThreadCells {
  private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(long[].class);

  /** One writing thread's rows, by row index; replaced by a longer array as rows are added. */
  private static final class Stripe {
    volatile long[][] rows;

    Stripe(int capacity) {
      rows = new long[capacity][];
    }
  }

  private final int width;
  private final FastThreadLocal<Stripe> local =
      new FastThreadLocal<>() {
        @Override
        protected Stripe initialValue() {
          Stripe s = new Stripe(Math.max(8, rowCount));
          synchronized (PerThreadCells.this) {
            stripes.add(s);
          }
          return s;
        }
      };
  /** Guarded by this. */
  private final List<Stripe> stripes = new ArrayList<>();
  /** The copies written by threads without a stripe of their own; guarded by this. */
  private final Stripe shared = new Stripe(8);

  private volatile int rowCount;

  /** A table whose rows have {@code width} cells. */
  PerThreadCells(int width) {
    if (width <= 0) {
      throw new IllegalArgumentException("width " + width);
    }
    this.width = width;
  }

  int width() {
    return width;
  }

  /** Adds a row of zeros and returns its index. */
  synchronized int newRow() {
    return rowCount++;
  }

  /**
   * The current thread's copy of {@code row} to write with {@link #add} and {@link #max}, or null
   * when the current thread is not an event loop: it then writes {@link #sharedRow} holding this
   * table's lock.
   */
  long[] mine(int row) {
    if (!(Thread.currentThread() instanceof FastThreadLocalThread)) {
      return null;
    }
    Stripe s = local.get();
    long[][] rows = s.rows;
    long[] cells;
    if (row < rows.length && (cells = rows[row]) != null) {
      return cells;
    }
    return grow(s, row);
  }

  /** The shared copy of {@code row}, for a thread {@link #mine} returned null to; hold this table's lock. */
  long[] sharedRow(int row) {
    assert Thread.holdsLock(this);
    return grow(shared, row);
  }

  private long[] grow(Stripe s, int row) {
    if (row < 0 || row >= rowCount) {
      throw new IndexOutOfBoundsException("row " + row + " of " + rowCount);
    }
    long[][] rows = s.rows;
    if (row >= rows.length) {
      long[][] longer = new long[Math.max(row + 1, rows.length * 2)][];
      System.arraycopy(rows, 0, longer, 0, rows.length);
      rows = longer;
    }
    long[] cells = rows[row];
    if (cells == null) {
      cells = new long[width];
      rows[row] = cells;
    }
    s.rows = rows; // publishes the new copy (and any longer array) to readers
    return cells;
  }

  /** Adds {@code delta} to a cell of a copy the current thread may write. */
  static void add(long[] cells, int index, long delta) {
    CELL.setOpaque(cells, index, cells[index] + delta);
  }

  /** Raises a cell of a copy the current thread may write to {@code value} if it is lower. */
  static void max(long[] cells, int index, long value) {
    if (value > cells[index]) {
      CELL.setOpaque(cells, index, value);
    }
  }

  /** The sum over every copy of a cell of {@code row}. */
  long sum(int row, int index) {
    long total = 0;
    for (Stripe s : stripes()) {
      long[] cells = cellsOf(s, row);
      if (cells != null) {
        total += (long) CELL.getOpaque(cells, index);
      }
    }
    return total;
  }

  /** Adds the sums over every copy of cells {@code from} to {@code from + out.length - 1} of {@code row} into {@code out}. */
  void sumInto(int row, int from, long[] out) {
    for (Stripe s : stripes()) {
      long[] cells = cellsOf(s, row);
      if (cells != null) {
        for (int i = 0; i < out.length; i++) {
          out[i] += (long) CELL.getOpaque(cells, from + i);
        }
      }
    }
  }

  /**
   * The largest value any copy of a cell of {@code row} has held since the last call, resetting
   * each to zero: a value written while it is taken is kept for the next call, never lost.
   */
  long takeMax(int row, int index) {
    long max = 0;
    for (Stripe s : stripes()) {
      long[] cells = cellsOf(s, row);
      if (cells != null) {
        max = Math.max(max, (long) CELL.getAndSet(cells, index, 0L));
      }
    }
    return max;
  }

  private static long[] cellsOf(Stripe s, int row) {
    long[][] rows = s.rows;
    return row < rows.length ? rows[row] : null;
  }

  /** The stripes of every thread that has written, and the shared one. */
  private synchronized Stripe[] stripes() {
    Stripe[] all = stripes.toArray(new Stripe[stripes.size() + 1]);
    all[all.length - 1] = shared;
    return all;
  }
}
