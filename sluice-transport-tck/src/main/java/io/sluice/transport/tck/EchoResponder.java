package io.sluice.transport.tck;

import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.LongSupplier;

/**
 * The responder both ends of a kit connection run: request-response echoes the request;
 * request-stream sends {@code count} numbered messages of {@code size} bytes when asked with
 * {@code "count:size"}, as demand allows; request-channel echoes every message and completes when
 * the requester does; fire-and-forget and metadata-push are described into queues.
 *
 * <p><b>Threads.</b> Called on the connections' loops; the queues and futures are read by the
 * test's thread. <b>Buffers.</b> Every request is released or sent back; produced messages come
 * from the kit's {@link CountingAllocator}.
 */
final class EchoResponder implements Responder {
  final BlockingQueue<String> fireAndForgets = new LinkedBlockingQueue<>();
  final BlockingQueue<String> metadataPushes = new LinkedBlockingQueue<>();
  /** Each request-stream's producer, as it starts. */
  final BlockingQueue<Producer> producers = new LinkedBlockingQueue<>();
  /** Each request-channel's echo, as it starts. */
  final BlockingQueue<Echo> echoes = new LinkedBlockingQueue<>();

  private final CountingAllocator alloc;
  /** Measures memory held for a producer, sampled after each message it sends; may be null. */
  volatile LongSupplier sampler;

  EchoResponder(CountingAllocator alloc) {
    this.alloc = alloc;
  }

  @Override
  public void fireAndForget(Message request) {
    try {
      fireAndForgets.add(KitMessages.describe(request));
    } finally {
      request.release();
    }
  }

  @Override
  public void metadataPush(Message metadata) {
    try {
      metadataPushes.add(metadata.metadata().toString(StandardCharsets.UTF_8));
    } finally {
      metadata.release();
    }
  }

  @Override
  public StreamListener requestResponse(Message request, StreamHandle response) {
    response.nextAndComplete(request);
    return StreamListener.DISCARDING;
  }

  @Override
  public StreamListener requestStream(Message request, StreamHandle stream) {
    String spec;
    try {
      spec = request.dataUtf8();
    } finally {
      request.release();
    }
    int colon = spec.indexOf(':');
    Producer p =
        new Producer(
            stream,
            Integer.parseInt(spec.substring(0, colon)),
            Integer.parseInt(spec.substring(colon + 1)));
    producers.add(p);
    return p;
  }

  @Override
  public StreamListener requestChannel(
      Message first, boolean inboundComplete, StreamHandle channel) {
    Echo e = new Echo(channel, first, inboundComplete);
    echoes.add(e);
    return e;
  }

  /** Sends numbered messages as demand allows, then completes. Confined to the loop. */
  final class Producer implements StreamListener {
    private final StreamHandle stream;
    private final int total;
    private final int size;
    private int sent;
    private volatile long peak;
    /** Completes with null once all was sent, with the error or cancellation otherwise. */
    final CompletableFuture<Throwable> ended = new CompletableFuture<>();

    Producer(StreamHandle stream, int total, int size) {
      this.stream = stream;
      this.total = total;
      this.size = size;
    }

    /** Messages sent so far. */
    int sent() {
      return sent;
    }

    /** The most memory {@link #sampler} reported while this producer sent. */
    long peak() {
      return peak;
    }

    @Override
    public void onRequest(long n) {
      for (long i = 0; i < n && sent < total && !ended.isDone(); i++) {
        stream.next(KitMessages.numbered(alloc, sent++, size));
        LongSupplier s = sampler;
        if (s != null) {
          peak = Math.max(peak, s.getAsLong());
        }
      }
      if (sent == total && !ended.isDone()) {
        ended.complete(null);
        stream.complete();
      }
    }

    @Override
    public void onNext(Message message) {
      message.release();
    }

    @Override
    public void onComplete() {}

    @Override
    public void onError(Throwable cause) {
      ended.complete(cause);
    }

    @Override
    public void onCancel() {
      ended.complete(new CancellationException("canceled by the requester"));
    }
  }

  /** Echoes a channel: asks the requester for as many messages as it may send back. */
  static final class Echo implements StreamListener {
    private final StreamHandle channel;
    private Message first; // loop
    private boolean inboundCompleteAtFirst;
    /** Completes with null when both halves completed, with the error or cancellation otherwise. */
    final CompletableFuture<Throwable> ended = new CompletableFuture<>();

    Echo(StreamHandle channel, Message first, boolean inboundComplete) {
      this.channel = channel;
      this.first = first;
      this.inboundCompleteAtFirst = inboundComplete;
    }

    @Override
    public void onRequest(long n) {
      long grant = n;
      if (first != null) {
        channel.next(first);
        first = null;
        grant--;
        if (inboundCompleteAtFirst) {
          channel.complete();
          ended.complete(null);
          return;
        }
      }
      if (grant > 0 && !ended.isDone()) {
        channel.request(grant);
      }
    }

    @Override
    public void onNext(Message message) {
      channel.next(message);
    }

    @Override
    public void onComplete() {
      if (first != null) {
        inboundCompleteAtFirst = true; // complete once the first message went back
        return;
      }
      channel.complete();
      ended.complete(null);
    }

    @Override
    public void onError(Throwable cause) {
      dropFirst();
      ended.complete(cause);
    }

    @Override
    public void onCancel() {
      dropFirst();
      ended.complete(new CancellationException("canceled by the requester"));
    }

    private void dropFirst() {
      if (first != null) {
        first.release();
        first = null;
      }
    }
  }
}
