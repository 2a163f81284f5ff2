package io.sluice.benchmarks.harness;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A message count written by one thread (the event loop that receives the messages) and read once a
 * second by the reporting thread. The writer keeps a plain field and publishes it with an ordered
 * store, so counting costs no atomic read-modify-write per message.
 */
public final class Counter {
  private final AtomicLong published = new AtomicLong();
  private long local;

  /** Counts one message; call from the single writer thread only. */
  public void increment() {
    published.lazySet(++local);
  }

  /** Counts {@code n} messages; call from the single writer thread only. */
  public void add(long n) {
    local += n;
    published.lazySet(local);
  }

  /** The count as last published; any thread. */
  public long get() {
    return published.get();
  }
}
