package io.sluice.micrometer;

import com.google.protobuf.MessageLite;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.ClientCall;
import io.sluice.rpc.ClientChannel;
import io.sluice.rpc.ClientInterceptor;
import io.sluice.rpc.ForwardingClientCall;
import io.sluice.rpc.ForwardingClientCallListener;
import io.sluice.rpc.Headers;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.RpcInstrumentation.CallObserver;
import io.sluice.rpc.Status;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * RPC client metrics as a {@link ClientInterceptor} ({@link SluiceMetrics#grpcClient} and {@link
 * SluiceMetrics#rsocketClient}): per call started, one start, and at its end its duration and the bytes of
 * the messages it sent and received, by method and status, tagged with the target the interceptor
 * was made for. Message bytes are the protobuf encoding of each message ({@code
 * getSerializedSize()}, which protobuf caches): over RSocket what goes on the wire, over gRPC before
 * any compression.
 *
 * <p><b>Cardinality.</b> As on the server: each method descriptor its own series up to {@link
 * RpcMeters#MAX_METHODS} distinct ones, then {@code other}; the 17 status codes; one target.
 *
 * <p><b>Threads.</b> As {@link ClientInterceptor}: one instance serves every call; a call's end is
 * recorded once, whichever thread reports it. Holds no buffers.
 */
final class RpcClientMeters implements ClientInterceptor {
  private final RpcMeters meters;
  private final String target;

  RpcClientMeters(RpcMeters meters, String target) {
    this.meters = meters;
    this.target = target;
  }

  @Override
  public <Req extends MessageLite, Resp extends MessageLite> ClientCall<Req, Resp> interceptCall(
      MethodDescriptor<Req, Resp> method, CallOptions options, ClientChannel next) {
    ClientCall<Req, Resp> call;
    try {
      call = next.newCall(method, options);
    } catch (RuntimeException e) {
      end(meters.onCallStart(null, method), new AtomicBoolean(), Status.fromThrowable(e), System.nanoTime());
      throw e;
    }
    // Counted from its start: a call made and never started (cancelled first, or failed by its
    // subscriber before its start) never ends either, and would stay in flight for good.
    return new ForwardingClientCall<>(call) {
      private final AtomicBoolean ended = new AtomicBoolean();
      private volatile CallObserver observer;

      @Override
      public void start(ClientCall.Listener<Resp> listener, Headers headers) {
        long start = System.nanoTime();
        CallObserver o = meters.onCallStart(null, method);
        observer = o;
        ClientCall.Listener<Resp> counting =
            new ForwardingClientCallListener<>(listener) {
              @Override
              public void onMessage(Resp message) {
                o.onMessageReceived(size(message));
                super.onMessage(message);
              }

              @Override
              public void onClose(Status status, Headers trailers) {
                end(o, ended, status, start);
                super.onClose(status, trailers);
              }
            };
        try {
          super.start(counting, headers);
        } catch (RuntimeException e) {
          end(o, ended, Status.fromThrowable(e), start);
          throw e;
        }
      }

      @Override
      public void sendMessage(Req message) {
        CallObserver o = observer;
        if (o != null) {
          o.onMessageSent(size(message));
        }
        super.sendMessage(message);
      }
    };
  }

  private static int size(Object message) {
    return message instanceof MessageLite ? ((MessageLite) message).getSerializedSize() : 0;
  }

  private static void end(CallObserver observer, AtomicBoolean ended, Status status, long start) {
    if (ended.compareAndSet(false, true)) {
      observer.onEnd(status, System.nanoTime() - start);
    }
  }

  @Override
  public String toString() {
    return "RpcClientMeters(" + target + ")";
  }
}
