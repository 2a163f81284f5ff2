package io.sluice.flavor.tck;

import static io.sluice.flavor.tck.Contract.arg;
import static io.sluice.flavor.tck.Contract.boom;
import static io.sluice.flavor.tck.Contract.msg;
import static io.sluice.flavor.tck.Contract.text;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.futures.FlowStreams;
import io.sluice.futures.FuturesClient;
import io.sluice.futures.FuturesRequester;
import io.sluice.futures.FuturesResponder;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.function.Function;

/** The CompletableFuture/Flow flavor in the shared suite. */
final class FuturesFlavor implements Flavor {
  static final FuturesFlavor INSTANCE = new FuturesFlavor();

  @Override
  public String name() {
    return "futures";
  }

  @Override
  public Responder server(ServerProbe probe) {
    return FuturesClient.toResponder(
        new FuturesResponder() {
          @Override
          public void fireAndForget(Message request) {
            probe.fnf.add(text(request));
          }

          @Override
          public CompletionStage<Message> requestResponse(Message request) {
            String data = text(request);
            switch (data) {
              case "error":
                return CompletableFuture.failedFuture(boom());
              case "never":
                CompletableFuture<Message> never = new CompletableFuture<>();
                never.whenComplete((m, e) -> probe.rrCanceled.complete(null));
                return never;
              default:
                return CompletableFuture.completedFuture(msg("echo:" + data));
            }
          }

          @Override
          public Flow.Publisher<Message> requestStream(Message request) {
            String data = text(request);
            if (data.startsWith("count:")) {
              return FlowStreams.fromIterator(counting(arg(data), null));
            }
            if (data.startsWith("fail:")) {
              return FlowStreams.fromIterator(counting(arg(data), boom()));
            }
            Flow.Publisher<Message> endless =
                FlowStreams.fromIterator(
                    new Iterator<Message>() {
                      @Override
                      public boolean hasNext() {
                        return true;
                      }

                      @Override
                      public Message next() {
                        return msg(Long.toString(probe.emitted.getAndIncrement()));
                      }
                    });
            return onCancel(endless, () -> probe.streamCanceled.complete(null));
          }

          @Override
          public Flow.Publisher<Message> requestChannel(
              Message first, Flow.Publisher<Message> rest) {
            String data = text(first);
            if (data.startsWith("take:")) {
              return new MapTake(rest, m -> msg("got:" + text(m)), arg(data));
            }
            return new MapTake(rest, m -> msg("echo:" + text(m)), Long.MAX_VALUE);
          }
        });
  }

  /** 0..n-1, then the error (if any) from hasNext. */
  static Iterator<Message> counting(int n, RuntimeException error) {
    return new Iterator<Message>() {
      int i;

      @Override
      public boolean hasNext() {
        if (i < n) {
          return true;
        }
        if (error != null) {
          throw error;
        }
        return false;
      }

      @Override
      public Message next() {
        if (i >= n) {
          throw new NoSuchElementException();
        }
        return msg(Integer.toString(i++));
      }
    };
  }

  /** Calls {@code onCancel} when the subscriber cancels. */
  static <T> Flow.Publisher<T> onCancel(Flow.Publisher<T> source, Runnable onCancel) {
    return s ->
        source.subscribe(
            new Flow.Subscriber<T>() {
              @Override
              public void onSubscribe(Flow.Subscription sub) {
                s.onSubscribe(
                    new Flow.Subscription() {
                      @Override
                      public void request(long n) {
                        sub.request(n);
                      }

                      @Override
                      public void cancel() {
                        sub.cancel();
                        onCancel.run();
                      }
                    });
              }

              @Override
              public void onNext(T item) {
                s.onNext(item);
              }

              @Override
              public void onError(Throwable t) {
                s.onError(t);
              }

              @Override
              public void onComplete() {
                s.onComplete();
              }
            });
  }

  /** Maps each message and completes (canceling the source) after {@code limit} of them. */
  static final class MapTake implements Flow.Publisher<Message> {
    private final Flow.Publisher<Message> source;
    private final Function<Message, Message> map;
    private final long limit;

