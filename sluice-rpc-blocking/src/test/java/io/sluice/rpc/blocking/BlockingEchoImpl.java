package io.sluice.rpc.blocking;

import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.it.common.Item;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import sluice.test.echo.BlockingEchoService;
import sluice.test.echo.EchoOuterClass.Echo;
import sluice.test.echo.EchoOuterClass.EchoReply;
import sluice.test.echo.EchoOuterClass.EchoRequest;

/** The test service in the blocking flavor: behaviour chosen per request by {@code action}. */
final class BlockingEchoImpl implements BlockingEchoService {
  final BlockingQueue<String> notes = new LinkedBlockingQueue<>();
  volatile CountDownLatch cancelled = new CountDownLatch(1);

  static EchoReply reply(String text, int index) {
    return EchoReply.newBuilder().setText(text).setIndex(index).build();
  }

  @Override
  public EchoReply say(EchoRequest r) {
    String a = r.getAction();
    if (a.startsWith("fail:")) {
      String[] p = a.split(":", 3);
      throw StatusException.of(Status.Code.fromValue(Integer.parseInt(p[1])), p[2]);
    }
    if (a.equals("sleep")) {
      CountDownLatch latch = cancelled;
      try {
        Thread.sleep(60_000);
      } catch (InterruptedException e) {
        latch.countDown(); // the call was cancelled: the handler's thread is interrupted
      }
      return null;
    }
    if (a.equals("headers")) {
      return reply(BlockingRpc.callMetadata().headers().entries().stream()
          .map(Map.Entry::toString).collect(Collectors.joining(",")), 0);
    }
    if (!Thread.currentThread().isVirtual()) {
      throw new IllegalStateException("not on a virtual thread");
    }
    return reply(r.getText(), 0);
  }

  @Override
  public Stream<EchoReply> repeat(EchoRequest r) {
    Stream<EchoReply> items = IntStream.range(0, r.getCount()).mapToObj(i -> reply(r.getText() + "-" + i, i));
    if (r.getAction().startsWith("fail:")) {
      return Stream.concat(items, Stream.<EchoReply>of((EchoReply) null).map(x -> {
        throw StatusException.of(Status.Code.ABORTED, "stream broke");
      }));
    }
    return items;
  }

  @Override
  public EchoReply join(Stream<EchoRequest> requests) {
    var texts = requests.map(EchoRequest::getText).collect(Collectors.toList());
    return reply(String.join("+", texts), texts.size());
  }

  @Override
  public Stream<EchoReply> chat(Stream<EchoRequest> requests) {
    AtomicInteger i = new AtomicInteger();
    return requests.map(r -> reply("echo:" + r.getText(), i.getAndIncrement()));
  }

  @Override
  public void note(EchoRequest request) {
    notes.add(request.getText());
  }

  @Override
  public Item lookup(Echo request) {
    return Item.newBuilder().setText(request.getText()).build();
  }
}
