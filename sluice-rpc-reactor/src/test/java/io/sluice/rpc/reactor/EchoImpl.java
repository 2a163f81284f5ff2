package io.sluice.rpc.reactor;

import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.it.common.Color;
import io.sluice.rpc.it.common.Item;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.stream.Collectors;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import sluice.test.echo.EchoOuterClass.Echo;
import sluice.test.echo.EchoOuterClass.EchoReply;
import sluice.test.echo.EchoOuterClass.EchoRequest;
import sluice.test.echo.ReactorEchoService;

/** The test service: behaviour chosen per request by {@code action}. */
final class EchoImpl implements ReactorEchoService {
  final BlockingQueue<String> notes = new LinkedBlockingQueue<>();
  /** Counted down when a "sleep" call's handler is cancelled. */
  volatile CountDownLatch cancelled = new CountDownLatch(1);

  static EchoReply reply(String text, int index) {
    return EchoReply.newBuilder().setText(text).setIndex(index).build();
  }

  private Mono<EchoReply> act(EchoRequest r) {
    String a = r.getAction();
    if (a.startsWith("fail:")) {
      String[] p = a.split(":", 3);
      return Mono.error(StatusException.of(Status.Code.fromValue(Integer.parseInt(p[1])), p[2]));
    }
    if (a.equals("empty")) {
      return Mono.empty();
    }
    if (a.equals("throw")) {
      throw new IllegalStateException("handler threw");
    }
    if (a.startsWith("error:")) { // fails the answer with an exception that carries no status
      return Mono.error(new IllegalStateException(a.substring(6)));
    }
    if (a.equals("sleep")) {
      CountDownLatch latch = cancelled;
      return Mono.<EchoReply>never().doOnCancel(latch::countDown);
    }
    if (a.equals("headers")) {
      return ReactorRpc.callMetadata()
          .map(
              call ->
                  reply(
                      call.headers().entries().stream()
                          .map(Map.Entry::toString)
                          .collect(Collectors.joining(",")),
                      0));
    }
    return Mono.just(reply(r.getText(), 0));
  }

  @Override
  public Mono<EchoReply> say(EchoRequest request) {
    return act(request);
  }

  @Override
  public Flux<EchoReply> repeat(EchoRequest request) {
    if (request.getAction().equals("sleep")) {
      CountDownLatch latch = cancelled;
      // The whole call's cancel counts: a deadline may cancel it before "never" is subscribed.
      return Flux.just(reply("first", 0)).concatWith(Flux.<EchoReply>never()).doOnCancel(latch::countDown);
    }
    Flux<EchoReply> items =
        Flux.range(0, request.getCount()).map(i -> reply(request.getText() + "-" + i, i));
    if (request.getAction().startsWith("fail:")) {
      return items.concatWith(act(request));
    }
    return items;
  }

  @Override
  public Mono<EchoReply> join(Flux<EchoRequest> requests) {
    return requests
        .map(EchoRequest::getText)
        .collectList()
        .map(l -> reply(String.join("+", l), l.size()));
  }

  @Override
  public Flux<EchoReply> chat(Flux<EchoRequest> requests) {
    // The whole call's cancel counts too: a deadline may cancel it before a "sleep" step started.
    CountDownLatch latch = cancelled;
    return requests.index().concatMap(t -> t.getT2().getAction().isEmpty()
        ? Mono.just(reply("echo:" + t.getT2().getText(), t.getT1().intValue()))
        : act(t.getT2())).doOnCancel(latch::countDown);
  }

  @Override
  public Mono<Void> note(EchoRequest request) {
    notes.add(request.getText());
    return Mono.empty();
  }

  @Override
  public Mono<Item> lookup(Echo request) {
    return Mono.just(
        Item.newBuilder()
            .setText(request.getText())
            .setColor(Color.COLOR_BLUE)
            .addTags(Item.Tag.newBuilder().setKey("k").setValue("v")
                .setSource(Item.Tag.Source.newBuilder().setOrigin("lookup")))
            .build());
  }
}
