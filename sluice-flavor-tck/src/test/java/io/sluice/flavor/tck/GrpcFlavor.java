package io.sluice.flavor.tck;

import static io.sluice.flavor.tck.Contract.arg;
import static io.sluice.flavor.tck.Contract.boom;
import static io.sluice.flavor.tck.Contract.msg;
import static io.sluice.flavor.tck.Contract.text;

import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.grpcstub.GrpcClient;
import io.sluice.grpcstub.GrpcRequester;
import io.sluice.grpcstub.GrpcResponder;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongFunction;
import java.util.function.LongPredicate;

/**
 * The gRPC StreamObserver flavor in the shared suite. Its server streams the way a well-behaved
 * grpc-java service does (sending only while {@code isReady()}, resuming in the on-ready
 * handler); its client takes over inbound flow control in {@code beforeStart}. A channel always
 * asks for one message in REQUEST_CHANNEL, so the client may be one message ahead there.
 */
final class GrpcFlavor implements Flavor {
  static final GrpcFlavor INSTANCE = new GrpcFlavor();

  @Override
  public String name() {
    return "grpc-stub";
  }

  @Override
  public Responder server(ServerProbe probe) {
    return GrpcClient.toResponder(
        new GrpcResponder() {
          @Override
          public void fireAndForget(Message request) {
            probe.fnf.add(text(request));
          }

          @Override
          public void requestResponse(Message request, StreamObserver<Message> out) {
            String data = text(request);
            switch (data) {
              case "error":
                out.onError(boom());
                return;
              case "never":
                ((ServerCallStreamObserver<Message>) out)
                    .setOnCancelHandler(() -> probe.rrCanceled.complete(null));
                return;
              default:
                out.onNext(msg("echo:" + data));
                out.onCompleted();
            }
          }

          @Override
          public void requestStream(Message request, StreamObserver<Message> out) {
            String data = text(request);
            ServerCallStreamObserver<Message> call = (ServerCallStreamObserver<Message>) out;
            if (data.startsWith("count:") || data.startsWith("fail:")) {
              int n = arg(data);
              boolean fail = data.startsWith("fail:");
              whileReady(call, i -> i < n, i -> msg(Long.toString(i)), fail);
              return;
            }
            call.setOnCancelHandler(() -> probe.streamCanceled.complete(null));
            whileReady(
                call,
                i -> true,
                i -> {
                  probe.emitted.incrementAndGet();
                  return msg(Long.toString(i));
                },
                false);
          }

          @Override
          public StreamObserver<Message> requestChannel(StreamObserver<Message> out) {
            return new StreamObserver<Message>() {
              String mode;
              int left;

              @Override
              public void onNext(Message value) {
                String data = text(value);
                if (mode == null) {
                  mode = data;
                  left = data.startsWith("take:") ? arg(data) : Integer.MAX_VALUE;
                  return;
                }
                if (left <= 0) {
                  return;
                }
                out.onNext(msg((mode.startsWith("take:") ? "got:" : "echo:") + data));
                if (--left == 0) {
                  out.onCompleted(); // closes the call: the requester is told to stop
                }
              }

              @Override
              public void onError(Throwable t) {}

              @Override
              public void onCompleted() {
                if (left > 0) {
                  out.onCompleted();
                }
              }
            };
          }
        });
  }

  /**
   * Sends make(0), make(1), ... while the call is ready and {@code more} says so; then completes
   * (or fails with boom), which needs no readiness.
   */
  private static void whileReady(
      ServerCallStreamObserver<Message> call,
      LongPredicate more,
      LongFunction<Message> make,
      boolean fail) {
    long[] i = {0};
    boolean[] done = {false};
    call.setOnReadyHandler(
        () -> {
          while (!done[0] && !call.isCancelled()) {
            if (!more.test(i[0])) {
              done[0] = true;
              if (fail) {
                call.onError(boom());
              } else {
                call.onCompleted();
              }
              return;
            }
            if (!call.isReady()) {
              return; // resumed by the on-ready handler
            }
            call.onNext(make.apply(i[0]++));
          }
        });
  }

  @Override
  public Client client(Requester requester) {
    GrpcRequester r = new GrpcRequester(requester);
    return new Client() {
      @Override
      public CompletableFuture<Void> fireAndForget(String data) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        r.fireAndForget(
            msg(data),
            new StreamObserver<Void>() {
              @Override
              public void onNext(Void value) {}

              @Override
              public void onError(Throwable t) {
                f.completeExceptionally(t);
              }

              @Override
              public void onCompleted() {
                f.complete(null);
              }
            });
        return f;
      }

      @Override
      public Call requestResponse(String data) {
        CompletableFuture<String> result = new CompletableFuture<>();
        ObserverProbe o = new ObserverProbe(false);
        o.single = result;
        r.requestResponse(msg(data), o);
        return Call.of(result, () -> o.call.cancel("test cancel", null));
      }

      @Override
      public Probe requestStream(String data) {
        ObserverProbe o = new ObserverProbe(true);
        r.requestStream(msg(data), o);
        return o.probe;
      }

      @Override
      public Probe requestChannel(List<String> outbound, boolean complete) {
        ObserverProbe o = new ObserverProbe(true);
        StreamObserver<Message> requests = r.requestChannel(o);
        for (String s : outbound) {
          requests.onNext(msg(s));
        }
        if (complete) {
          requests.onCompleted();
        } else {
          // gRPC has no "outbound canceled" signal: the call is over when the responses end,
          // and later requests are dropped (and released).
          o.probe.done.whenComplete(
              (v, e) -> {
                requests.onNext(msg("late"));
                o.probe.outboundCanceled.complete(null);
              });
        }
        return o.probe;
      }
    };
  }

  /** A response observer that takes over flow control and records into a probe. */
  private static final class ObserverProbe implements ClientResponseObserver<Message, Message> {
    private final boolean manual;
    volatile ClientCallStreamObserver<Message> call;
    CompletableFuture<String> single;
    final Probe probe =
        new Probe() {
          @Override
          void request(long n) {
            call.request((int) Math.min(n, Integer.MAX_VALUE));
          }

          @Override
          void cancel() {
            call.cancel("test cancel", null);
          }
        };

    ObserverProbe(boolean manual) {
      this.manual = manual;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<Message> requestStream) {
      call = requestStream;
      if (manual) {
        requestStream.disableAutoRequestWithInitial(0);
      }
    }

    @Override
    public void onNext(Message value) {
      if (single != null) {
        single.complete(text(value));
      } else {
        probe.next(value);
      }
    }

    @Override
    public void onError(Throwable t) {
      if (single != null) {
        single.completeExceptionally(t);
      }
      probe.error(t);
    }

    @Override
    public void onCompleted() {
      if (single != null) {
        single.complete(null);
      }
      probe.complete();
    }
  }
}
