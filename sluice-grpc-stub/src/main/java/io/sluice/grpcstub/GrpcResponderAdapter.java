package io.sluice.grpcstub;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.grpc.stub.StreamObserver;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import java.util.Objects;

/** Adapts a {@link GrpcResponder} to the core's {@link Responder}. */
final class GrpcResponderAdapter implements Responder {
  private static final InternalLogger logger =
      InternalLoggerFactory.getInstance(GrpcResponderAdapter.class);
  private final GrpcResponder handler;

  GrpcResponderAdapter(GrpcResponder handler) {
    this.handler = Objects.requireNonNull(handler, "handler");
  }

  @Override
  public void fireAndForget(Message request) {
    try {
      handler.fireAndForget(request);
    } catch (Throwable t) {
      logger.debug("fireAndForget handler failed", t);
    }
  }

  @Override
  public void metadataPush(Message metadata) {
    try {
      handler.metadataPush(metadata);
    } catch (Throwable t) {
      logger.debug("metadataPush handler failed", t);
    }
  }

  @Override
  public StreamListener requestResponse(Message request, StreamHandle response) {
    ServerCall call = new ServerCall(ServerCall.Kind.RESPONSE, response);
    try {
      handler.requestResponse(request, call);
    } catch (Throwable t) {
      call.onError(t);
    }
    return call.listener;
  }

  @Override
  public StreamListener requestStream(Message request, StreamHandle stream) {
    ServerCall call = new ServerCall(ServerCall.Kind.STREAM, stream);
    try {
      handler.requestStream(request, call);
    } catch (Throwable t) {
      call.onError(t);
    }
    return call.listener;
  }

  @Override
  public StreamListener requestChannel(Message first, boolean inboundComplete, StreamHandle channel) {
    ServerCall call = new ServerCall(ServerCall.Kind.CHANNEL, channel);
    StreamObserver<Message> requests;
    try {
      requests = handler.requestChannel(call);
    } catch (Throwable t) {
      first.release();
      channel.error(t);
      return call.listener;
    }
    call.channelStarted(requests, first, inboundComplete);
    return call.listener;
  }
}
