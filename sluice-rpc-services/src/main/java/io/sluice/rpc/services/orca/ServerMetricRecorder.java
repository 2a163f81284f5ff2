package io.sluice.rpc.services.orca;

import io.sluice.rpc.services.xds.data.orca.v3.OrcaLoadReport;
import java.util.Map;
import java.util.Objects;

/**
 * The server's own backend metrics, set by the application: what every ORCA report of the server
 * carries (the out-of-band reports of {@link OrcaService} and, under each call's own figures, the
 * per-call reports of {@link OrcaServerInterceptor}), laid over what the {@link ServerLoad}
 * measures. The counterpart of grpc-java's {@code MetricRecorder}.
 *
 * <p>Values outside a field's range are ignored (a scalar is then cleared), as are map entries
 * beyond {@value LoadValues#MAX_ENTRIES} names or with names longer than {@value
 * LoadValues#MAX_NAME_LENGTH} characters.
 *
 * <p><b>Threads.</b> Thread-safe: set from any thread; reports read a consistent copy. Holds no
 * buffers.
 */
public final class ServerMetricRecorder {
  // Guarded by this.
  private final LoadValues values = new LoadValues();

  /** A recorder with nothing set. */
  public ServerMetricRecorder() {}

  /** CPU utilization, at least 0; anything else clears it. */
  public synchronized ServerMetricRecorder setCpuUtilization(double value) {
    values.cpu = LoadValues.nonNegative(value);
    return this;
  }

  /** Memory utilization, within [0, 1]; anything else clears it. */
  public synchronized ServerMetricRecorder setMemoryUtilization(double value) {
    values.memory = LoadValues.fraction(value);
    return this;
  }

  /**
   * The application's own utilization, at least 0; anything else clears it. Replaces the {@link
   * ServerLoad}'s figure in reports.
   */
  public synchronized ServerMetricRecorder setApplicationUtilization(double value) {
    values.application = LoadValues.nonNegative(value);
    return this;
  }

  /** Requests per second, at least 0; anything else clears it. Replaces the {@link ServerLoad}'s. */
  public synchronized ServerMetricRecorder setRps(double value) {
    values.rps = LoadValues.nonNegative(value);
    return this;
  }

  /** Errors per second, at least 0; anything else clears it. */
  public synchronized ServerMetricRecorder setEps(double value) {
    values.eps = LoadValues.nonNegative(value);
    return this;
  }

  /** One named utilization, within [0, 1] (else ignored). */
  public synchronized ServerMetricRecorder putUtilization(String name, double value) {
    LoadValues.put(values.utilization, name, LoadValues.fraction(value));
    return this;
  }

  /** Replaces every named utilization with {@code utilizations} (entries out of range are left out). */
  public synchronized ServerMetricRecorder setAllUtilization(Map<String, Double> utilizations) {
    Objects.requireNonNull(utilizations, "utilizations");
    values.utilization.clear();
    utilizations.forEach((k, v) -> LoadValues.put(values.utilization, k, v == null ? Double.NaN : LoadValues.fraction(v)));
    return this;
  }

  /** Forgets one named utilization. */
  public synchronized ServerMetricRecorder removeUtilization(String name) {
    values.utilization.remove(name);
    return this;
  }

  /** One application-specific metric, any finite value. */
  public synchronized ServerMetricRecorder putNamedMetric(String name, double value) {
    if (Double.isFinite(value)) {
      LoadValues.put(values.named, name, value);
    }
    return this;
  }

  /** Forgets one application-specific metric. */
  public synchronized ServerMetricRecorder removeNamedMetric(String name) {
    values.named.remove(name);
    return this;
  }

  /** Forgets everything set. */
  public synchronized ServerMetricRecorder clear() {
    values.clear();
    return this;
  }

  /**
   * Makes {@code changes} to this recorder as one: a report, or another thread's changes, sees all
   * of them or none (each setter alone is atomic, a chain of them is not). For replacing the
   * figures: {@code recorder.update(r -> r.clear().setCpuUtilization(cpu))}. {@code changes} runs
   * on the caller's thread, holding this recorder: keep it short.
   */
  public synchronized ServerMetricRecorder update(java.util.function.Consumer<? super ServerMetricRecorder> changes) {
    changes.accept(this);
    return this;
  }

  /** Lays the figures set over {@code b}. */
  synchronized void writeTo(OrcaLoadReport.Builder b) {
    values.writeTo(b);
  }

  /**
   * The report of the server now: {@code load}'s figures with the ones set here laid over them.
   */
  public OrcaLoadReport report(ServerLoad load) {
    OrcaLoadReport.Builder b = OrcaLoadReport.newBuilder();
    ServerLoad.writeTo(load, b);
    writeTo(b);
    return b.build();
  }

  @Override
  public String toString() {
    return "ServerMetricRecorder(" + report(ServerLoad.NONE).toString().replace('\n', ' ').trim() + ")";
  }
}
