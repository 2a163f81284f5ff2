package io.sluice.transport.grpc;

import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.ServiceRegistry;
import java.util.Objects;

/**
 * What a gRPC server serves and how: the services, the largest request message accepted, whether
 * responses are gzip-compressed, and the instrumentation that observes calls. Used by {@link
 * GrpcServer} and by the multiprotocol server's {@code withGrpc}. Immutable: each {@code with*}
 * returns a new instance; safe to share between threads. Holds no buffers.
 *
 * <p>Defaults: a {@value #DEFAULT_MAX_INBOUND_MESSAGE_SIZE}-byte (16 MiB) inbound message limit,
 * checked on the message's prefix and again after decompression (a larger message ends the call
 * with RESOURCE_EXHAUSTED); responses uncompressed; no instrumentation.
 */
public final class GrpcServices {
  /** The largest request message accepted unless {@link #withMaxInboundMessageSize} says otherwise. */
  public static final int DEFAULT_MAX_INBOUND_MESSAGE_SIZE = 16 << 20;

  private final ServiceRegistry registry;
  private final int maxInboundMessageSize;
  private final boolean gzipResponses;
  private final RpcInstrumentation instrumentation;

  private GrpcServices(
      ServiceRegistry registry, int maxInboundMessageSize, boolean gzipResponses, RpcInstrumentation instrumentation) {
    this.registry = registry;
    this.maxInboundMessageSize = maxInboundMessageSize;
    this.gzipResponses = gzipResponses;
    this.instrumentation = instrumentation;
  }

  /** Serves the services of {@code registry} with the defaults. */
  public static GrpcServices of(ServiceRegistry registry) {
    return new GrpcServices(
        Objects.requireNonNull(registry, "registry"), DEFAULT_MAX_INBOUND_MESSAGE_SIZE, false, RpcInstrumentation.NONE);
  }

  /**
   * The largest request message accepted, in bytes after decompression (0..2^31-1); a gzip
   * message is inflated only up to it.
   */
  public GrpcServices withMaxInboundMessageSize(int bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("max inbound message size must not be negative, got " + bytes);
    }
    return new GrpcServices(registry, bytes, gzipResponses, instrumentation);
  }

  /**
   * Compresses response messages with gzip for callers that accept it ({@code
   * grpc-accept-encoding}); off by default (it costs CPU to save bandwidth).
   */
  public GrpcServices withGzipResponses(boolean gzip) {
    return new GrpcServices(registry, maxInboundMessageSize, gzip, instrumentation);
  }

  /** Observes every call (metrics, tracing). */
  public GrpcServices withInstrumentation(RpcInstrumentation instrumentation) {
    return new GrpcServices(
        registry, maxInboundMessageSize, gzipResponses, Objects.requireNonNull(instrumentation, "instrumentation"));
  }

  public ServiceRegistry registry() {
    return registry;
  }

  public int maxInboundMessageSize() {
    return maxInboundMessageSize;
  }

  public boolean gzipResponses() {
    return gzipResponses;
  }

  public RpcInstrumentation instrumentation() {
    return instrumentation;
  }
}
