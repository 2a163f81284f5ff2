package io.sluice.grpcstub;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.Message;
import io.sluice.ForwardingRequester;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.local.LocalTransport;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Flow control of sluice-grpc-stub end to end over the in-memory transport: the automatic inbound
 * window (see {@link InboundWindow}) as the peer sees it in REQUEST_N, and a sender on its own
 * thread paced by {@code isReady()}/{@code setOnReadyHandler}.
 */
@Timeout(60)
class GrpcStubFlowTest {
  /** Large enough that the core hands the responder the requester's grants as they are. */
  private static final int BIG_OUTBOUND_WINDOW = 1 << 20;

  private static final int SMALL = 8;
  private static final long MESSAGES = 2000;

  private ServerTransport.Bound bound;
  private Requester client;

  private Requester connect(Responder server) throws Exception {
    String name = "grpc-stub-flow-" + System.nanoTime();
    bound =
        Connections.serve(
                LocalTransport.server(name),
                ConnectionOptions.builder().outboundWindow(BIG_OUTBOUND_WINDOW).build(),
                (setup, r) -> server)
            .get(10, TimeUnit.SECONDS);
    client =
        Connections.connect(
                LocalTransport.client(name),
                ConnectionOptions.builder().outboundWindow(BIG_OUTBOUND_WINDOW).build(),
                ClientSetup.defaults(),
                r -> new Responder() {})
            .get(10, TimeUnit.SECONDS);
    return client;
  }

  @AfterEach
  void close() throws Exception {
    if (client != null) {
      client.dispose();
      client.onClose().exceptionally(e -> null).get(10, TimeUnit.SECONDS);
    }
    if (bound != null) {
      bound.close();
    }
  }

  /** From the pooled allocator, which the leak detector tracks: a dropped message fails the class. */
  private static Message small() {
    return Message.of(PooledByteBufAllocator.DEFAULT.buffer(SMALL).writeZero(SMALL));
  }

  /**
   * The automatic window's grants for a stream of {@link #MESSAGES} small messages: the initial
   * window, then one REQUEST_N that tops the credit still outstanding up to the grown window (bytes
   * over the wire size of one message) once half of the initial window has been used; 2000 messages
   * never use half of the grown window, so there is no third.
   *
   * <p>The top-up is exact only relative to what was outstanding when it went out: messages that
   * arrive before the stream's handle is known cannot be answered, and their grant is asked for
   * once the handle is known, when fewer may be outstanding.
   * So the second grant is the grown window less whatever was outstanding then: from one message
   * up to half the initial window.
   */
  private static void assertGrowsOnce(CountingSender s) {
    long window = InboundWindow.BYTES / (SMALL + InboundWindow.FRAME_OVERHEAD);
    assertThat(MESSAGES).isBetween((long) GrpcRequester.WINDOW, window / 2);
    assertThat(s.grants).hasSize(2);
    assertThat(s.grants.get(0)).isEqualTo(GrpcRequester.WINDOW);
    assertThat(s.grants.get(1))
        .as("the grown window less the credit outstanding, grants: %s", s.grants)
        .isBetween(window - GrpcRequester.WINDOW / 2, window - 1);
  }

  /** A raw responder that sends {@link #MESSAGES} small messages as the peer grants them. */
  private static final class CountingSender implements StreamListener {
    final List<Long> grants = new CopyOnWriteArrayList<>();
    private final StreamHandle out;
    private long credit;
    private long sent;

    CountingSender(StreamHandle out) {
      this.out = out;
    }

    @Override
    public void onRequest(long n) {
      grants.add(n);
      credit += n;
      while (credit > 0 && sent < MESSAGES) {
        credit--;
        if (++sent == MESSAGES) {
          out.nextAndComplete(small());
        } else {
          out.next(small());
        }
      }
    }

    @Override
    public void onNext(Message message) {
      message.release();
    }

    @Override
    public void onComplete() {}

    @Override
    public void onError(Throwable cause) {}
  }

  /** Counts and releases what arrives. */
  private static class Count implements StreamObserver<Message> {
    final AtomicLong received = new AtomicLong();
    final CompletableFuture<Void> done = new CompletableFuture<>();

    @Override
    public void onNext(Message value) {
      value.release();
      received.incrementAndGet();
    }

    @Override
    public void onError(Throwable t) {
      done.completeExceptionally(t);
    }

    @Override
    public void onCompleted() {
      done.complete(null);
    }
  }

  @Test
  void aClientStreamGrowsItsAutomaticWindowForSmallMessages() throws Exception {
    CompletableFuture<CountingSender> sender = new CompletableFuture<>();
    Requester r =
        connect(
            new Responder() {
              @Override
              public StreamListener requestStream(Message request, StreamHandle stream) {
                request.release();
                CountingSender s = new CountingSender(stream);
                sender.complete(s);
                return s;
              }
            });
    Count count = new Count();
    new GrpcRequester(r).requestStream(small(), count);
    count.done.get(10, TimeUnit.SECONDS);
    assertThat(count.received).hasValue(MESSAGES);
    CountingSender s = sender.get(10, TimeUnit.SECONDS);
    assertGrowsOnce(s);
  }

