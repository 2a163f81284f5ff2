package io.sluice.rpc.services.orca;

import io.sluice.rpc.services.xds.data.orca.v3.OrcaLoadReport;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The figures one recorder holds: five scalars (NaN while not recorded) and three named maps, each
 * bounded ({@link #MAX_ENTRIES} names of at most {@link #MAX_NAME_LENGTH} characters) so that a
 * report always fits one binary trailer. Values outside a field's range are ignored, as grpc-java's
 * recorders ignore them. Not thread-safe: its owner locks.
 */
final class LoadValues {
  /** Most names per map (utilization, request cost, named metrics); later new names are ignored. */
  static final int MAX_ENTRIES = 64;

  /** Longest name in a map, in characters; longer names are ignored. */
  static final int MAX_NAME_LENGTH = 128;

  double cpu = Double.NaN;
  double memory = Double.NaN;
  double application = Double.NaN;
  double rps = Double.NaN;
  double eps = Double.NaN;
  final Map<String, Double> utilization = new LinkedHashMap<>();
  final Map<String, Double> requestCost = new LinkedHashMap<>();
  final Map<String, Double> named = new LinkedHashMap<>();

  /** {@code v} if it is finite and at least 0, else NaN (not recorded). */
  static double nonNegative(double v) {
    return Double.isFinite(v) && v >= 0 ? v : Double.NaN;
  }

  /** {@code v} if it is within [0, 1], else NaN (not recorded). */
  static double fraction(double v) {
    return v >= 0 && v <= 1 ? v : Double.NaN;
  }

  /** Puts {@code name -> value} into {@code map} within the bounds; false if it was ignored. */
  static boolean put(Map<String, Double> map, String name, double value) {
    if (name == null || name.isEmpty() || name.length() > MAX_NAME_LENGTH || Double.isNaN(value)) {
      return false;
    }
    if (map.size() >= MAX_ENTRIES && !map.containsKey(name)) {
      return false;
    }
    map.put(name, value);
    return true;
  }

  void clear() {
    cpu = memory = application = rps = eps = Double.NaN;
    utilization.clear();
    requestCost.clear();
    named.clear();
  }

  /** Writes the recorded figures over {@code b}: scalars replace, map entries replace by name. */
  void writeTo(OrcaLoadReport.Builder b) {
    if (!Double.isNaN(cpu)) {
      b.setCpuUtilization(cpu);
    }
    if (!Double.isNaN(memory)) {
      b.setMemUtilization(memory);
    }
    if (!Double.isNaN(application)) {
      b.setApplicationUtilization(application);
    }
    if (!Double.isNaN(rps)) {
      b.setRpsFractional(rps);
    }
    if (!Double.isNaN(eps)) {
      b.setEps(eps);
    }
    b.putAllUtilization(utilization);
    b.putAllRequestCost(requestCost);
    b.putAllNamedMetrics(named);
  }
}
