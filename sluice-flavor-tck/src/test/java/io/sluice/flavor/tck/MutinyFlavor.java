package io.sluice.flavor.tck;

import static io.sluice.flavor.tck.Contract.arg;
import static io.sluice.flavor.tck.Contract.boom;
import static io.sluice.flavor.tck.Contract.msg;
import static io.sluice.flavor.tck.Contract.text;

import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.Cancellable;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.mutiny.MutinyClient;
import io.sluice.mutiny.MutinyRequester;
import io.sluice.mutiny.MutinyResponder;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The Mutiny flavor in the shared suite. */
final class MutinyFlavor implements Flavor {
  static final MutinyFlavor INSTANCE = new MutinyFlavor();

  @Override
  public String name() {
    return "mutiny";
  }

  @Override
  public Responder server(ServerProbe probe) {
    return MutinyClient.toResponder(
        new MutinyResponder() {
          @Override
          public Uni<Void> fireAndForget(Message request) {
            probe.fnf.add(text(request));
            return Uni.createFrom().voidItem();
          }

          @Override
          public Uni<Message> requestResponse(Message request) {
            String data = text(request);
            switch (data) {
              case "error":
                return Uni.createFrom().failure(boom());
              case "never":
                return Uni.createFrom()
                    .<Message>nothing()
                    .onCancellation()
                    .invoke(() -> probe.rrCanceled.complete(null));
              default:
                return Uni.createFrom().item(() -> msg("echo:" + data));
            }
          }

          @Override
          public Multi<Message> requestStream(Message request) {
            String data = text(request);
            if (data.startsWith("count:")) {
              return Multi.createFrom().range(0, arg(data)).map(i -> msg(Integer.toString(i)));
            }
            if (data.startsWith("fail:")) {
              return Multi.createBy()
                  .concatenating()
                  .streams(
                      Multi.createFrom().range(0, arg(data)).map(i -> msg(Integer.toString(i))),
                      Multi.createFrom().failure(boom()));
            }
            return Multi.createFrom()
                .<Integer, Message>generator(
                    () -> 0,
                    (state, emitter) -> {
                      emitter.emit(msg(Long.toString(probe.emitted.getAndIncrement())));
                      return state;
                    })
                .onCancellation()
                .invoke(() -> probe.streamCanceled.complete(null));
          }

          @Override
          public Multi<Message> requestChannel(Message first, Multi<Message> rest) {
            String data = text(first);
            if (data.startsWith("take:")) {
              return rest.select().first(arg(data)).map(m -> msg("got:" + text(m)));
            }
            return rest.map(m -> msg("echo:" + text(m)));
          }
        });
  }

  @Override
  public Client client(Requester requester) {
    MutinyRequester r = new MutinyRequester(requester);
    return new Client() {
      @Override
      public CompletableFuture<Void> fireAndForget(String data) {
        return r.fireAndForget(msg(data)).subscribeAsCompletionStage();
      }

      @Override
      public Call requestResponse(String data) {
        CompletableFuture<String> result = new CompletableFuture<>();
        Cancellable c =
            r.requestResponse(msg(data))
                .subscribe()
                .with(m -> result.complete(m == null ? null : text(m)), result::completeExceptionally);
        return Call.of(result, () -> c.cancel());
      }

      @Override
      public Probe requestStream(String data) {
        return FuturesFlavor.subscribe(r.requestStream(msg(data)));
      }

      @Override
      public Probe requestChannel(List<String> outbound, boolean complete) {
        CompletableFuture<Void> canceled = new CompletableFuture<>();
        Multi<Message> out = Multi.createFrom().iterable(outbound).map(Contract::msg);
        if (!complete) {
          out = Multi.createBy().concatenating().streams(out, Multi.createFrom().nothing());
        }
        out = out.onCancellation().invoke(() -> canceled.complete(null));
        Probe p = FuturesFlavor.subscribe(r.requestChannel(out));
        canceled.thenRun(() -> p.outboundCanceled.complete(null));
        return p;
      }
    };
  }
}
