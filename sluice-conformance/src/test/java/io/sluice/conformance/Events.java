package io.sluice.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Message;
import io.sluice.StreamListener;
import io.sluice.exceptions.SluiceException;
import io.sluice.test.RawPeer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link StreamListener} that turns every signal into a line of text ({@code next:<data>}, {@code
 * next:<metadata>|<data>}, {@code complete}, {@code error:<code>:<message>}, {@code request:<n>},
 * {@code cancel}) and releases each message at once, so tests hold no buffers.
 */
final class Events implements StreamListener {
  private final BlockingQueue<String> events = new LinkedBlockingQueue<>();
  private Runnable onFirstRequest;

  /** Runs {@code hook} (on the event loop) when the first demand arrives. */
  Events onFirstRequest(Runnable hook) {
    this.onFirstRequest = hook;
    return this;
  }

  @Override
  public void onNext(Message message) {
    try {
      events.add(
          "next:"
              + (message.hasMetadata() ? message.metadataUtf8() + "|" : "")
              + message.dataUtf8());
    } finally {
      message.release();
    }
  }

  @Override
  public void onComplete() {
    events.add("complete");
  }

  @Override
  public void onError(Throwable cause) {
    String code =
        cause instanceof SluiceException
            ? "0x" + Integer.toHexString(((SluiceException) cause).errorCode())
            : cause.getClass().getSimpleName();
    events.add("error:" + code + ":" + cause.getMessage());
  }

  @Override
  public void onRequest(long n) {
    events.add("request:" + n);
    Runnable hook = onFirstRequest;
    onFirstRequest = null;
    if (hook != null) {
      hook.run();
    }
  }

  @Override
  public void onCancel() {
    events.add("cancel");
  }

  /** The next event (bounded wait). */
  String take() {
    try {
      String e = events.poll(RawPeer.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(e).as("an event within %s", RawPeer.TIMEOUT).isNotNull();
      return e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** The next event that is not a demand signal ({@code request:<n>}). */
  String takeSignal() {
    for (; ; ) {
      String e = take();
      if (!e.startsWith("request:")) {
        return e;
      }
    }
  }

  /** Events so far, without waiting. */
  java.util.List<String> drain() {
    java.util.List<String> out = new java.util.ArrayList<>();
    events.drainTo(out);
    return out;
  }
}
