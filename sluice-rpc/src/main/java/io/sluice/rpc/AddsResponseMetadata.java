package io.sluice.rpc;

import com.google.protobuf.MessageLite;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * {@link ServerInterceptors#responseMetadata}: sends the headers a call's request metadata calls
 * for as the call starts, and adds the trailers its end calls for to those its handler gives.
 *
 * <p>Stateless and thread-safe; each call's wrapper is used as the call model's {@link ServerCall}
 * is (any thread, one signal at a time). Holds no buffers.
 */
final class AddsResponseMetadata implements ServerInterceptor {
  private final Function<CallMetadata, Headers> headers;
  private final BiFunction<CallMetadata, Status, Headers> trailers;

  AddsResponseMetadata(
      Function<CallMetadata, Headers> headers, BiFunction<CallMetadata, Status, Headers> trailers) {
    this.headers = Objects.requireNonNull(headers, "headers");
    this.trailers = Objects.requireNonNull(trailers, "trailers");
  }

  @Override
  public <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> interceptCall(
      ServerCall<Req, Resp> call, ServerCallHandler<Req, Resp> next) {
    CallMetadata metadata = call.metadata();
    Headers first = headers.apply(metadata);
    if (!first.isEmpty()) {
      call.sendHeaders(first);
    }
    return next.startCall(
        new ForwardingServerCall<>(call) {
          @Override
          public void close(Status status) {
            Headers own = trailers.apply(metadata, status);
            if (own.isEmpty()) {
              super.close(status);
            } else {
              super.close(status, own);
            }
          }

          @Override
          public void close(Status status, Headers more) {
            Headers own = trailers.apply(metadata, status);
            super.close(status, own.isEmpty() ? more : own.toBuilder().addAll(more).build());
          }
        });
  }

  @Override
  public String toString() {
    return "ServerInterceptors.responseMetadata(" + headers + ", " + trailers + ")";
  }
}
