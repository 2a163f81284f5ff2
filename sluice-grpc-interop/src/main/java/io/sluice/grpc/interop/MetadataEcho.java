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

/**
 * The custom_metadata case's echo, as a wrapper of every method of a service: a call's {@value
 * #ECHO_INITIAL} request header goes back as a response header, sent as the call starts (on the
 * connection's event loop, before the handler runs), and its {@value #ECHO_TRAILING} header
 * (binary: base64 text, as Sluice headers hold binary values) as a trailer when the call ends.
 * Calls without those headers pass through untouched. The header and trailer go out through the
 * call model ({@link ServerCall#sendHeaders}, {@link ServerCall#close(Status, Headers)}), which
 * both the gRPC transport and the RSocket binding carry (over RSocket, to callers that ask for
 * response metadata).
 *
 * <p>The header goes out at the start rather than with the first response: a response written
 * from another thread and the close right behind it would otherwise race the header on Sluice's
 * gRPC server, which drops headers handed to its event loop after the call was closed elsewhere.
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
  public static ServiceDefinition wrap(ServiceDefinition service) {
    ServiceDefinition.Builder b = ServiceDefinition.builder(service.name());
    if (service.fileDescriptor() != null) {
      b.fileDescriptor(service.fileDescriptor()); // reflection still describes it
    }
    for (ServerMethodDefinition<?, ?> m : service.methods()) {
      add(b, m);
    }
    return b.build();
  }

  private static <Req extends MessageLite, Resp extends MessageLite> void add(
      ServiceDefinition.Builder b, ServerMethodDefinition<Req, Resp> m) {
    ServerCallHandler<Req, Resp> handler = m.handler();
    b.add(m.method(), call -> handler.startCall(echoing(call)));
  }

  private static <Req extends MessageLite, Resp extends MessageLite> ServerCall<Req, Resp> echoing(
      ServerCall<Req, Resp> call) {
    Headers in = call.metadata().headers();
    String initial = in.get(ECHO_INITIAL);
    String trailing = in.get(ECHO_TRAILING);
    if (initial != null) {
      call.sendHeaders(Headers.builder().add(ECHO_INITIAL, initial).build());
    }
    if (trailing == null) {
      return call;
    }
    return new EchoingCall<>(call, Headers.builder().add(ECHO_TRAILING, trailing).build());
  }

  /** Adds the echoed trailer to however the call ends. */
  private static final class EchoingCall<Req extends MessageLite, Resp extends MessageLite>
      implements ServerCall<Req, Resp> {
    private final ServerCall<Req, Resp> call;
    private final Headers trailers;

    EchoingCall(ServerCall<Req, Resp> call, Headers trailers) {
      this.call = call;
      this.trailers = trailers;
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
      call.sendMessage(message);
    }

    @Override
    public void sendHeaders(Headers headers) {
      call.sendHeaders(headers);
    }

    @Override
    public void close(Status status) {
      call.close(status, trailers);
    }

    @Override
    public void close(Status status, Headers more) {
      call.close(status, Headers.builder().addAll(trailers).addAll(more).build());
    }

    @Override
    public boolean isClosed() {
      return call.isClosed();
    }
  }
}
