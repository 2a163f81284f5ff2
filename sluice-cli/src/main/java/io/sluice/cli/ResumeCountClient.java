package io.sluice.cli;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.Resumption;
import io.sluice.transport.ClientTransport;
import java.io.PrintStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code ./sluice client --resume --count N}: a resumable connection asks the echo server for
 * {@code seq:N} (a request-stream of N messages "0".."N-1") and checks that each arrives exactly
 * once and in order, printing {@code RESUMED k} on each resume and {@code PASS stream N messages
 * in order} or {@code FAIL ...} at the end. Every wait is bounded. With the OTEL_* variables set
 * the stream is one client span, its context in the request's metadata ({@link RsocketTracing}).
 */
public final class ResumeCountClient {
  private ResumeCountClient() {}

  public static int run(
      ClientTransport transport, ConnectionOptions options, int n, PrintStream out) {
    return run(transport, options, n, out, () -> {});
  }

  /** As the other {@code run}; {@code first} runs at the first message (for tests that cut). */
  public static int run(
      ClientTransport transport,
      ConnectionOptions options,
      int n,
      PrintStream out,
      Runnable first) {
    Resumption r =
        Resumption.builder()
            .listener(
                new Resumption.Listener() {
                  @Override
                  public void resumed(int count) {
                    synchronized (out) {
                      out.println("RESUMED " + count);
                      out.flush();
                    }
                  }
                })
            .build();
    Requester requester;
    try {
      requester =
          RsocketTracing.call(
              Connections.connect(
                      transport, options, ClientSetup.defaults().resumable(r), x -> new Responder() {})
                  .get(30, TimeUnit.SECONDS));
    } catch (Exception e) {
      return fail(out, "connect: " + e);
    }
    SequenceListener seq = new SequenceListener(first);
    AtomicLong count = seq.received;
    AtomicReference<String> wrong = seq.wrong;
    CompletableFuture<Void> done = seq.done;
    requester.requestStream(Message.utf8("seq:" + n), Long.MAX_VALUE, seq);
    long seconds = Math.max(120, n / 2_000);
    try {
      done.get(seconds, TimeUnit.SECONDS);
    } catch (Exception e) {
      requester.dispose();
      return fail(out, "stream after " + count.get() + " of " + n + " messages: " + e);
    }
    requester.dispose();
    if (wrong.get() != null) {
      return fail(out, "stream out of order: " + wrong.get());
    }
    if (count.get() != n) {
      return fail(out, "stream " + count.get() + " of " + n + " messages");
    }
    synchronized (out) {
      out.println("PASS stream " + n + " messages in order");
      out.flush();
    }
    return 0;
  }

  private static int fail(PrintStream out, String why) {
    synchronized (out) {
      out.println("FAIL " + why);
      out.flush();
    }
    return 1;
  }
}
