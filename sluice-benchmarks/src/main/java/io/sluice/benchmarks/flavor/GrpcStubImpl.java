package io.sluice.benchmarks.flavor;

import io.grpc.stub.CallStreamObserver;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.netty.buffer.ByteBuf;
import io.sluice.Message;
import io.sluice.benchmarks.harness.Counter;
import io.sluice.grpcstub.GrpcClient;
import io.sluice.grpcstub.GrpcRequester;
import io.sluice.grpcstub.GrpcResponder;
import io.sluice.grpcstub.GrpcServer;
import java.util.concurrent.TimeUnit;

/**
 * {@code sluice-grpc-stub} end to end, written as a grpc-java service and client would be: a
 * {@link GrpcResponder} served by {@link GrpcServer} whose streaming side sends {@code while
 * (isReady())} from its on-ready handler, and a {@link GrpcRequester} whose observers use gRPC's
 * automatic inbound flow control (first {@link GrpcRequester#WINDOW} messages, then about 1 MiB in
 * flight like gRPC's window, topped up as messages are delivered). A channel's client sends from its
 * on-ready handler in the same way.
 */
public final class GrpcStubImpl extends FlavorImpl {

  @Override
  public int serve(String interaction, int size, Counter fnfReceived) throws Exception {
    ByteBuf payload = payload(size);
    return port(
        GrpcServer.serve(
                serverTransport(),
                new GrpcResponder() {
                  @Override
                  public void fireAndForget(Message request) {
                    request.release();
                    fnfReceived.increment();
                  }

                  @Override
                  public void requestResponse(Message request, StreamObserver<Message> response) {
                    request.release();
                    response.onNext(Message.of(payload));
                    response.onCompleted();
                  }

                  @Override
                  public void requestStream(Message request, StreamObserver<Message> response) {
                    long n = streamLength(request);
                    new Sender((ServerCallStreamObserver<Message>) response, payload, n).start();
                  }

                  @Override
                  public StreamObserver<Message> requestChannel(StreamObserver<Message> response) {
                    return new StreamObserver<>() {
                      @Override
                      public void onNext(Message m) {
                        response.onNext(m);
                      }

                      @Override
                      public void onError(Throwable t) {}

                      @Override
                      public void onCompleted() {
                        response.onCompleted();
                      }
                    };
                  }
                })
            .get(10, TimeUnit.SECONDS));
  }

  private GrpcRequester connect(int port) throws Exception {
    GrpcRequester r = GrpcClient.connect(clientTransport(port)).get(10, TimeUnit.SECONDS);
    connected(r.unwrap());
    return r;
  }

  @Override
  public void load(int port, String interaction, int size, int window, Counter received)
      throws Exception {
    ByteBuf payload = payload(size);
    GrpcRequester g = connect(port);
    switch (interaction) {
      case "stream":
        g.unwrap().executor().execute(
            () -> g.requestStream(Message.of(payload), new Count(received, null)));
        break;
      case "channel":
        g.unwrap().executor().execute(() -> {
          Count c = new Count(received, payload);
          g.requestChannel(c);
          c.sender.run(); // the first message starts the channel; the rest go on-ready
        });
        break;
      case "rr":
        closedLoop(g.unwrap().executor(), window, done ->
            g.requestResponse(Message.of(payload), new Reply(received, done)));
        break;
      case "fnf":
        fnfLoop(g.unwrap().executor(), window, sent ->
            g.fireAndForget(Message.of(payload), new StreamObserver<Void>() {
              @Override
              public void onNext(Void v) {}

              @Override
              public void onError(Throwable t) {
                sent.run();
              }

              @Override
              public void onCompleted() {
                sent.run();
              }
            }));
        break;
      default:
        throw new IllegalArgumentException(interaction);
    }
  }

  @Override
  public void latency(int port, String interaction, int size, int concurrency, LatencySink sink)
      throws Exception {
    ByteBuf payload = payload(size);
    GrpcRequester g = connect(port);
    Op op =
        interaction.equals("stream24")
            ? done -> g.requestStream(stream24Request(), new Reply(null, done))
            : done -> g.requestResponse(Message.of(payload), new Reply(null, done));
    timedLoop(g.unwrap().executor(), concurrency, op, sink);
  }

  /**
   * Sends {@code count} messages as the peer is ready for them, then completes. Also used by
   * {@code FlavorBenchmark}.
   */
  public static final class Sender implements Runnable {
    private final CallStreamObserver<Message> call;
    private final ByteBuf payload;
    private long remaining;

    public Sender(CallStreamObserver<Message> call, ByteBuf payload, long count) {
      this.call = call;
      this.payload = payload;
      this.remaining = count;
    }

    public void start() {
      call.setOnReadyHandler(this);
      run();
    }

    @Override
    public void run() {
      while (remaining > 0 && call.isReady()) {
        if (--remaining == 0) {
          call.onNext(Message.of(payload));
          call.onCompleted();
        } else {
          call.onNext(Message.of(payload));
        }
      }
    }
  }

  /**
   * Counts and releases what arrives (automatic flow control). With a payload it is a channel's
   * client and also sends an unending stream of it as the server is ready for it.
   */
  private static final class Count implements ClientResponseObserver<Message, Message> {
    private final Counter received;
    private final ByteBuf payload;
    Sender sender;

    Count(Counter received, ByteBuf payload) {
      this.received = received;
      this.payload = payload;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<Message> call) {
      if (payload != null) {
        sender = new Sender(call, payload, Long.MAX_VALUE);
        call.setOnReadyHandler(sender);
      }
    }

    @Override
    public void onNext(Message m) {
      count(m, received);
    }

    @Override
    public void onError(Throwable t) {
      failed("stream", t);
    }

    @Override
    public void onCompleted() {}
  }

  /** One call's observer: counts (if asked) and releases the messages, then runs {@code done}. */
  private static final class Reply implements StreamObserver<Message> {
    private final Counter received;
    private final Runnable done;

    Reply(Counter received, Runnable done) {
      this.received = received;
      this.done = done;
    }

    @Override
    public void onNext(Message m) {
      if (received != null) {
        count(m, received);
      } else {
        m.release();
      }
    }

    @Override
    public void onError(Throwable t) {
      failed("call", t);
    }

    @Override
    public void onCompleted() {
      done.run();
    }
  }
}
