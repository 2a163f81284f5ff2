package io.sluice.grpc.interop;

import com.google.protobuf.MessageLite;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.Headers;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.ServerMethodDefinition;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.Status;
import java.util.Objects;

/**
 * The custom_metadata case's echo, as a wrapper of every method of a service: a call's {@value
 * #ECHO_INITIAL} request header goes back as a response header (before the first response, or at
 * the end of a call without one), and its {@value #ECHO_TRAILING} header (binary: base64 text, as
 * Sluice headers hold binary values) as a trailer. Calls without those headers pass through
 * untouched. Where the headers and trailers go is a {@link ResponseMetadata}.
 *
 * <p>Stateless; each call's wrapper is used as the call model's {@link ServerCall} is (any thread,
 * one signal at a time). Holds no buffers.
 */
public final class MetadataEcho {
  /** Echoed as a response header. */
  public static final String ECHO_INITIAL = "x-grpc-test-echo-initial";

  /** Echoed as a trailer (binary). */
  public static final String ECHO_TRAILING = "x-grpc-test-echo-trailing-bin";

  private MetadataEcho() {}

  /** {@code service} with every method's calls echoing their metadata to {@code out}. */
  public static ServiceDefinition wrap(ServiceDefinition service, ResponseMetadata out) {
    Objects.requireNonNull(out, "out");
    ServiceDefinition.Builder b = ServiceDefinition.builder(service.name());
    for (ServerMethodDefinition<?, ?> m : service.methods()) {
      add(b, m, out);
    }
    return b.build();
  }

  private static <Req extends MessageLite, Resp extends MessageLite> void add(
      ServiceDefinition.Builder b, ServerMethodDefinition<Req, Resp> m, ResponseMetadata out) {
    ServerCallHandler<Req, Resp> handler = m.handler();
    b.add(m.method(), call -> handler.startCall(echoing(call, out)));
  }

  private static <Req extends MessageLite, Resp extends MessageLite> ServerCall<Req, Resp> echoing(
      ServerCall<Req, Resp> call, ResponseMetadata out) {
    Headers in = call.metadata().headers();
    String initial = in.get(ECHO_INITIAL);
    String trailing = in.get(ECHO_TRAILING);
    if (initial == null && trailing == null) {
      return call;
    }
    Headers headers = initial == null ? Headers.EMPTY : Headers.builder().add(ECHO_INITIAL, initial).build();
    Headers trailers = trailing == null ? Headers.EMPTY : Headers.builder().add(ECHO_TRAILING, trailing).build();
    return new EchoingCall<>(call, out, headers, trailers);
  }

  /** Sends the echoed headers before the first response and the trailers at the end. */
  private static final class EchoingCall<Req extends MessageLite, Resp extends MessageLite>
      implements ServerCall<Req, Resp> {
    private final ServerCall<Req, Resp> call;
    private final ResponseMetadata out;
    private final Headers headers;
    private final Headers trailers;
    private boolean headersSent; // guarded by this

    EchoingCall(ServerCall<Req, Resp> call, ResponseMetadata out, Headers headers, Headers trailers) {
      this.call = call;
      this.out = out;
      this.headers = headers;
      this.trailers = trailers;
    }

    private void headersOnce() {
      synchronized (this) {
        if (headersSent) {
          return;
        }
        headersSent = true;
      }
      if (!headers.isEmpty()) {
        out.sendHeaders(call, headers);
      }
    }

    @Override
    public CallMetadata metadata() {
      return call.metadata();
    }

    @Override
    public MethodDescriptor<Req, Resp> method() {
      return call.method();
    }

    @Override
    public void request(long n) {
      call.request(n);
    }

    @Override
    public void sendMessage(Resp message) {
      headersOnce();
      call.sendMessage(message);
    }

    @Override
    public void close(Status status) {
      headersOnce();
      out.close(call, status, trailers);
    }

    @Override
    public void sendHeaders(Headers more) {
      // A handler's own headers go out with the echoed one, once, as the first headers.
      synchronized (this) {
        if (headersSent) {
          return;
        }
        headersSent = true;
      }
      out.sendHeaders(call, Headers.builder().addAll(headers).addAll(more).build());
    }

    @Override
    public void close(Status status, Headers more) {
      headersOnce();
      out.close(call, status, Headers.builder().addAll(trailers).addAll(more).build());
    }

    @Override
    public boolean isClosed() {
      return call.isClosed();
    }
  }
}
