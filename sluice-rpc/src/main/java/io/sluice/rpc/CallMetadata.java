package io.sluice.rpc;

import java.util.Objects;

/**
 * What a call says about itself before its first message: service, method, headers, deadline,
 * idempotency and rank. Transport-neutral: the RSocket binding encodes it in the first frame's
 * metadata ({@link io.sluice.rpc.rsocket.CallMetadataCodec}); a gRPC transport would build it from
 * {@code :path}, {@code grpc-timeout} and the request metadata. Immutable.
 *
 * <p>Safe to share between threads. Holds no buffers: decoding copies names and headers into
 * strings.
 */
public final class CallMetadata {
  /** Longest service or method name in bytes. */
  public static final int MAX_NAME_LENGTH = 255;

  /** Largest timeout the wire carries (u32 milliseconds, about 49.7 days). */
  public static final long MAX_TIMEOUT_MILLIS = 0xFFFF_FFFFL;

  /** No timeout. */
  public static final long NO_TIMEOUT = -1;

  private final String service;
  private final String method;
  private final Headers headers;
  private final long timeoutMillis;
  private final boolean idempotent;
  private final int rank;
  private final boolean responseMetadata;

  private CallMetadata(
      String service, String method, Headers headers, long timeoutMillis, boolean idempotent, int rank) {
    this(service, method, headers, timeoutMillis, idempotent, rank, false);
  }

  private CallMetadata(
      String service,
      String method,
      Headers headers,
      long timeoutMillis,
      boolean idempotent,
      int rank,
      boolean responseMetadata) {
    this.service = checkName("service", service);
    this.method = checkName("method", method);
    this.headers = Objects.requireNonNull(headers, "headers");
    if (timeoutMillis < NO_TIMEOUT || timeoutMillis > MAX_TIMEOUT_MILLIS) {
      throw new IllegalArgumentException(
          "timeout must be -1 (none) or 0.." + MAX_TIMEOUT_MILLIS + " ms, got " + timeoutMillis);
    }
    this.timeoutMillis = timeoutMillis;
    this.idempotent = idempotent;
    this.rank = rank;
    this.responseMetadata = responseMetadata;
  }

  /**
   * This metadata, saying whether the caller reads response headers and trailers ({@link
   * CallOptions#withResponseMetadata}): only then does a server send them back over RSocket
   * (docs/rpc-wire-format.md, "Response headers and trailers").
   */
  public CallMetadata withResponseMetadata(boolean responseMetadata) {
    if (responseMetadata == this.responseMetadata) {
      return this;
    }
    return new CallMetadata(service, method, headers, timeoutMillis, idempotent, rank, responseMetadata);
  }

  /** The caller reads the call's response headers and trailers. */
  public boolean responseMetadata() {
    return responseMetadata;
  }

  /**
   * A call's metadata.
   *
   * @param timeoutMillis the time the caller still waits, in ms, or {@link #NO_TIMEOUT}
   * @param rank the call's priority rank (0 = default)
   */
  public static CallMetadata of(
      String service, String method, Headers headers, long timeoutMillis, boolean idempotent, int rank) {
    return new CallMetadata(service, method, headers, timeoutMillis, idempotent, rank);
  }

  /** Metadata with only service and method. */
  public static CallMetadata of(String service, String method) {
    return new CallMetadata(service, method, Headers.EMPTY, NO_TIMEOUT, false, 0);
  }

  static String checkName(String what, String name) {
    Objects.requireNonNull(name, what);
    if (name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException(
          what + " name must have 1.." + MAX_NAME_LENGTH + " characters, got " + name.length());
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c <= 0x20 || c > 0x7E || c == '/') {
        throw new IllegalArgumentException(
            what + " name '" + name + "' must be printable ASCII without space or '/'");
      }
    }
    return name;
  }

  public String service() {
    return service;
  }

  public String method() {
    return method;
  }

  public Headers headers() {
    return headers;
  }

  /** True when the call carries a deadline. */
  public boolean hasTimeout() {
    return timeoutMillis >= 0;
  }

  /** The time the caller waits, in ms from when the call was sent; -1 without a deadline. */
  public long timeoutMillis() {
    return timeoutMillis;
  }

  /** The caller flagged the call idempotent (safe to retry). */
  public boolean idempotent() {
    return idempotent;
  }

  /** Priority rank; 0 when not given. */
  public int rank() {
    return rank;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof CallMetadata)) {
      return false;
    }
    CallMetadata m = (CallMetadata) o;
    return service.equals(m.service)
        && method.equals(m.method)
        && headers.equals(m.headers)
        && timeoutMillis == m.timeoutMillis
        && idempotent == m.idempotent
        && rank == m.rank
        && responseMetadata == m.responseMetadata;
  }

  @Override
  public int hashCode() {
    return Objects.hash(service, method, headers, timeoutMillis, idempotent, rank, responseMetadata);
  }

  @Override
  public String toString() {
    return service + "/" + method
        + (timeoutMillis >= 0 ? " timeout=" + timeoutMillis + "ms" : "")
        + (idempotent ? " idempotent" : "")
        + (rank != 0 ? " rank=" + rank : "")
        + (responseMetadata ? " response-metadata" : "")
        + (headers.isEmpty() ? "" : " headers=" + headers);
  }
}
