package io.sluice.rpc;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Client-side options of calls: headers, a timeout (sent as the call's deadline), the idempotent
 * flag, instrumentation, and a listener for response headers and trailers. Immutable; the {@code with*} methods return copies. Generated clients take them
 * through {@code withOptions(CallOptions)}.
 *
 * <p>Safe to share between threads. Holds no buffers.
 */
public final class CallOptions {
  /** No headers, no timeout, idempotent flag from the method's declaration. */
  public static final CallOptions DEFAULT =
      new CallOptions(Headers.EMPTY, null, null, RpcInstrumentation.NONE, null);

  private final Headers headers;
  private final Duration timeout;
  private final Boolean idempotent;
  private final RpcInstrumentation instrumentation;
  private final ResponseMetadataListener responseMetadata; // null: the caller reads none
  /** Without a timeout the metadata of a call depends only on the method: built once per method. */
  private final ConcurrentHashMap<MethodDescriptor<?, ?>, CallMetadata> fixedMetadata =
      new ConcurrentHashMap<>();

  private CallOptions(
      Headers headers,
      Duration timeout,
      Boolean idempotent,
      RpcInstrumentation instrumentation,
      ResponseMetadataListener responseMetadata) {
    this.responseMetadata = responseMetadata;
    this.headers = headers;
    this.timeout = timeout;
    this.idempotent = idempotent;
    this.instrumentation = instrumentation;
  }

  /**
   * Observes the client side of each call: start, first response, end with status and latency
   * (DEADLINE_EXCEEDED when the client's timer ends it, CANCELLED when the subscriber cancels).
   */
  public CallOptions withInstrumentation(RpcInstrumentation instrumentation) {
    return new CallOptions(
        headers,
        timeout,
        idempotent,
        Objects.requireNonNull(instrumentation, "instrumentation"),
        responseMetadata);
  }

  /** The client-side instrumentation; {@link RpcInstrumentation#NONE} by default. */
  public RpcInstrumentation instrumentation() {
    return instrumentation;
  }

  /** Headers sent with every call. */
  public CallOptions withHeaders(Headers headers) {
    return new CallOptions(
        Objects.requireNonNull(headers, "headers"), timeout, idempotent, instrumentation, responseMetadata);
  }

  /**
   * Each call must end within {@code timeout} of its start: the server is told, cancels the
   * handler when it passes, and the client fails the call with DEADLINE_EXCEEDED and cancels the
   * stream. Whole milliseconds travel on the wire (rounded up).
   */
  public CallOptions withTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, got " + timeout);
    }
    if (timeout.toMillis() > CallMetadata.MAX_TIMEOUT_MILLIS) {
      throw new IllegalArgumentException("timeout is longer than 2^32-1 ms: " + timeout);
    }
    return new CallOptions(headers, timeout, idempotent, instrumentation, responseMetadata);
  }

  /** No timeout. */
  public CallOptions withoutTimeout() {
    return new CallOptions(headers, null, idempotent, instrumentation, responseMetadata);
  }

  /**
   * Overrides the idempotent flag sent with calls (by default each method's declared {@code
   * (sluice.method).idempotent}). A server refuses a call flagged idempotent to a method that is not
   * declared so.
   */
  public CallOptions withIdempotent(boolean idempotent) {
    return new CallOptions(headers, timeout, idempotent, instrumentation, responseMetadata);
  }

  /**
   * Hands each call's response headers and trailers to {@code listener} (a {@link
   * ResponseMetadataCapture}, say), over RSocket and over gRPC alike. Over RSocket the call then
   * asks the server for them (call metadata flag 0x20): a Sluice server older than this feature
   * refuses such calls with INVALID_ARGUMENT ("unknown flags 0x20"). Without a listener (the
   * default) calls cost nothing extra.
   */
  public CallOptions withResponseMetadata(ResponseMetadataListener listener) {
    return new CallOptions(
        headers, timeout, idempotent, instrumentation, Objects.requireNonNull(listener, "listener"));
  }

  /** Calls without a response metadata listener (the default). */
  public CallOptions withoutResponseMetadata() {
    return new CallOptions(headers, timeout, idempotent, instrumentation, null);
  }

  /** The response metadata listener, or null. */
  public ResponseMetadataListener responseMetadata() {
    return responseMetadata;
  }

  public Headers headers() {
    return headers;
  }

  /** The timeout, or null. */
  public Duration timeout() {
    return timeout;
  }

  /** The idempotent flag for {@code method}: the override if set, the declaration otherwise. */
  public boolean idempotent(MethodDescriptor<?, ?> method) {
    return idempotent != null ? idempotent : method.idempotent();
  }

  /** The metadata of a call to {@code method} starting now. */
  public CallMetadata metadata(MethodDescriptor<?, ?> method) {
    if (timeout == null) {
      CallMetadata md = fixedMetadata.get(method);
      if (md == null) {
        md = build(method);
        if (fixedMetadata.size() < MAX_CACHED_METHODS) {
          fixedMetadata.put(method, md);
        }
      }
      return md;
    }
    return build(method);
  }

  /** Bounds the per-method cache of {@link #metadata} (descriptors are normally constants). */
  private static final int MAX_CACHED_METHODS = 1024;

  private CallMetadata build(MethodDescriptor<?, ?> method) {
    long ms = CallMetadata.NO_TIMEOUT;
    if (timeout != null) {
      long nanos = timeout.toNanos();
      ms = Math.min(CallMetadata.MAX_TIMEOUT_MILLIS, (nanos + 999_999) / 1_000_000);
    }
    CallMetadata md =
        CallMetadata.of(method.service(), method.method(), headers, ms, idempotent(method), method.rank());
    return responseMetadata == null ? md : md.withResponseMetadata(true);
  }
}
