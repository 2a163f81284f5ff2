package io.sluice.flavor.tck;

import static io.sluice.flavor.tck.Contract.arg;
import static io.sluice.flavor.tck.Contract.boom;
import static io.sluice.flavor.tck.Contract.msg;
import static io.sluice.flavor.tck.Contract.text;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.internal.ResponderAdapter;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.reactivestreams.Subscription;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The project-reactor flavor in the shared suite. */
final class ReactorFlavor implements Flavor {
  static final ReactorFlavor INSTANCE = new ReactorFlavor();

  @Override
  public String name() {
    return "reactor";
  }

  @Override
  public Responder server(ServerProbe probe) {
    return new ResponderAdapter(
        new ReactorResponder() {
          @Override
          public Mono<Void> fireAndForget(Message request) {
            probe.fnf.add(text(request));
            return Mono.empty();
          }

          @Override
          public Mono<Message> requestResponse(Message request) {
            String data = text(request);
            switch (data) {
              case "error":
                return Mono.error(boom());
              case "never":
                return Mono.<Message>never().doOnCancel(() -> probe.rrCanceled.complete(null));
              default:
                return Mono.fromSupplier(() -> msg("echo:" + data));
            }
          }

          @Override
          public Flux<Message> requestStream(Message request) {
            String data = text(request);
            if (data.startsWith("count:")) {
              return Flux.range(0, arg(data)).map(i -> msg(Integer.toString(i)));
            }
            if (data.startsWith("fail:")) {
              return Flux.range(0, arg(data))
                  .map(i -> msg(Integer.toString(i)))
                  .concatWith(Flux.error(boom()));
            }
            return Flux.<Message>generate(
                    sink -> sink.next(msg(Long.toString(probe.emitted.getAndIncrement()))))
                .doOnCancel(() -> probe.streamCanceled.complete(null));
          }

          @Override
          public Flux<Message> requestChannel(Message first, Flux<Message> rest) {
            String data = text(first);
            if (data.startsWith("take:")) {
              return rest.take(arg(data), true).map(m -> msg("got:" + text(m)));
            }
            return rest.map(m -> msg("echo:" + text(m)));
          }
        });
  }

  @Override
  public Client client(Requester requester) {
    ReactorRequester r = new ReactorRequester(requester);
    return new Client() {
      @Override
      public CompletableFuture<Void> fireAndForget(String data) {
        return r.fireAndForget(msg(data)).toFuture();
      }

      @Override
      public Call requestResponse(String data) {
        CompletableFuture<String> result = new CompletableFuture<>();
        Disposable d =
            r.requestResponse(msg(data))
                .subscribe(
                    m -> result.complete(text(m)),
                    result::completeExceptionally,
                    () -> result.complete(null));
        return Call.of(result, () -> d.dispose());
      }

      @Override
      public Probe requestStream(String data) {
        return subscribe(r.requestStream(msg(data)));
      }

      @Override
      public Probe requestChannel(List<String> outbound, boolean complete) {
        CompletableFuture<Void> canceled = new CompletableFuture<>();
        Flux<Message> out = Flux.fromIterable(outbound).map(Contract::msg);
        if (!complete) {
          out = out.concatWith(Flux.never());
        }
        out = out.doOnCancel(() -> canceled.complete(null));
        Probe p = subscribe(r.requestChannel(out));
        canceled.thenRun(() -> p.outboundCanceled.complete(null));
        return p;
      }
    };
  }

  private static Probe subscribe(Flux<Message> flux) {
    final class Sub extends BaseSubscriber<Message> {
      Probe probe;

      @Override
      protected void hookOnSubscribe(Subscription subscription) {}

      @Override
      protected void hookOnNext(Message value) {
        probe.next(value);
      }

      @Override
      protected void hookOnComplete() {
        probe.complete();
      }

      @Override
      protected void hookOnError(Throwable throwable) {
        probe.error(throwable);
      }
    }
    Sub s = new Sub();
    s.probe =
        new Probe() {
          @Override
          void request(long n) {
            s.request(n);
          }

          @Override
          void cancel() {
            s.cancel();
          }
        };
    flux.subscribe(s);
    return s.probe;
  }
}
