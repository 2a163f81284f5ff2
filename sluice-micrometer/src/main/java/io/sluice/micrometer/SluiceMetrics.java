package io.sluice.micrometer;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.sluice.core.ConnectionObserver;
import io.sluice.rpc.ClientInterceptor;
import io.sluice.rpc.RpcInstrumentation;
import java.util.Objects;

/**
 * Sluice's metrics, bound to a {@link MeterRegistry} the user passes (Prometheus, OTLP, Spring
 * Boot's, a {@code SimpleMeterRegistry} in tests: micrometer-core only is needed here). One
 * instance per registry; each getter returns the same object every time, so one binding serves
 * every server and connector that is given it.
 *
 * <ul>
 *   <li>{@link #connections()}: a {@link ConnectionObserver} for {@code
 *       ConnectionOptions.Builder#observer}: {@code sluice.connections}, {@code
 *       sluice.connections.opened}, {@code sluice.connections.closed}, {@code sluice.streams},
 *       {@code sluice.streams.active}, {@code sluice.frames}, {@code sluice.bytes}, {@code
 *       sluice.errors}, {@code sluice.limits.hit}, each tagged {@code transport} and {@code side}.
 *   <li>{@link #rsocketServer()}: RPC server metrics on the RSocket wire (OpenTelemetry RPC
 *       semantic conventions), for {@code RpcResponder}.
 *   <li>{@link #grpcServer()}: RPC server metrics on the gRPC wire (gRFC A66), for {@code
 *       GrpcServices}.
 *   <li>{@link #rsocketClient(String)} and {@link #grpcClient(String)}: RPC client metrics, as
 *       client interceptors ({@code rpc.client.*}; gRFC A66's {@code grpc.client.*}).
 *   <li>{@link LeaseMeters} and {@link BalancerMeters}: {@code sluice.lease.*} and {@code
 *       sluice.balancer.*}.
 * </ul>
 *
 * <p>Thread-safe. docs/guide/observability.md lists every meter with its meaning and cardinality.
 */
public final class SluiceMetrics {
  private final MeterRegistry registry;
  private final Tags common;
  private volatile ConnectionMeters connections;
  private volatile RpcMeters rsocketServer;
  private volatile RpcMeters grpcServer;
  private MeterRemovals removals; // made with the first RPC meters


  private SluiceMetrics(MeterRegistry registry, Tags common) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.common = common;
  }

  /** Metrics into {@code registry}. */
  public static SluiceMetrics of(MeterRegistry registry) {
    return new SluiceMetrics(registry, Tags.empty());
  }

  /** Metrics into {@code registry}, every meter carrying {@code commonTags} too. */
  public static SluiceMetrics of(MeterRegistry registry, Iterable<Tag> commonTags) {
    return new SluiceMetrics(registry, Tags.of(commonTags));
  }

  /** The registry the meters go to. */
  public MeterRegistry registry() {
    return registry;
  }

  /** The connection observer to give {@code ConnectionOptions.Builder#observer}. */
  public synchronized ConnectionObserver connections() {
    if (connections == null) {
      connections = new ConnectionMeters(registry, common);
    }
    return connections;
  }

  /**
   * RPC server metrics on the RSocket wire, for {@code RpcResponder} ({@code
   * rpc.server.call.started}, {@code rpc.server.call.duration}, {@code rpc.server.request.size},
   * {@code rpc.server.response.size}; {@code rpc.system}, {@code rpc.service}, {@code
   * rpc.method}, {@code rpc.response.status_code}).
   */
  public synchronized RpcInstrumentation rsocketServer() {
    if (rsocketServer == null) {
      rsocketServer = new RpcMeters(registry, common, RpcMeterNames.RSOCKET_SERVER, removals());
    }
    return rsocketServer;
  }

  /**
   * RPC server metrics on the gRPC wire, for {@code GrpcServices.withInstrumentation}: gRFC A66's
   * {@code grpc.server.call.started}, {@code grpc.server.call.duration}, {@code
   * grpc.server.call.sent_total_compressed_message_size} and {@code
   * grpc.server.call.rcvd_total_compressed_message_size}, with {@code grpc.method} and {@code
   * grpc.status}.
   */
  public synchronized RpcInstrumentation grpcServer() {
    if (grpcServer == null) {
      grpcServer = new RpcMeters(registry, common, RpcMeterNames.GRPC_SERVER, removals());
    }
    return grpcServer;
  }

  /**
   * RPC client metrics on the gRPC wire, as a client interceptor for the calls to {@code target}
   * (the channel's target, as A66's {@code grpc.target}: {@code "dns:///host:port"}, say; one
   * value per interceptor, so pass a fixed name, never one a peer chose). gRFC A66's {@code
   * grpc.client.attempt.started}, {@code grpc.client.attempt.duration}, {@code
   * grpc.client.attempt.sent_total_compressed_message_size}, {@code
   * grpc.client.attempt.rcvd_total_compressed_message_size} and {@code grpc.client.call.duration},
   * with {@code grpc.method}, {@code grpc.target} and {@code grpc.status}. Each call is one attempt
   * here (see {@link RpcClientMeters}). Make one per channel and reuse it.
   */
  public ClientInterceptor grpcClient(String target) {
    return client(RpcMeterNames.GRPC_CLIENT, target);
  }

  /**
   * RPC client metrics on the RSocket wire, as a client interceptor for the calls to {@code target}
   * (tag {@code server.address}, one value per interceptor): OpenTelemetry's {@code
   * rpc.client.call.started}, {@code rpc.client.call.duration}, {@code rpc.client.request.size} and
   * {@code rpc.client.response.size}, with {@code rpc.system}, {@code rpc.service}, {@code
   * rpc.method} and {@code rpc.response.status_code}. Make one per connection target and reuse it.
   */
  public ClientInterceptor rsocketClient(String target) {
    return client(RpcMeterNames.RSOCKET_CLIENT, target);
  }

  private ClientInterceptor client(RpcMeterNames names, String target) {
    Objects.requireNonNull(target, "target");
    return new RpcClientMeters(new RpcMeters(registry, common.and(names.targetTag(), target), names, removals()), target);
  }

  private synchronized MeterRemovals removals() {
    if (removals == null) {
      removals = MeterRemovals.of(registry);
    }
    return removals;
  }

  Tags commonTags() {
    return common;
  }
}
