package io.sluice.rpc.grpcstub;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.sluice.rpc.it.common.Item;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.stream.Collectors;
import sluice.test.echo.EchoOuterClass.Echo;
import sluice.test.echo.EchoOuterClass.EchoReply;
import sluice.test.echo.EchoOuterClass.EchoRequest;
import sluice.test.echo.GrpcEchoServiceImplBase;

/** The test service in grpc-java style (Lookup is left unimplemented on purpose). */
final class GrpcEchoImpl extends GrpcEchoServiceImplBase {
  final BlockingQueue<String> notes = new LinkedBlockingQueue<>();
  volatile CountDownLatch cancelled = new CountDownLatch(1);
  /** Counted down by the on-close handler of an "onclose" call. */
  volatile CountDownLatch closed = new CountDownLatch(1);
  /** Counted down when a "sleep" call reaches its handler. */
  volatile CountDownLatch started = new CountDownLatch(1);
  /** Responses the "paced" repeat handler has written. */
  final java.util.concurrent.atomic.AtomicInteger written = new java.util.concurrent.atomic.AtomicInteger();

  static EchoReply reply(String text, int index) {
    return EchoReply.newBuilder().setText(text).setIndex(index).build();
  }

  @Override
  public void say(EchoRequest r, StreamObserver<EchoReply> responses) {
    String a = r.getAction();
    if (a.startsWith("fail:")) {
      String[] p = a.split(":", 3);
      responses.onError(io.grpc.Status.fromCodeValue(Integer.parseInt(p[1])).withDescription(p[2]).asRuntimeException());
      return;
    }
    if (a.equals("rich")) { // the rich error model: details in the trailers of the exception
      io.grpc.Metadata md = new io.grpc.Metadata();
      md.put(io.grpc.Metadata.Key.of("x-detail-bin", io.grpc.Metadata.BINARY_BYTE_MARSHALLER), new byte[] {7, 0, 9});
      md.put(io.grpc.Metadata.Key.of("x-why", io.grpc.Metadata.ASCII_STRING_MARSHALLER), "because");
      responses.onError(io.grpc.Status.FAILED_PRECONDITION.withDescription("see details").asRuntimeException(md));
      return;
    }
    if (a.equals("onclose")) {
      CountDownLatch latch = closed;
      ((ServerCallStreamObserver<EchoReply>) responses).setOnCloseHandler(latch::countDown);
      responses.onNext(reply(r.getText(), 0));
      responses.onCompleted();
      return;
    }
    if (a.equals("twice")) {
      responses.onNext(reply("one", 0));
      responses.onNext(reply("two", 1));
      responses.onCompleted();
      return;
    }
    if (a.equals("sleep")) {
      CountDownLatch latch = cancelled;
      ((ServerCallStreamObserver<EchoReply>) responses).setOnCancelHandler(latch::countDown);
      started.countDown();
      return;
    }
    if (a.equals("headers")) {
      responses.onNext(reply(GrpcRpc.callMetadata().headers().entries().stream()
          .map(Map.Entry::toString).collect(Collectors.joining(",")), 0));
      responses.onCompleted();
      return;
    }
    responses.onNext(reply(r.getText(), 0));
    responses.onCompleted();
  }

  @Override
  public void repeat(EchoRequest r, StreamObserver<EchoReply> responses) {
    if (r.getAction().equals("paced")) {
      // grpc-java style: write only while the caller has demand, from the on-ready handler.
      ServerCallStreamObserver<EchoReply> o = (ServerCallStreamObserver<EchoReply>) responses;
      int[] next = {0};
      o.setOnReadyHandler(
          () -> {
            while (o.isReady() && next[0] < r.getCount()) {
              written.incrementAndGet();
              o.onNext(reply(r.getText() + "-" + next[0], next[0]++));
            }
            if (next[0] == r.getCount()) {
              next[0]++;
              o.onCompleted();
            }
          });
      return;
    }
    for (int i = 0; i < r.getCount(); i++) {
      responses.onNext(reply(r.getText() + "-" + i, i));
    }
    if (r.getAction().startsWith("fail:")) {
      responses.onError(io.grpc.Status.ABORTED.withDescription("stream broke").asRuntimeException());
    } else {
      responses.onCompleted();
    }
  }

  @Override
  public StreamObserver<EchoRequest> join(StreamObserver<EchoReply> responses) {
    List<String> texts = new ArrayList<>();
    return new StreamObserver<>() {
      @Override
      public void onNext(EchoRequest value) {
        texts.add(value.getText());
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {
        responses.onNext(reply(String.join("+", texts), texts.size()));
        responses.onCompleted();
      }
    };
  }

  @Override
  public StreamObserver<EchoRequest> chat(StreamObserver<EchoReply> responses) {
    return new StreamObserver<>() {
      int i;

      @Override
      public void onNext(EchoRequest value) {
        responses.onNext(reply("echo:" + value.getText(), i++));
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {
        responses.onCompleted();
      }
    };
  }

  @Override
  public void note(EchoRequest request, StreamObserver<com.google.protobuf.Empty> responses) {
    notes.add(request.getText());
    responses.onCompleted();
  }

  static Item item(Echo request) {
    return Item.newBuilder().setText(request.getText()).build();
  }
}
