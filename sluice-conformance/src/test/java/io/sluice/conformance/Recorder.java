package io.sluice.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.test.RawPeer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A responder that answers nothing by itself: it records each request (copied to text, the message
 * released) with its stream handle, and the test drives the answer. An optional hook runs on the
 * event loop when each stream first sees demand (a producer may only emit then), so what it does
 * happens before the next inbound frame is read.
 */
final class Recorder implements Responder {

  /** One request as the responder saw it. */
  record Call(
      String kind, String metadata, String data, boolean complete, StreamHandle handle, Events events) {}

  private final BlockingQueue<Call> calls = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> closes = new LinkedBlockingQueue<>();
  private volatile Consumer<Call> onStart = c -> {};

  /** Runs {@code hook} on the event loop when each stream first sees demand. */
  Recorder onStart(Consumer<Call> hook) {
    this.onStart = hook;
    return this;
  }

  private Call record(String kind, Message m, boolean complete, StreamHandle handle, Events events) {
    Call c;
    try {
      c = new Call(kind, m.hasMetadata() ? m.metadataUtf8() : null, m.dataUtf8(), complete, handle, events);
    } finally {
      m.release();
    }
    if (events != null) {
      Consumer<Call> hook = onStart;
      events.onFirstRequest(() -> hook.accept(c));
    }
    calls.add(c);
    return c;
  }

  @Override
  public void fireAndForget(Message request) {
    record("fnf", request, true, null, null);
  }

  @Override
  public void metadataPush(Message metadata) {
    record("metadata-push", metadata, true, null, null);
  }

  @Override
  public StreamListener requestResponse(Message request, StreamHandle response) {
    Events e = new Events();
    record("request-response", request, true, response, e);
    return e;
  }

  @Override
  public StreamListener requestStream(Message request, StreamHandle stream) {
    Events e = new Events();
    record("request-stream", request, true, stream, e);
    return e;
  }

  @Override
  public StreamListener requestChannel(Message first, boolean inboundComplete, StreamHandle channel) {
    Events e = new Events();
    record("request-channel", first, inboundComplete, channel, e);
    return e;
  }

  @Override
  public void onClose(Throwable cause) {
    closes.add(cause == null ? "clean" : cause.toString());
  }

  Call take() {
    try {
      Call c = calls.poll(RawPeer.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(c).as("a request at the responder within %s", RawPeer.TIMEOUT).isNotNull();
      return c;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Requests recorded and not taken yet (no wait: call after a fence). */
  java.util.List<Call> pending() {
    java.util.List<Call> out = new java.util.ArrayList<>();
    calls.drainTo(out);
    return out;
  }
}
