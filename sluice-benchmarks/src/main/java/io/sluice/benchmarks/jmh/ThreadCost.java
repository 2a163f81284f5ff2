package io.sluice.benchmarks.jmh;

import java.lang.management.ManagementFactory;

/**
 * One measured round of work on the calling thread: the thread's own CPU time and allocated bytes
 * per message ({@code com.sun.management.ThreadMXBean}), the measure {@link EngineCost}, {@link
 * EngineCostAB} and {@link RpcCost} share. Time the thread spends off the CPU does not count, so
 * it is far steadier than wall-clock throughput on a shared machine; the bytes are exact.
 */
final class ThreadCost {
  private static final com.sun.management.ThreadMXBean MX =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  /** Work measured in a round: one operation (of several messages). */
  @FunctionalInterface
  interface Op {
    void run() throws Exception;
  }

  /** CPU nanoseconds per message. */
  final double cpuNanos;

  /** Bytes allocated per message. */
  final double bytes;

  private ThreadCost(double cpuNanos, double bytes) {
    this.cpuNanos = cpuNanos;
    this.bytes = bytes;
  }

  /** Runs {@code op} {@code ops} times; each run carries {@code messagesPerOp} messages. */
  static ThreadCost round(Op op, int ops, int messagesPerOp) throws Exception {
    long c0 = MX.getCurrentThreadCpuTime();
    long b0 = MX.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < ops; i++) {
      op.run();
    }
    double messages = (double) ops * messagesPerOp;
    return new ThreadCost(
        (MX.getCurrentThreadCpuTime() - c0) / messages,
        (MX.getCurrentThreadAllocatedBytes() - b0) / messages);
  }
}
