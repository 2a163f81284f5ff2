package io.sluice.benchmarks.many;

/**
 * The client half of one implementation in the many-connections mode: its connections all on one
 * event loop (as every harness client), a closed loop of calls on each.
 */
public interface ManyClient {
  /**
   * Opens one connection to 127.0.0.1:{@code port} per element of {@code callsPerConnection}, then
   * starts that many request-response calls on each, every call carrying {@code requestSize} bytes;
   * each call that ends starts the next on the same connection (a failed one a millisecond later).
   * Every call is timed from its start to its end into {@code calls}. Returns once every
   * connection is open and its calls are handed to its event loop; a connection that cannot be
   * opened within 10 s is an exception.
   */
  void start(int port, int[] callsPerConnection, int requestSize, CallStats calls) throws Exception;

  /** The client of {@code impl}, one of {@link ManyOptions#IMPLS}. */
  static ManyClient of(String impl) {
    switch (impl) {
      case "sluice":
        return new SluiceManyClient();
      case "sluice-rpc":
        return new RpcManyClient();
      case "grpc-java":
        return new GrpcManyClient();
      default:
        throw new IllegalArgumentException(
            "no many-connections client for '" + impl + "'; one of " + ManyOptions.IMPLS);
    }
  }
}
