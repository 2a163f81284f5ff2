package io.sluice.benchmarks.harness;

/**
 * One way of spreading request-response calls over the servers of {@code ./sluice bench
 * --balancer}: the thing that run compares (Sluice's balancer, plain round robin, rsocket-java's
 * load-balancing client). Every server answers a call with its id, {@link BalancerChild#ID_BYTES}
 * bytes big-endian, so that the harness sees which server served it.
 *
 * <p>{@link #call} is called from the harness's one sending thread; the strategy may answer on any
 * thread.
 */
public interface BalancerStrategy extends AutoCloseable {

  /** Starts one request-response call; {@code done} is told exactly once how it ended. */
  void call(Done done);

  /** Releases the strategy's connections and threads; called once, at the end of the run. */
  @Override
  void close();

  /** How one call ended. Thread-safe; a second report of the same call is ignored. */
  interface Done {
    /** The server {@code serverId} answered. */
    void complete(int serverId);

    /** The call failed (the error of the strategy, or its connection's). */
    void fail(Throwable cause);
  }
}
