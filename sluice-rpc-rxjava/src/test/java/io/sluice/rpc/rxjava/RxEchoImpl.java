package io.sluice.rpc.rxjava;

import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Flowable;
import io.reactivex.rxjava3.core.Single;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.it.common.Item;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.stream.Collectors;
import sluice.test.echo.EchoOuterClass.Echo;
import sluice.test.echo.EchoOuterClass.EchoReply;
import sluice.test.echo.EchoOuterClass.EchoRequest;
import sluice.test.echo.RxEchoService;

/** The test service in the RxJava flavor: behaviour chosen per request by {@code action}. */
final class RxEchoImpl implements RxEchoService {
  final BlockingQueue<String> notes = new LinkedBlockingQueue<>();
  volatile CountDownLatch cancelled = new CountDownLatch(1);

  static EchoReply reply(String text, int index) {
    return EchoReply.newBuilder().setText(text).setIndex(index).build();
  }

  @Override
  public Single<EchoReply> say(EchoRequest r) {
    String a = r.getAction();
    if (a.startsWith("fail:")) {
      String[] p = a.split(":", 3);
      return Single.error(StatusException.of(Status.Code.fromValue(Integer.parseInt(p[1])), p[2]));
    }
    if (a.equals("sleep")) {
      CountDownLatch latch = cancelled;
      return Single.<EchoReply>never().doOnDispose(latch::countDown);
    }
    if (a.equals("headers")) {
      return Single.just(reply(RxRpc.callMetadata().headers().entries().stream()
          .map(Map.Entry::toString).collect(Collectors.joining(",")), 0));
    }
    return Single.just(reply(r.getText(), 0));
  }

  @Override
  public Flowable<EchoReply> repeat(EchoRequest r) {
    Flowable<EchoReply> items = Flowable.range(0, r.getCount()).map(i -> reply(r.getText() + "-" + i, i));
    if (r.getAction().startsWith("fail:")) {
      return items.concatWith(Flowable.error(StatusException.of(Status.Code.ABORTED, "stream broke")));
    }
    return items;
  }

  @Override
  public Single<EchoReply> join(Flowable<EchoRequest> requests) {
    return requests.map(EchoRequest::getText).toList().map(l -> reply(String.join("+", l), l.size()));
  }

  @Override
  public Flowable<EchoReply> chat(Flowable<EchoRequest> requests) {
    int[] i = {0};
    return requests.map(r -> reply("echo:" + r.getText(), i[0]++));
  }

  @Override
  public Completable note(EchoRequest request) {
    return Completable.fromRunnable(() -> notes.add(request.getText()));
  }

  @Override
  public Single<Item> lookup(Echo request) {
    return Single.just(Item.newBuilder().setText(request.getText()).build());
  }
}
