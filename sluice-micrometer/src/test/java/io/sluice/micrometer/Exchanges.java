package io.sluice.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

/** Helpers shared by the tests: plain RSocket exchanges and bounded waits on meters. */
final class Exchanges {
  static final long WAIT_SECONDS = 60;

  private Exchanges() {}

  /** Answers each request-response with its data, each request-stream with {@code n} messages. */
  static Responder echo() {
    return new Responder() {
      @Override
      public StreamListener requestResponse(Message request, StreamHandle response) {
        Message answer = Message.of(null, request.data().retain());
        request.release();
        response.nextAndComplete(answer);
        return StreamListener.DISCARDING;
      }

      @Override
      public StreamListener requestStream(Message request, StreamHandle stream) {
        request.release();
        return StreamListener.DISCARDING;
      }
    };
  }

  static Message msg(ByteBufAllocator alloc, String data) {
    return Message.of(null, Unpooled.copiedBuffer(data, StandardCharsets.UTF_8));
  }

  /** One request-response; returns the answer's text. */
  static String call(Requester r, String data) throws Exception {
    CompletableFuture<String> answer = new CompletableFuture<>();
    r.requestResponse(
        msg(r.alloc(), data),
        new Quiet() {
          @Override
          public void onNext(Message m) {
            try {
              answer.complete(m.dataUtf8());
            } finally {
              m.release();
            }
          }

          @Override
          public void onError(Throwable cause) {
            answer.completeExceptionally(cause);
          }
        });
    return answer.get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  /** A listener that releases messages and ignores signals; override what a test waits for. */
  static class Quiet implements StreamListener {
    @Override
    public void onNext(Message message) {
      message.release();
    }

    @Override
    public void onComplete() {}

    @Override
    public void onError(Throwable cause) {}
  }

  /** The value of the one meter {@code search} finds (a counter, function counter or gauge). */
  static double value(Search search) {
    io.micrometer.core.instrument.Meter m = search.meter();
    assertThat(m).as("meter").isNotNull();
    double sum = 0;
    for (io.micrometer.core.instrument.Measurement x : m.measure()) {
      sum += x.getValue();
    }
    return sum;
  }

  static double value(MeterRegistry registry, String name, String... tags) {
    return value(registry.find(name).tags(tags));
  }

  /** Waits (bounded) until {@code read} returns {@code expected}; returns the last value read. */
  static double await(DoubleSupplier read, double expected) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    double v = read.getAsDouble();
    while (v != expected && System.nanoTime() < deadline) {
      Thread.sleep(10);
      v = read.getAsDouble();
    }
    return v;
  }
}
