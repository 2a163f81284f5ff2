package io.sluice.rpc.futures;

import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.it.common.Item;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.stream.Collectors;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;
import sluice.test.echo.EchoOuterClass.Echo;
import sluice.test.echo.EchoOuterClass.EchoReply;
import sluice.test.echo.EchoOuterClass.EchoRequest;
import sluice.test.echo.FuturesEchoService;

/** The test service in the futures flavor: behaviour chosen per request by {@code action}. */
final class FuturesEchoImpl implements FuturesEchoService {
  final BlockingQueue<String> notes = new LinkedBlockingQueue<>();
  volatile CountDownLatch cancelled = new CountDownLatch(1);
  /** Counted down when a "sleep" call reaches its handler. */
  volatile CountDownLatch started = new CountDownLatch(1);

  static EchoReply reply(String text, int index) {
    return EchoReply.newBuilder().setText(text).setIndex(index).build();
  }

  @Override
  public CompletableFuture<EchoReply> say(EchoRequest r) {
    String a = r.getAction();
    if (a.startsWith("fail:")) {
      String[] p = a.split(":", 3);
      return CompletableFuture.failedFuture(StatusException.of(Status.Code.fromValue(Integer.parseInt(p[1])), p[2]));
    }
    if (a.equals("sleep")) {
      CountDownLatch latch = cancelled;
      CompletableFuture<EchoReply> never = new CompletableFuture<>();
      never.whenComplete((v, e) -> latch.countDown());
      started.countDown();
      return never;
    }
    if (a.equals("headers")) {
      String headers = FuturesRpc.callMetadata().headers().entries().stream()
          .map(Map.Entry::toString).collect(Collectors.joining(","));
      return CompletableFuture.completedFuture(reply(headers, 0));
    }
    return CompletableFuture.supplyAsync(() -> reply(r.getText(), 0));
  }

  @Override
  public Flow.Publisher<EchoReply> repeat(EchoRequest r) {
    Flux<EchoReply> items = Flux.range(0, r.getCount()).map(i -> reply(r.getText() + "-" + i, i));
    if (r.getAction().startsWith("fail:")) {
      items = items.concatWith(Flux.error(StatusException.of(Status.Code.ABORTED, "stream broke")));
    }
    return JdkFlowAdapter.publisherToFlowPublisher(items);
  }

  @Override
  public CompletableFuture<EchoReply> join(Flow.Publisher<EchoRequest> requests) {
    return JdkFlowAdapter.flowPublisherToFlux(requests)
        .map(EchoRequest::getText)
        .collectList()
        .map(l -> reply(String.join("+", l), l.size()))
        .toFuture();
  }

  @Override
  public Flow.Publisher<EchoReply> chat(Flow.Publisher<EchoRequest> requests) {
    return JdkFlowAdapter.publisherToFlowPublisher(
        JdkFlowAdapter.flowPublisherToFlux(requests).index().map(t -> reply("echo:" + t.getT2().getText(), t.getT1().intValue())));
  }

  @Override
  public CompletableFuture<Void> note(EchoRequest request) {
    notes.add(request.getText());
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletableFuture<Item> lookup(Echo request) {
    return CompletableFuture.completedFuture(Item.newBuilder().setText(request.getText()).build());
  }
}
