package io.sluice.transport.grpc.internal;

/**
 * The {@code grpc-timeout} header: a positive integer of at most 8 digits followed by a unit,
 * {@code H} hours, {@code M} minutes, {@code S} seconds, {@code m} milliseconds, {@code u}
 * microseconds or {@code n} nanoseconds (gRPC over HTTP/2, "Requests").
 *
 * <p>Stateless: safe from any thread. Holds no buffers.
 */
public final class GrpcTimeout {
  private GrpcTimeout() {}

  /** Most digits the value may have. */
  public static final int MAX_DIGITS = 8;

  private static final long MAX_VALUE = 99_999_999L;

  /**
   * The timeout {@code value} stands for, in nanoseconds (saturating at {@link Long#MAX_VALUE}), or
   * -1 when it is not a valid {@code grpc-timeout}.
   */
  public static long parseNanos(CharSequence value) {
    if (value == null) {
      return -1;
    }
    int n = value.length();
    if (n < 2 || n > MAX_DIGITS + 1) {
      return -1;
    }
    long v = 0;
    for (int i = 0; i < n - 1; i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    long unitNanos;
    switch (value.charAt(n - 1)) {
      case 'n':
        unitNanos = 1L;
        break;
      case 'u':
        unitNanos = 1_000L;
        break;
      case 'm':
        unitNanos = 1_000_000L;
        break;
      case 'S':
        unitNanos = 1_000_000_000L;
        break;
      case 'M':
        unitNanos = 60_000_000_000L;
        break;
      case 'H':
        unitNanos = 3_600_000_000_000L;
        break;
      default:
        return -1;
    }
    return v > Long.MAX_VALUE / unitNanos ? Long.MAX_VALUE : v * unitNanos;
  }

  private static final char[] UNITS = {'n', 'u', 'm', 'S', 'M', 'H'};
  private static final long[] UNIT_NANOS = {
    1L, 1_000L, 1_000_000L, 1_000_000_000L, 60_000_000_000L, 3_600_000_000_000L
  };

  /**
   * {@code nanos} as a {@code grpc-timeout} value: in the finest unit whose value fits in 8
   * digits, rounded up so that the peer never sees a shorter timeout than meant. A negative or zero
   * timeout is sent as {@code 0n} (already expired); a very long one is capped at 99,999,999 hours.
   */
  public static String format(long nanos) {
    if (nanos <= 0) {
      return "0n";
    }
    for (int i = 0; i < UNITS.length; i++) {
      long unit = UNIT_NANOS[i];
      long v = nanos / unit + (nanos % unit == 0 ? 0 : 1);
      if (v <= MAX_VALUE) {
        return Long.toString(v) + UNITS[i];
      }
    }
    return MAX_VALUE + "H";
  }
}
