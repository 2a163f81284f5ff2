package io.sluice.rpc;

import com.google.protobuf.MessageLite;
import java.util.Objects;

/**
 * A method and the handler that serves it. Immutable.
 *
 * <p>Safe to share between threads. Holds no buffers.
 */
public final class ServerMethodDefinition<Req extends MessageLite, Resp extends MessageLite> {
  private final MethodDescriptor<Req, Resp> method;
  private final ServerCallHandler<Req, Resp> handler;

  private ServerMethodDefinition(MethodDescriptor<Req, Resp> method, ServerCallHandler<Req, Resp> handler) {
    this.method = Objects.requireNonNull(method, "method");
    this.handler = Objects.requireNonNull(handler, "handler");
  }

  public static <Req extends MessageLite, Resp extends MessageLite> ServerMethodDefinition<Req, Resp> of(
      MethodDescriptor<Req, Resp> method, ServerCallHandler<Req, Resp> handler) {
    return new ServerMethodDefinition<>(method, handler);
  }

  public MethodDescriptor<Req, Resp> method() {
    return method;
  }

  public ServerCallHandler<Req, Resp> handler() {
    return handler;
  }
}