  /**
   * The stream's first half window is used up before the start call returned its handle (the
   * responder runs on the loop while the calling thread is slow to return): the top-up due then is
   * asked for once the handle is known. It used to wait for the next top-up, which never came: the
   * responder had spent its credit, and the stream stalled.
   */
  @Test
  void aTopUpDueBeforeTheStartCallReturnedIsAskedForOnceItReturns() throws Exception {
    Requester r =
        connect(
            new Responder() {
              @Override
              public StreamListener requestStream(Message request, StreamHandle stream) {
                request.release();
                return new CountingSender(stream);
              }
            });
    CountDownLatch windowUsed = new CountDownLatch(GrpcRequester.WINDOW);
    Requester slowToReturn =
        new ForwardingRequester(r) {
          @Override
          public StreamHandle requestStream(Message request, long n, StreamListener listener) {
            StreamHandle h =
                super.requestStream(
                    request,
                    n,
                    new StreamListener() {
                      @Override
                      public void onNext(Message message) {
                        listener.onNext(message);
                        windowUsed.countDown();
                      }

                      @Override
                      public void onComplete() {
                        listener.onComplete();
                      }

                      @Override
                      public void onError(Throwable cause) {
                        listener.onError(cause);
                      }
                    });
            try {
              assertThat(windowUsed.await(10, TimeUnit.SECONDS)).as("the first window delivered").isTrue();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return h;
          }
        };
    Count count = new Count();
    new GrpcRequester(slowToReturn).requestStream(small(), count);
    count.done.get(10, TimeUnit.SECONDS);
    assertThat(count.received).hasValue(MESSAGES);
  }

  @Test
  void aServerChannelGrowsItsAutomaticWindowForSmallMessages() throws Exception {
    Count requests = new Count();
    Requester r =
        connect(
            GrpcClient.toResponder(
                new GrpcResponder() {
                  @Override
                  public StreamObserver<Message> requestChannel(StreamObserver<Message> out) {
                    return new Count() {
                      @Override
                      public void onNext(Message value) {
                        requests.onNext(value);
                      }

                      @Override
                      public void onCompleted() {
                        requests.onCompleted();
                        out.onCompleted();
                      }
                    };
                  }
                }));
    CompletableFuture<CountingSender> sender = new CompletableFuture<>();
    Count responses = new Count();
    r.executor()
        .execute(
            () -> {
              // The first message rides in REQUEST_CHANNEL; the rest go as the responder grants.
              StreamHandle[] h = new StreamHandle[1];
              StreamListener l =
                  new StreamListener() {
                    CountingSender s;

                    @Override
                    public void onRequest(long n) {
                      if (s == null) {
                        s = new CountingSender(h[0]);
                        s.sent = 1;
                        sender.complete(s);
                      }
                      s.onRequest(n);
                    }

                    @Override
                    public void onNext(Message message) {
                      message.release();
                    }

                    @Override
                    public void onComplete() {
                      responses.onCompleted();
                    }

                    @Override
                    public void onError(Throwable cause) {
                      responses.onError(cause);
                    }
                  };
              h[0] = r.requestChannel(small(), false, 1, l);
            });
    requests.done.get(10, TimeUnit.SECONDS);
    responses.done.get(10, TimeUnit.SECONDS);
    assertThat(requests.received).hasValue(MESSAGES);
    CountingSender s = sender.get(10, TimeUnit.SECONDS);
    assertGrowsOnce(s);
  }

  @Test
  void aSenderOnItsOwnThreadPacedByOnReadyDeliversEverythingInOrder() throws Exception {
    int total = 5_000;
    Requester r =
        connect(
            GrpcClient.toResponder(
                new GrpcResponder() {
                  @Override
                  public void requestStream(Message request, StreamObserver<Message> out) {
                    request.release();
                    ServerCallStreamObserver<Message> call = (ServerCallStreamObserver<Message>) out;
                    Semaphore ready = new Semaphore(0);
                    call.setOnReadyHandler(ready::release);
                    Thread t =
                        new Thread(
                            () -> {
                              try {
                                for (int i = 0; i < total; ) {
                                  if (call.isCancelled()) {
                                    return;
                                  }
                                  if (call.isReady()) {
                                    call.onNext(text(Integer.toString(i++)));
                                  } else if (!ready.tryAcquire(10, TimeUnit.SECONDS)) {
                                    call.onError(new IllegalStateException("no on-ready signal"));
                                    return;
                                  }
                                }
                                call.onCompleted();
                              } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                              }
                            },
                            "grpc-stub-flow-sender");
                    t.setDaemon(true);
                    t.start();
                  }
                }));
    // The client asks for a few messages at a time, so the sender often finds isReady() false.
    List<Integer> got = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    new GrpcRequester(r)
        .requestStream(
            small(),
            new ClientResponseObserver<Message, Message>() {
              ClientCallStreamObserver<Message> call;
              int sinceRequest;

              @Override
              public void beforeStart(ClientCallStreamObserver<Message> c) {
                call = c;
                c.disableAutoRequestWithInitial(3);
              }

              @Override
              public void onNext(Message value) {
                got.add(Integer.parseInt(value.dataUtf8()));
                value.release();
                if (++sinceRequest == 3) {
                  sinceRequest = 0;
                  call.request(3);
                }
              }

              @Override
              public void onError(Throwable t) {
                done.completeExceptionally(t);
              }

              @Override
              public void onCompleted() {
                done.complete(null);
              }
            });
    done.get(30, TimeUnit.SECONDS);
    assertThat(got).hasSize(total);
    for (int i = 0; i < total; i++) {
      assertThat(got.get(i)).isEqualTo(i);
    }
  }

  private static Message text(String s) {
    return Message.utf8(PooledByteBufAllocator.DEFAULT, s);
  }
}
