package io.sluice.benchmarks.flavor;

import io.grpc.stub.StreamObserver;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.reactivex.rxjava3.subscribers.DisposableSubscriber;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.futures.FuturesRequester;
import io.sluice.grpcstub.GrpcRequester;
import io.sluice.mutiny.MutinyRequester;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.internal.ResponderAdapter;
import io.sluice.rxjava.RxRequester;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import io.sluice.transport.netty.internal.EventLoops;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A rough throughput comparison of the client flavors against one reactor server over TCP on
 * 127.0.0.1 (server and client each on one event loop thread, 8-byte messages): request-stream
 * messages per second and request-responses per second with a fixed number in flight. Not a
 * test; bounded in time. Usage: {@code FlavorThroughput [warmupSeconds] [seconds] [inFlight]}.
 */
public final class FlavorThroughput {
  private static final int PAYLOAD = 8;

  private FlavorThroughput() {}

  public static void main(String[] args) throws Exception {
    int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    int inFlight = args.length > 2 ? Integer.parseInt(args[2]) : 256;
    ByteBuf owner = Unpooled.directBuffer(PAYLOAD).writeZero(PAYLOAD);
    ByteBuf payload = Unpooled.unreleasableBuffer(owner);
    EventLoopGroup serverLoop = EventLoops.newGroup(1, "bench-server");
    EventLoopGroup clientLoop = EventLoops.newGroup(1, "bench-client");
    Responder responder =
        new ResponderAdapter(
            new ReactorResponder() {
              @Override
              public Flux<Message> requestStream(Message request) {
                request.release();
                return Flux.generate(sink -> sink.next(Message.of(payload)));
              }

              @Override
              public Mono<Message> requestResponse(Message request) {
                request.release();
                return Mono.just(Message.of(payload));
              }
            });
    ServerTransport.Bound server =
        Connections.serve(
                TcpServerTransport.create("127.0.0.1", 0).withEventLoopGroup(serverLoop),
                ConnectionOptions.defaults(),
                (setup, r) -> responder)
            .get(10, TimeUnit.SECONDS);
    int port = ((InetSocketAddress) server.address()).getPort();
    String[] flavors = {"reactor", "futures", "rxjava", "mutiny", "grpc-stub"};
    try {
      for (String kind : new String[] {"stream", "response"}) {
        for (String flavor : flavors) {
          Requester requester =
              Connections.connect(
                      TcpClientTransport.create("127.0.0.1", port).withEventLoopGroup(clientLoop),
                      ConnectionOptions.defaults(),
                      ClientSetup.defaults(),
                      r -> new Responder() {})
                  .get(10, TimeUnit.SECONDS);
          AtomicLong received = new AtomicLong();
          Runnable stop =
              kind.equals("stream")
                  ? stream(flavor, requester, received)
                  : response(flavor, requester, received, payload, inFlight);
          List<Long> samples = new ArrayList<>();
          long last = 0;
          for (int s = 0; s < warmup + seconds; s++) {
            Thread.sleep(1000);
            long now = received.get();
            if (s >= warmup) {
              samples.add(now - last);
            }
            last = now;
          }
          stop.run();
          requester.dispose();
          requester.onClose().handle((v, e) -> null).get(10, TimeUnit.SECONDS);
          Collections.sort(samples);
          System.out.printf(
              "%-8s %-10s median %,d /s%n", kind, flavor, samples.get(samples.size() / 2));
        }
      }
    } finally {
      server.close();
      serverLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      clientLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      owner.release();
    }
  }

