package io.sluice.grpc.interop;

import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.Headers;
import io.sluice.rpc.ServerInterceptor;
import io.sluice.rpc.ServerInterceptors;
import io.sluice.rpc.ServiceDefinition;

/**
 * The custom_metadata case's echo, as a {@link ServerInterceptors#responseMetadata} interceptor: a
 * call's {@value #ECHO_INITIAL} request header goes back as a response header, sent as the call
 * starts (on the connection's event loop, before the handler runs), and its {@value
 * #ECHO_TRAILING} header (binary: base64 text, as Sluice headers hold binary values) as a trailer
 * when the call ends. Calls without those headers get nothing added. The header and trailer go out
 * through the call model, which both the gRPC transport and the RSocket binding carry (over
 * RSocket, to callers that ask for response metadata).
 *
 * <p>Stateless. Holds no buffers.
 */
public final class MetadataEcho {
  /** Echoed as a response header. */
  public static final String ECHO_INITIAL = "x-grpc-test-echo-initial";

  /** Echoed as a trailer (binary). */
  public static final String ECHO_TRAILING = "x-grpc-test-echo-trailing-bin";

  /** The echo. */
  public static final ServerInterceptor INSTANCE =
      ServerInterceptors.responseMetadata(
          call -> echo(call, ECHO_INITIAL), (call, status) -> echo(call, ECHO_TRAILING));

  private MetadataEcho() {}

  /** {@code service} with every method's calls echoing their metadata. */
  public static ServiceDefinition wrap(ServiceDefinition service) {
    return ServerInterceptors.intercept(service, INSTANCE);
  }

  /** The request header {@code key} as a response header or trailer, if the call has it. */
  private static Headers echo(CallMetadata call, String key) {
    String value = call.headers().get(key);
    return value == null ? Headers.EMPTY : Headers.builder().add(key, value).build();
  }
}
