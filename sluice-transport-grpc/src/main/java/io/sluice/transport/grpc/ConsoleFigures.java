package io.sluice.transport.grpc;

import java.util.List;

/**
 * The live figures the console page shows: connections, calls open, calls per second and the
 * 99th percentile latency per method. The console's own ({@link Console#create()}) counts the
 * calls its server sees through an {@link io.sluice.rpc.RpcInstrumentation} and the connections
 * the server holds; an application with metrics elsewhere (Micrometer, say) hands its own to
 * {@link Console#withFigures}.
 *
 * <p><b>Threads.</b> {@link #snapshot()} is called on an event loop of the server, once per
 * refresh of each open console page: it must be quick and never block.
 */
@FunctionalInterface
public interface ConsoleFigures {
  /** The figures now. */
  Snapshot snapshot();

  /**
   * One method's figures.
   *
   * @param method {@code package.Service/Method}
   * @param calls calls ended since the server started
   * @param failures of those, the ones that did not end OK
   * @param callsPerSecond calls ended per second over the last few seconds
   * @param p99Millis the 99th percentile of the latest calls' latencies, milliseconds (NaN: none)
   */
  record MethodFigures(String method, long calls, long failures, double callsPerSecond, double p99Millis) {}

  /**
   * The figures of a server.
   *
   * @param source what computed them (shown on the page)
   * @param connections connections open (-1: not known)
   * @param openCalls calls started and not ended yet (streams)
   * @param callsPerSecond calls ended per second, all methods
   * @param methods per method, those with at least one call
   */
  record Snapshot(String source, long connections, long openCalls, double callsPerSecond, List<MethodFigures> methods) {}
}
