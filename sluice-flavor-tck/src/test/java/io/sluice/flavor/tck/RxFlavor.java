package io.sluice.flavor.tck;

import static io.sluice.flavor.tck.Contract.arg;
import static io.sluice.flavor.tck.Contract.boom;
import static io.sluice.flavor.tck.Contract.msg;
import static io.sluice.flavor.tck.Contract.text;

import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Flowable;
import io.reactivex.rxjava3.core.Single;
import io.reactivex.rxjava3.disposables.Disposable;
import io.reactivex.rxjava3.subscribers.DefaultSubscriber;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.rxjava.RxClient;
import io.sluice.rxjava.RxRequester;
import io.sluice.rxjava.RxResponder;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The rxjava3 flavor in the shared suite. */
final class RxFlavor implements Flavor {
  static final RxFlavor INSTANCE = new RxFlavor();

  @Override
  public String name() {
    return "rxjava";
  }

  @Override
  public Responder server(ServerProbe probe) {
    return RxClient.toResponder(
        new RxResponder() {
          @Override
          public Completable fireAndForget(Message request) {
            probe.fnf.add(text(request));
            return Completable.complete();
          }

          @Override
          public Single<Message> requestResponse(Message request) {
            String data = text(request);
            switch (data) {
              case "error":
                return Single.error(boom());
              case "never":
                return Single.<Message>never().doOnDispose(() -> probe.rrCanceled.complete(null));
              default:
                return Single.fromCallable(() -> msg("echo:" + data));
            }
          }

          @Override
          public Flowable<Message> requestStream(Message request) {
            String data = text(request);
            if (data.startsWith("count:")) {
              return Flowable.range(0, arg(data)).map(i -> msg(Integer.toString(i)));
            }
            if (data.startsWith("fail:")) {
              return Flowable.range(0, arg(data))
                  .map(i -> msg(Integer.toString(i)))
                  .concatWith(Flowable.error(boom()));
            }
            return Flowable.<Message>generate(
                    emitter -> emitter.onNext(msg(Long.toString(probe.emitted.getAndIncrement()))))
                .doOnCancel(() -> probe.streamCanceled.complete(null));
          }

          @Override
          public Flowable<Message> requestChannel(Message first, Flowable<Message> rest) {
            String data = text(first);
            if (data.startsWith("take:")) {
              return rest.take(arg(data)).map(m -> msg("got:" + text(m)));
            }
            return rest.map(m -> msg("echo:" + text(m)));
          }
        });
  }

  @Override
  public Client client(Requester requester) {
    RxRequester r = new RxRequester(requester);
    return new Client() {
      @Override
      public CompletableFuture<Void> fireAndForget(String data) {
        return r.fireAndForget(msg(data)).<Void>toCompletionStage(null).toCompletableFuture();
      }

      @Override
      public Call requestResponse(String data) {
        CompletableFuture<String> result = new CompletableFuture<>();
        Disposable d =
            r.requestResponse(msg(data))
                .subscribe(m -> result.complete(text(m)), result::completeExceptionally);
        return Call.of(result, () -> d.dispose());
      }

      @Override
      public Probe requestStream(String data) {
        return subscribe(r.requestStream(msg(data)));
      }

      @Override
      public Probe requestChannel(List<String> outbound, boolean complete) {
        CompletableFuture<Void> canceled = new CompletableFuture<>();
        Flowable<Message> out = Flowable.fromIterable(outbound).map(Contract::msg);
        if (!complete) {
          out = out.concatWith(Flowable.never());
        }
        out = out.doOnCancel(() -> canceled.complete(null));
        Probe p = subscribe(r.requestChannel(out));
        canceled.thenRun(() -> p.outboundCanceled.complete(null));
        return p;
      }
    };
  }

  private static Probe subscribe(Flowable<Message> flowable) {
    final class Sub extends DefaultSubscriber<Message> {
      Probe probe;

      @Override
      protected void onStart() {}

      @Override
      public void onNext(Message m) {
        probe.next(m);
      }

      @Override
      public void onError(Throwable t) {
        probe.error(t);
      }

      @Override
      public void onComplete() {
        probe.complete();
      }

      void more(long n) {
        request(n);
      }

      void stop() {
        cancel();
      }
    }
    Sub s = new Sub();
    s.probe =
        new Probe() {
          @Override
          void request(long n) {
            s.more(n);
          }

          @Override
          void cancel() {
            s.stop();
          }
        };
    flowable.subscribe(s);
    return s.probe;
  }
}
