package io.sluice.rpc.mutiny;

import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.it.common.Item;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import sluice.test.echo.EchoOuterClass.Echo;
import sluice.test.echo.EchoOuterClass.EchoReply;
import sluice.test.echo.EchoOuterClass.EchoRequest;
import sluice.test.echo.MutinyEchoService;

/** The test service in the Mutiny flavor: behaviour chosen per request by {@code action}. */
final class MutinyEchoImpl implements MutinyEchoService {
  final BlockingQueue<String> notes = new LinkedBlockingQueue<>();
  volatile CountDownLatch cancelled = new CountDownLatch(1);

  static EchoReply reply(String text, int index) {
    return EchoReply.newBuilder().setText(text).setIndex(index).build();
  }

  @Override
  public Uni<EchoReply> say(EchoRequest r) {
    String a = r.getAction();
    if (a.startsWith("fail:")) {
      String[] p = a.split(":", 3);
      return Uni.createFrom().failure(StatusException.of(Status.Code.fromValue(Integer.parseInt(p[1])), p[2]));
    }
    if (a.equals("sleep")) {
      CountDownLatch latch = cancelled;
      return Uni.createFrom().<EchoReply>nothing().onCancellation().invoke(latch::countDown);
    }
    if (a.equals("headers")) {
      return Uni.createFrom().item(reply(MutinyRpc.callMetadata().headers().entries().stream()
          .map(Map.Entry::toString).collect(Collectors.joining(",")), 0));
    }
    return Uni.createFrom().item(reply(r.getText(), 0));
  }

  @Override
  public Multi<EchoReply> repeat(EchoRequest r) {
    Multi<EchoReply> items = Multi.createFrom().range(0, r.getCount()).map(i -> reply(r.getText() + "-" + i, i));
    if (r.getAction().startsWith("fail:")) {
      return Multi.createBy().concatenating().streams(
          items, Multi.createFrom().failure(StatusException.of(Status.Code.ABORTED, "stream broke")));
    }
    return items;
  }

  @Override
  public Uni<EchoReply> join(Multi<EchoRequest> requests) {
    return requests.map(EchoRequest::getText).collect().asList().map(l -> reply(String.join("+", l), l.size()));
  }

  @Override
  public Multi<EchoReply> chat(Multi<EchoRequest> requests) {
    AtomicInteger i = new AtomicInteger();
    return requests.map(r -> reply("echo:" + r.getText(), i.getAndIncrement()));
  }

  @Override
  public Uni<Void> note(EchoRequest request) {
    notes.add(request.getText());
    return Uni.createFrom().voidItem();
  }

  @Override
  public Uni<Item> lookup(Echo request) {
    return Uni.createFrom().item(Item.newBuilder().setText(request.getText()).build());
  }
}