    MapTake(Flow.Publisher<Message> source, Function<Message, Message> map, long limit) {
      this.source = source;
      this.map = map;
      this.limit = limit;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super Message> s) {
      source.subscribe(
          new Flow.Subscriber<Message>() {
            Flow.Subscription sub;
            long seen;
            boolean done;

            @Override
            public void onSubscribe(Flow.Subscription subscription) {
              sub = subscription;
              s.onSubscribe(subscription);
            }

            @Override
            public void onNext(Message item) {
              if (done) {
                item.release();
                return;
              }
              s.onNext(map.apply(item));
              if (++seen == limit) {
                done = true;
                sub.cancel();
                s.onComplete();
              }
            }

            @Override
            public void onError(Throwable t) {
              if (!done) {
                done = true;
                s.onError(t);
              }
            }

            @Override
            public void onComplete() {
              if (!done) {
                done = true;
                s.onComplete();
              }
            }
          });
    }
  }

  @Override
  public Client client(Requester requester) {
    FuturesRequester r = new FuturesRequester(requester);
    return new Client() {
      @Override
      public CompletableFuture<Void> fireAndForget(String data) {
        return r.fireAndForget(msg(data));
      }

      @Override
      public Call requestResponse(String data) {
        CompletableFuture<Message> f = r.requestResponse(msg(data));
        CompletableFuture<String> result = f.thenApply(m -> m == null ? null : text(m));
        return Call.of(result, () -> f.cancel(false));
      }

      @Override
      public Probe requestStream(String data) {
        return subscribe(r.requestStream(msg(data)));
      }

      @Override
      public Probe requestChannel(List<String> outbound, boolean complete) {
        CompletableFuture<Void> canceled = new CompletableFuture<>();
        Iterator<String> it = outbound.iterator();
        Flow.Publisher<Message> out =
            FlowStreams.fromIterator(
                new Iterator<Message>() {
                  @Override
                  public boolean hasNext() {
                    return it.hasNext() || !complete;
                  }

                  @Override
                  public Message next() {
                    return it.hasNext() ? msg(it.next()) : null;
                  }
                });
        if (!complete) {
          out = new Hold(out, outbound.size()); // never completes: the responder must cancel it
        }
        Probe p = subscribe(r.requestChannel(onCancel(out, () -> canceled.complete(null))));
        canceled.thenRun(() -> p.outboundCanceled.complete(null));
        return p;
      }
    };
  }

  /** Passes the first {@code n} messages on, then asks the source for nothing more. */
  static final class Hold implements Flow.Publisher<Message> {
    private final Flow.Publisher<Message> source;
    private final long n;

    Hold(Flow.Publisher<Message> source, long n) {
      this.source = source;
      this.n = n;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super Message> s) {
      source.subscribe(
          new Flow.Subscriber<Message>() {
            long allowed = n; // requests beyond the list are swallowed

            @Override
            public void onSubscribe(Flow.Subscription sub) {
              s.onSubscribe(
                  new Flow.Subscription() {
                    @Override
                    public void request(long k) {
                      long pass;
                      synchronized (this) {
                        pass = Math.min(k, allowed);
                        allowed -= pass;
                      }
                      if (pass > 0) {
                        sub.request(pass);
                      }
                    }

                    @Override
                    public void cancel() {
                      sub.cancel();
                    }
                  });
            }

            @Override
            public void onNext(Message item) {
              s.onNext(item);
            }

            @Override
            public void onError(Throwable t) {
              s.onError(t);
            }

            @Override
            public void onComplete() {
              s.onComplete();
            }
          });
    }
  }

  static Probe subscribe(Flow.Publisher<Message> publisher) {
    final class Sub implements Flow.Subscriber<Message> {
      volatile Flow.Subscription subscription;
      Probe probe;

      @Override
      public void onSubscribe(Flow.Subscription s) {
        subscription = s;
      }

      @Override
      public void onNext(Message item) {
        probe.next(item);
      }

      @Override
      public void onError(Throwable throwable) {
        probe.error(throwable);
      }

      @Override
      public void onComplete() {
        probe.complete();
      }
    }
    Sub s = new Sub();
    s.probe =
        new Probe() {
          @Override
          void request(long n) {
            s.subscription.request(n);
          }

          @Override
          void cancel() {
            s.subscription.cancel();
          }
        };
    publisher.subscribe(s);
    return s.probe;
  }
}
