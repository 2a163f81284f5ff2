package io.sluice.grpc.interop;

import com.google.protobuf.MessageLite;
import io.sluice.rpc.ForwardingServerCall;
import io.sluice.rpc.Headers;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.ServerInterceptor;
import io.sluice.rpc.ServerInterceptors;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.Status;

/**
 * The custom_metadata case's echo, as a {@link ServerInterceptor}: a call's {@value #ECHO_INITIAL}
 * request header goes back as a response header, sent as the call starts (on the connection's
 * event loop, before the handler runs), and its {@value #ECHO_TRAILING} header (binary: base64
 * text, as Sluice headers hold binary values) as a trailer when the call ends. Calls without those
 * headers pass through untouched. The header and trailer go out through the call model ({@link
 * ServerCall#sendHeaders}, {@link ServerCall#close(Status, Headers)}), which both the gRPC
 * transport and the RSocket binding carry (over RSocket, to callers that ask for response
 * metadata).
 *
 * <p>The header goes out at the start rather than with the first response: a response written
 * from another thread and the close right behind it would otherwise race the header on Sluice's
 * gRPC server, which drops headers handed to its event loop after the call was closed elsewhere.
 *
 * <p>Stateless; each call's wrapper is used as the call model's {@link ServerCall} is (any thread,
 * one signal at a time). Holds no buffers.
 */
public final class MetadataEcho implements ServerInterceptor {
  /** Echoed as a response header. */
  public static final String ECHO_INITIAL = "x-grpc-test-echo-initial";

  /** Echoed as a trailer (binary). */
  public static final String ECHO_TRAILING = "x-grpc-test-echo-trailing-bin";

  /** The echo. */
  public static final MetadataEcho INSTANCE = new MetadataEcho();

  private MetadataEcho() {}

  /** {@code service} with every method's calls echoing their metadata. */
  public static ServiceDefinition wrap(ServiceDefinition service) {
    return ServerInterceptors.intercept(service, INSTANCE);
  }

  @Override
  public <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> interceptCall(
      ServerCall<Req, Resp> call, ServerCallHandler<Req, Resp> next) {
    Headers in = call.metadata().headers();
    String initial = in.get(ECHO_INITIAL);
    String trailing = in.get(ECHO_TRAILING);
    if (initial != null) {
      call.sendHeaders(Headers.builder().add(ECHO_INITIAL, initial).build());
    }
    if (trailing == null) {
      return next.startCall(call);
    }
    Headers echoed = Headers.builder().add(ECHO_TRAILING, trailing).build();
    return next.startCall(
        new ForwardingServerCall<>(call) {
          @Override
          public void close(Status status) {
            super.close(status, echoed);
          }

          @Override
          public void close(Status status, Headers more) {
            super.close(status, echoed.toBuilder().addAll(more).build());
          }
        });
  }
}
