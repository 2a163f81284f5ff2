package io.sluice.internal;

import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import static org.assertj.core.api.Assertions.assertThat;

/** Responders for engine tests that produce exactly what the engine asks for. */
final class Producers {
  private Producers() {}

  /**
   * A responder whose streams and channels emit, on each {@code onRequest(n)}, the next n messages
   * "0", "1", ... synchronously, completing after {@code total} (never if negative). Request-response
   * answers "rr:" + the request. Records every demand, cancel, error and inbound message.
   */
  static final class Counting implements Responder {
    final long total;
    final AtomicLong requested = new AtomicLong();
    final AtomicLong produced = new AtomicLong();
    final List<Long> grants = new CopyOnWriteArrayList<>();
    final BlockingQueue<String> events = new LinkedBlockingQueue<>();
    final BlockingQueue<StreamHandle> handles = new LinkedBlockingQueue<>();
    /** When false, demand is only recorded; the test emits through {@link #handles}. */
    volatile boolean emit = true;

    Counting(long total) {
      this.total = total;
    }

    @Override
    public StreamListener requestResponse(Message request, StreamHandle response) {
      String d = request.dataUtf8();
      request.release();
      events.add("request-response:" + d);
      handles.add(response);
      if (emit) {
        response.nextAndComplete(Message.utf8(response.alloc(), "rr:" + d));
      }
      return listener(response);
    }

    @Override
    public StreamListener requestStream(Message request, StreamHandle stream) {
      events.add("request-stream:" + request.dataUtf8());
      request.release();
      handles.add(stream);
      return listener(stream);
    }

    @Override
    public StreamListener requestChannel(Message first, boolean inboundComplete, StreamHandle ch) {
      events.add("request-channel:" + first.dataUtf8() + (inboundComplete ? ":complete" : ""));
      first.release();
      handles.add(ch);
      return listener(ch);
    }

    @Override
    public void fireAndForget(Message request) {
      events.add("fnf:" + request.dataUtf8());
      request.release();
    }

    @Override
    public void metadataPush(Message metadata) {
      events.add("metadata-push:" + metadata.metadataUtf8());
      metadata.release();
    }

    @Override
    public void onClose(Throwable cause) {
      events.add("close:" + cause);
    }

    private StreamListener listener(StreamHandle h) {
      return new StreamListener() {
        @Override
        public void onNext(Message m) {
          events.add("inbound:" + m.dataUtf8());
          m.release();
        }

        @Override
        public void onComplete() {
          events.add("inbound-complete");
        }

        @Override
        public void onError(Throwable cause) {
          events.add("error:" + cause);
        }

        @Override
        public void onCancel() {
          events.add("cancel");
        }

        @Override
        public void onRequest(long n) {
          grants.add(n);
          requested.addAndGet(n);
          if (!emit) {
            return;
          }
          for (long i = 0; i < n; i++) {
            long k = produced.get();
            if (total >= 0 && k >= total) {
              return;
            }
            produced.incrementAndGet();
            if (total >= 0 && k == total - 1) {
              h.nextAndComplete(Message.utf8(h.alloc(), Long.toString(k)));
              return;
            }
            h.next(Message.utf8(h.alloc(), Long.toString(k)));
          }
        }
      };
    }

    String take() {
      try {
        String e = events.poll(Loop.WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(e).as("a responder event within %s s", Loop.WAIT_SECONDS).isNotNull();
        return e;
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }

    StreamHandle handle() {
      try {
        StreamHandle h = handles.poll(Loop.WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(h).isNotNull();
        return h;
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }
  }
}
