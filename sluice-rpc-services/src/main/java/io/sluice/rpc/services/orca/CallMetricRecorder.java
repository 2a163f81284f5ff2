package io.sluice.rpc.services.orca;

import io.sluice.rpc.services.xds.data.orca.v3.OrcaLoadReport;

/**
 * The backend metrics of one call, sent to the caller in the call's {@value
 * OrcaServerInterceptor#TRAILER} trailer when it ends (an ORCA per-call load report): what a
 * handler records here is laid over the server-wide figures ({@link ServerMetricRecorder} and the
 * {@link ServerLoad}). The counterpart of grpc-java's {@code CallMetricRecorder}.
 *
 * <pre>{@code
 * CallMetricRecorder.current()
 *     .recordRequestCost("db_rows", rows)
 *     .recordUtilization("disk", diskBusy);
 * }</pre>
 *
 * <p>{@link #current()} is the recorder of the call whose handler runs on this thread: set while
 * the call starts and during each of its listener callbacks, on calls that pass through an {@link
 * OrcaServerInterceptor}. A handler that answers later from another thread keeps the reference
 * it got there. Elsewhere {@link #current()} is a disabled recorder that ignores everything.
 *
 * <p>Values outside a field's range (negative, NaN, infinite; utilizations above 1) are ignored, as
 * are map entries beyond {@value LoadValues#MAX_ENTRIES} names or with names longer than {@value
 * LoadValues#MAX_NAME_LENGTH} characters. Recording after the call ended changes nothing sent.
 *
 * <p><b>Threads.</b> Thread-safe (one lock per call). Holds no buffers.
 */
public final class CallMetricRecorder {
  private static final ThreadLocal<CallMetricRecorder> CURRENT = new ThreadLocal<>();
  private static final CallMetricRecorder DISABLED = new CallMetricRecorder(false);

  private final boolean enabled;
  // Guarded by this.
  private final LoadValues values = new LoadValues();

  private CallMetricRecorder(boolean enabled) {
    this.enabled = enabled;
  }

  /** A recorder for a new call (the interceptor makes one per call). */
  static CallMetricRecorder forCall() {
    return new CallMetricRecorder(true);
  }

  /**
   * The recorder of the call being served on this thread, or a disabled one (which ignores every
   * value) outside such a call.
   */
  public static CallMetricRecorder current() {
    CallMetricRecorder r = CURRENT.get();
    return r != null ? r : DISABLED;
  }

  /** Makes {@code r} current on this thread; returns the one it replaces, for {@link #restore}. */
  static CallMetricRecorder enter(CallMetricRecorder r) {
    CallMetricRecorder previous = CURRENT.get();
    CURRENT.set(r);
    return previous;
  }

  /** Puts back what {@link #enter} replaced. */
  static void restore(CallMetricRecorder previous) {
    if (previous == null) {
      CURRENT.remove();
    } else {
      CURRENT.set(previous);
    }
  }

  /** False for the recorder {@link #current()} returns outside a reporting call. */
  public boolean isEnabled() {
    return enabled;
  }

  /** CPU utilization of this call's backend, at least 0 ({@code cpu_utilization}). */
  public CallMetricRecorder recordCpuUtilization(double value) {
    synchronized (this) {
      values.cpu = keep(values.cpu, LoadValues.nonNegative(value));
    }
    return this;
  }

  /** Memory utilization, within [0, 1] ({@code mem_utilization}). */
  public CallMetricRecorder recordMemoryUtilization(double value) {
    synchronized (this) {
      values.memory = keep(values.memory, LoadValues.fraction(value));
    }
    return this;
  }

  /** The application's own utilization, at least 0 ({@code application_utilization}). */
  public CallMetricRecorder recordApplicationUtilization(double value) {
    synchronized (this) {
      values.application = keep(values.application, LoadValues.nonNegative(value));
    }
    return this;
  }

  /** Requests per second the backend serves, at least 0 ({@code rps_fractional}). */
  public CallMetricRecorder recordRps(double value) {
    synchronized (this) {
      values.rps = keep(values.rps, LoadValues.nonNegative(value));
    }
    return this;
  }

  /** Errors per second the backend returns, at least 0 ({@code eps}). */
  public CallMetricRecorder recordEps(double value) {
    synchronized (this) {
      values.eps = keep(values.eps, LoadValues.nonNegative(value));
    }
    return this;
  }

  /** A named utilization, within [0, 1] ({@code utilization} map). */
  public CallMetricRecorder recordUtilization(String name, double value) {
    synchronized (this) {
      if (enabled) {
        LoadValues.put(values.utilization, name, LoadValues.fraction(value));
      }
    }
    return this;
  }

  /** A named cost of this request, any finite value ({@code request_cost} map). */
  public CallMetricRecorder recordRequestCost(String name, double value) {
    synchronized (this) {
      if (enabled && Double.isFinite(value)) {
        LoadValues.put(values.requestCost, name, value);
      }
    }
    return this;
  }

  /** An application-specific metric, any finite value ({@code named_metrics} map). */
  public CallMetricRecorder recordNamedMetric(String name, double value) {
    synchronized (this) {
      if (enabled && Double.isFinite(value)) {
        LoadValues.put(values.named, name, value);
      }
    }
    return this;
  }

  /** {@code recorded} when it is a value and this recorder records, else {@code old}. */
  private double keep(double old, double recorded) {
    return enabled && !Double.isNaN(recorded) ? recorded : old;
  }

  /** Lays this call's figures over {@code b}. */
  void writeTo(OrcaLoadReport.Builder b) {
    synchronized (this) {
      values.writeTo(b);
    }
  }

  @Override
  public String toString() {
    if (!enabled) {
      return "CallMetricRecorder(disabled)";
    }
    OrcaLoadReport.Builder b = OrcaLoadReport.newBuilder();
    writeTo(b);
    return "CallMetricRecorder(" + b.build().toString().replace('\n', ' ').trim() + ")";
  }
}