  /** Subscribes with unbounded demand through the flavor's API, counting and releasing. */
  private static Runnable stream(String flavor, Requester requester, AtomicLong received) {
    Message req = Message.empty();
    switch (flavor) {
      case "reactor":
        {
          BaseSubscriber<Message> s =
              new BaseSubscriber<>() {
                long n;

                @Override
                protected void hookOnSubscribe(Subscription subscription) {
                  subscription.request(Long.MAX_VALUE);
                }

                @Override
                protected void hookOnNext(Message m) {
                  m.release();
                  received.lazySet(++n);
                }
              };
          new ReactorRequester(requester).requestStream(req).subscribe(s);
          return s::dispose;
        }
      case "rxjava":
        {
          DisposableSubscriber<Message> s =
              new DisposableSubscriber<>() {
                long n;

                @Override
                protected void onStart() {
                  request(Long.MAX_VALUE);
                }

                @Override
                public void onNext(Message m) {
                  m.release();
                  received.lazySet(++n);
                }

                @Override
                public void onError(Throwable t) {}

                @Override
                public void onComplete() {}
              };
          new RxRequester(requester).requestStream(req).subscribe(s);
          return s::dispose;
        }
      case "futures":
      case "mutiny":
        {
          FlowCounter c = new FlowCounter(received);
          Flow.Publisher<Message> p =
              flavor.equals("futures")
                  ? new FuturesRequester(requester).requestStream(req)
                  : new MutinyRequester(requester).requestStream(req);
          p.subscribe(c);
          return c::cancel;
        }
      default:
        {
          // gRPC's automatic flow control: a window of 64, topped up as messages are delivered.
          new GrpcRequester(requester)
              .requestStream(
                  req,
                  new StreamObserver<Message>() {
                    long n;

                    @Override
                    public void onNext(Message m) {
                      m.release();
                      received.lazySet(++n);
                    }

                    @Override
                    public void onError(Throwable t) {}

                    @Override
                    public void onCompleted() {}
                  });
          return () -> {};
        }
    }
  }

  private static final class FlowCounter implements Flow.Subscriber<Message> {
    private final AtomicLong received;
    private volatile Flow.Subscription s;
    private long n;

    FlowCounter(AtomicLong received) {
      this.received = received;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      s = subscription;
      subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(Message m) {
      m.release();
      received.lazySet(++n);
    }

    @Override
    public void onError(Throwable t) {}

    @Override
    public void onComplete() {}

    void cancel() {
      s.cancel();
    }
  }

  /** Keeps {@code inFlight} request-responses going, each answer issuing the next. */
  private static Runnable response(
      String flavor, Requester requester, AtomicLong received, ByteBuf payload, int inFlight) {
    boolean[] stopped = {false};
    long[] n = {0};
    Runnable[] send = new Runnable[1];
    ReactorRequester reactor = new ReactorRequester(requester);
    FuturesRequester futures = new FuturesRequester(requester);
    RxRequester rx = new RxRequester(requester);
    MutinyRequester mutiny = new MutinyRequester(requester);
    GrpcRequester grpc = new GrpcRequester(requester);
    java.util.function.Consumer<Message> onReply =
        m -> {
          m.release();
          received.lazySet(++n[0]);
          send[0].run();
        };
    send[0] =
        () -> {
          if (stopped[0]) {
            return;
          }
          Message req = Message.of(payload);
          switch (flavor) {
            case "reactor":
              reactor.requestResponse(req).subscribe(onReply::accept, e -> {});
              break;
            case "futures":
              futures.requestResponse(req).thenAccept(onReply);
              break;
            case "rxjava":
              rx.requestResponse(req).subscribe(onReply::accept, e -> {});
              break;
            case "mutiny":
              mutiny.requestResponse(req).subscribe().with(onReply, e -> {});
              break;
            default:
              grpc.requestResponse(
                  req,
                  new StreamObserver<Message>() {
                    @Override
                    public void onNext(Message value) {
                      onReply.accept(value);
                    }

                    @Override
                    public void onError(Throwable t) {}

                    @Override
                    public void onCompleted() {}
                  });
          }
        };
    requester
        .executor()
        .execute(
            () -> {
              for (int i = 0; i < inFlight; i++) {
                send[0].run();
              }
            });
    return () -> requester.executor().execute(() -> stopped[0] = true);
  }
}
