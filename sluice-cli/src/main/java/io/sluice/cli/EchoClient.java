package io.sluice.cli;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.core.ConnectionOptions;
import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FramePrefix;
import io.sluice.transport.FrameReceiver;
import io.netty.util.concurrent.EventExecutor;
import java.io.PrintStream;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;

/**
 * Exercises every case of the echo contract ({@link EchoResponder}) against any server that
 * implements it, printing {@code PASS name} or {@code FAIL name: reason} per case ({@code SKIP name: reason} for
 * a case the transport cannot carry) and a closing
 * {@code N passed, N failed}. Every wait is bounded, so it cannot hang.
 */
public final class EchoClient {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  /**
   * With {@code --keepalive-ms K} the client's keepalive max lifetime is this many intervals: a
   * server that answers no KEEPALIVE loses the connection after 10 K without a frame. Ten, not
   * three: at K = 300 ms three intervals are 900 ms, which a peer JVM on a loaded 2-core CI machine
   * can spend without answering (a GC, a compile), and the case would fail a healthy server.
   */
  public static final int KEEPALIVE_LIFETIME_INTERVALS = 10;

  /** What the client saw arrive on its connection, for the keepalive case. */
  private enum WireEvent {
    KEEPALIVE_ANSWER,
    CLOSED
  }

  private final BlockingQueue<WireEvent> wireEvents = new LinkedBlockingQueue<>();
  private boolean resumable;

  /** Connect with session resumption ({@code --resume}): the echo contract across cuts. */
  void resumable() {
    this.resumable = true;
  }

  private final ClientTransport transport;
  private final ConnectionOptions options;
  private final boolean large;
  private final int keepAliveMillis;
  private final PrintStream out;
  private int passed;
  private int failed;
  private Predicate<String> selected = name -> true;
  /** Cases the transport cannot carry, with the reason printed on their SKIP line. */
  private java.util.Map<String, String> skipped = java.util.Map.of();

  /**
   * Skips the cases named in {@code reasons} (printing {@code SKIP name: reason}, counted neither
   * passed nor failed): those a transport cannot carry, never reported as passed.
   */
  public EchoClient skipping(java.util.Map<String, String> reasons) {
    this.skipped = java.util.Map.copyOf(reasons);
    return this;
  }

  /**
   * @param options the client's connection options; with a positive {@code keepAliveMillis} their
   *     keepalive is replaced by that interval and a max lifetime of {@link
   *     #KEEPALIVE_LIFETIME_INTERVALS} intervals
   * @param large also run the large-payload cases (1 MiB each way; needs the echo extensions)
   * @param keepAliveMillis if positive, send KEEPALIVE at this interval and run the keepalive case:
   *     stay idle until the server has answered {@link #KEEPALIVE_LIFETIME_INTERVALS} + 1
   *     KEEPALIVEs (longer than the lifetime) with the connection still open, then a request
   */
  public EchoClient(
      ClientTransport transport,
      ConnectionOptions options,
      boolean large,
      int keepAliveMillis,
      PrintStream out) {
    this.transport = new Observed(transport, wireEvents);
    this.options =
        keepAliveMillis > 0
            ? options.toBuilder()
                .keepAlive(
                    Duration.ofMillis(keepAliveMillis),
                    Duration.ofMillis((long) KEEPALIVE_LIFETIME_INTERVALS * keepAliveMillis))
                .build()
            : options;
    this.large = large;
    this.keepAliveMillis = keepAliveMillis;
    this.out = out;
  }

  /** Wraps the requester the cases run on: {@link RsocketTracing#call} (identity without traces). */
  private final java.util.function.UnaryOperator<io.sluice.Requester> traced = RsocketTracing::call;

  /** Set by {@link #over}: the requester the cases run on (the caller closes it), or null. */
  private io.sluice.Requester preset;

  /**
   * Runs the cases on {@code requester} (e.g. a balancer over many servers) instead of a
   * connection of its own; the caller closes it. The keepalive case needs a connection of its
   * own and is not run then.
   */
  public EchoClient over(io.sluice.Requester requester) {
    this.preset = Objects.requireNonNull(requester, "requester");
    return this;
  }

  /** Runs all cases; returns the number of failures. */
  public int run() {
    return run(name -> true);
  }

  /** Runs the cases {@code selected} names (the connection is always made); returns the failures. */
  int run(Predicate<String> selected) {
    this.selected = selected;
    ReactorRequester r;
    try {
      ReactorRequester connected =
          preset != null
              ? new ReactorRequester(preset)
              : resumable
                  ? SluiceClient.builder(transport)
                      .options(options)
                      .setup(
                          io.sluice.core.ClientSetup.defaults()
                              .resumable(io.sluice.core.Resumption.defaults()))
                      .connect()
                      .block(TIMEOUT)
                  : SluiceClient.builder(transport).options(options).connect().block(TIMEOUT);
      r = new ReactorRequester(traced.apply(Objects.requireNonNull(connected, "connect").unwrap()));
    } catch (RuntimeException e) {
      fail("connect", e);
      return summary();
    }
    ByteBufAllocator alloc = r.alloc();
    try {
      check("request-response", () -> expect("echo:hello", rr(r, Message.utf8(alloc, "hello"))));
      check(
          "request-response-metadata",
          () -> {
            Message reply =
                r.requestResponse(Message.utf8(alloc, "meta-1", "hello")).block(TIMEOUT);
            try {
              expect("echo:hello", Objects.requireNonNull(reply).dataUtf8());
              expect("meta-1", reply.metadataUtf8());
            } finally {
              reply.release();
            }
          });
      check(
          "request-response-error",
          () -> {
            try {
              Message m = r.requestResponse(Message.utf8(alloc, "error")).block(TIMEOUT);
              if (m != null) {
                m.release();
              }
              throw new AssertionError("expected an error, got a response");
            } catch (ApplicationErrorException e) {
              expect("boom", e.getMessage());
            }
          });
      check(
          "fire-and-forget",
          () -> {
            r.fireAndForget(Message.utf8(alloc, "hello-fnf")).block(TIMEOUT);
            pollStats(r, "fnf=hello-fnf;");
          });
      check(
          "metadata-push",
          () -> {
            r.metadataPush(Message.utf8(alloc, "hello-mp", "")).block(TIMEOUT);
            pollStats(r, ";mp=hello-mp");
          });
      check(
          "request-stream",
          () ->
              expect(
                  List.of("abc-0", "abc-1", "abc-2", "abc-3", "abc-4"),
                  strings(r.requestStream(Message.utf8(alloc, "abc")))));
      check(
          "request-stream-many",
          () -> {
            List<String> got = strings(r.requestStream(Message.utf8(alloc, "many")));
            List<String> want = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
              want.add("many-" + i);
            }
            expect(want, got);
          });
      check("request-n-window", () -> requestNWindow(r));
      check(
          "cancel-mid-stream",
          () -> {
            List<String> got = strings(r.requestStream(Message.utf8(alloc, "many")).take(10));
            List<String> want = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
              want.add("many-" + i);
            }
            expect(want, got);
            expect("echo:after", rr(r, Message.utf8(alloc, "after")));
          });
      check(
          "request-channel",
          () ->
              expect(
                  List.of("echo:a", "echo:b", "echo:c"),
                  strings(
                      r.requestChannel(
                          Flux.just("a", "b", "c").map(s -> Message.utf8(alloc, s))))));
      if (large) {
        check(
            "large-request",
            () -> {
              ByteBuf big = EchoResponder.pattern(alloc, 1 << 20);
              long sum = EchoResponder.checksum(big);
              expect("len:" + (1 << 20) + ":" + sum, rr(r, Message.of(big)));
            });
        check(
            "large-response",
            () -> {
              Message reply = r.requestResponse(Message.utf8(alloc, "big:" + (1 << 20))).block(TIMEOUT);
              try {
                ByteBuf data = Objects.requireNonNull(reply).data();
                expect(1 << 20, data.readableBytes());
                byte[] bytes = io.netty.buffer.ByteBufUtil.getBytes(data);
                for (int i = 0; i < bytes.length; i++) {
                  if ((bytes[i] & 0xFF) != i % 251) {
                    throw new AssertionError("byte " + i + " differs");
                  }
                }
              } finally {
                if (reply != null) {
                  reply.release();
                }
              }
            });
      }
      if (keepAliveMillis > 0 && preset == null) {
        check("keepalive", () -> keepAlive(r));
      }
    } finally {
      if (preset == null) {
        r.dispose();
      }
    }
    return summary();
  }

  /**
   * Idle (no requests) until the server has answered one KEEPALIVE more than the max lifetime
   * spans in intervals, the connection staying open all along: the client sends one KEEPALIVE per
   * interval and checks the lifetime at each, so by then it has judged the server alive past a
   * whole lifetime. A server that never answers fails here, by the client closing the connection
   * at the lifetime (or, at the latest, when the wait runs out). Then one request on the connection.
   */
  private void keepAlive(ReactorRequester r) throws Exception {
    int needed = KEEPALIVE_LIFETIME_INTERVALS + 1;
    long waitMillis = TIMEOUT.toMillis() + (long) keepAliveMillis * (needed + 1);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
    wireEvents.clear(); // answers that came while other cases ran do not count
    int answers = 0;
    while (answers < needed) {
      if (!r.isOpen()) {
        throw new AssertionError(
            "connection closed while idle after " + answers + " KEEPALIVE answers: " + closeCause(r));
      }
      WireEvent e = wireEvents.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (e == null) {
        throw new AssertionError(
            "only " + answers + " KEEPALIVE answers in " + waitMillis + " ms, " + needed + " needed");
      } else if (e == WireEvent.KEEPALIVE_ANSWER) {
        answers++;
      }
    }
    if (!r.isOpen()) {
      throw new AssertionError("connection closed while idle: " + closeCause(r));
    }
    expect("echo:alive", rr(r, Message.utf8(r.alloc(), "alive")));
  }

  /** Why the connection closed, once it has. */
  private static String closeCause(ReactorRequester r) {
    try {
      r.unwrap().onClose().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      return "closed without an error";
    } catch (ExecutionException e) {
      return String.valueOf(e.getCause().getMessage());
    } catch (Exception e) {
      return e.toString();
    }
  }

  private void requestNWindow(ReactorRequester r) throws Exception {
    List<String> got = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    BaseSubscriber<Message> sub =
        new BaseSubscriber<>() {
          @Override
          protected void hookOnSubscribe(Subscription s) {
            // demand is driven from the test thread below
          }

          @Override
          protected void hookOnNext(Message m) {
            got.add(m.dataUtf8());
            m.release();
          }

          @Override
          protected void hookOnComplete() {
            done.complete(null);
          }

          @Override
          protected void hookOnError(Throwable t) {
            done.completeExceptionally(t);
          }
        };
    r.requestStream(Message.utf8(r.alloc(), "many")).subscribe(sub);
    sub.request(1);
    awaitMessages(got, 1, done);
    sleep(100); // give a misbehaving server the chance to send more than granted
    expect(1, got.size());
    sub.request(3);
    awaitMessages(got, 4, done);
    sleep(100);
    expect(4, got.size());
    sub.request(Long.MAX_VALUE);
    done.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    expect(1000, got.size());
    expect("many-999", got.get(999));
  }

  private void pollStats(ReactorRequester r, String fragment) throws Exception {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    String stats = "";
    while (System.nanoTime() < deadline) {
      stats = rr(r, Message.utf8(r.alloc(), "stats"));
      if (stats.contains(fragment)) {
        return;
      }
      sleep(50);
    }
    throw new AssertionError("stats never showed '" + fragment + "', last: " + stats);
  }

  private static String rr(ReactorRequester r, Message m) {
    Message reply = r.requestResponse(m).block(TIMEOUT);
    if (reply == null) {
      throw new AssertionError("empty response");
    }
    try {
      return reply.dataUtf8();
    } finally {
      reply.release();
    }
  }

  private static List<String> strings(Flux<Message> flux) {
    return flux.map(
            m -> {
              try {
                return m.dataUtf8();
              } finally {
                m.release();
              }
            })
        .collectList()
        .block(TIMEOUT);
  }

  private static void expect(Object want, Object got) {
    if (!Objects.equals(want, got)) {
      String w = String.valueOf(want);
      String g = String.valueOf(got);
      throw new AssertionError(
          "expected " + abbreviate(w) + " but got " + abbreviate(g));
    }
  }

  private static String abbreviate(String s) {
    return s.length() > 200 ? s.substring(0, 200) + "…(" + s.length() + " chars)" : s;
  }

  /**
   * Waits until {@code got} holds {@code n} messages; fails at once, saying how, when the stream
   * ended ({@code done}) before them: a server that answers with an error or too few messages
   * fails the case without waiting for the timeout.
   */
  private static void awaitMessages(List<String> got, int n, CompletableFuture<Void> done)
      throws Exception {
    waitFor(() -> got.size() >= n || done.isDone());
    if (got.size() < n) {
      String how;
      try {
        done.getNow(null);
        how = "completed";
      } catch (java.util.concurrent.CompletionException e) {
        how = "failed (" + e.getCause().getMessage() + ")";
      }
      throw new AssertionError("the stream " + how + " after " + got.size() + " of " + n + " messages");
    }
  }

  private static void waitFor(java.util.function.BooleanSupplier condition) throws Exception {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting");
      }
      Thread.sleep(5);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted");
    }
  }

  interface Case {
    void run() throws Exception;
  }

  private void check(String name, Case c) {
    if (!selected.test(name)) {
      return;
    }
    String skip = skipped.get(name);
    if (skip != null) {
      out.println("SKIP " + name + ": " + skip);
      out.flush();
      return;
    }
    try {
      c.run();
      passed++;
      out.println("PASS " + name);
    } catch (Throwable t) {
      fail(name, t);
    }
    out.flush();
  }

  private void fail(String name, Throwable t) {
    failed++;
    String reason = t.getMessage() != null ? t.getMessage() : t.toString();
    out.println("FAIL " + name + ": " + reason.replace('\n', ' '));
  }

  private int summary() {
    out.println(passed + " passed, " + failed + " failed");
    out.flush();
    return failed;
  }

  /**
   * The client transport with its connection's inbound frames watched: reports each KEEPALIVE
   * without the respond flag (the server's answer) and the connection's end to {@code events}.
   */
  private static final class Observed implements ClientTransport {
    private final ClientTransport delegate;
    private final BlockingQueue<WireEvent> events;

    Observed(ClientTransport delegate, BlockingQueue<WireEvent> events) {
      this.delegate = delegate;
      this.events = events;
    }

    @Override
    public CompletableFuture<DuplexTransport> connect() {
      return delegate.connect().thenApply(ObservedConnection::new);
    }

    private final class ObservedConnection implements DuplexTransport {
      private final DuplexTransport d;

      ObservedConnection(DuplexTransport d) {
        this.d = d;
      }

      @Override
      public Framing framing() {
        return d.framing();
      }

      @Override
      public FramePrefix framePrefix() {
        return d.framePrefix();
      }

      @Override
      public EventExecutor executor() {
        return d.executor();
      }

      @Override
      public ByteBufAllocator alloc() {
        return d.alloc();
      }

      @Override
      public void start(FrameReceiver receiver) {
        d.start(new ObservedReceiver(receiver));
      }

      @Override
      public void write(ByteBuf buf) {
        d.write(buf);
      }

      @Override
      public void flush() {
        d.flush();
      }

      @Override
      public boolean isWritable() {
        return d.isWritable();
      }

      @Override
      public long outboundProgress() {
        return d.outboundProgress();
      }

      @Override
      public long unsentBytes() {
        return d.unsentBytes();
      }

      @Override
      public void setReadEnabled(boolean enabled) {
        d.setReadEnabled(enabled);
      }

      @Override
      public void close() {
        d.close();
      }

      @Override
      public SocketAddress remoteAddress() {
        return d.remoteAddress();
      }
    }

    private final class ObservedReceiver implements FrameReceiver {
      private static final int KEEPALIVE = 0x03;
      private static final int FLAG_RESPOND = 0x80;
      private final FrameReceiver r;

      ObservedReceiver(FrameReceiver r) {
        this.r = r;
      }

      @Override
      public int maxFrameSize() {
        return r.maxFrameSize();
      }

      @Override
      public int maxQueuedOutboundBytes() {
        return r.maxQueuedOutboundBytes();
      }

      @Override
      public void onFrame(ByteBuf frame) {
        // Header: stream id (u32), then type (6 bits) and flags (10 bits).
        if (frame.readableBytes() >= 6) {
          int typeAndFlags = frame.getUnsignedShort(frame.readerIndex() + 4);
          if (typeAndFlags >>> 10 == KEEPALIVE && (typeAndFlags & FLAG_RESPOND) == 0) {
            events.add(WireEvent.KEEPALIVE_ANSWER);
          }
        }
        r.onFrame(frame);
      }

      @Override
      public void onReadComplete() {
        r.onReadComplete();
      }

      @Override
      public void onWritabilityChanged(boolean writable) {
        r.onWritabilityChanged(writable);
      }

      @Override
      public void onTransportError(Throwable cause) {
        r.onTransportError(cause);
      }

      @Override
      public void onClosed() {
        r.onClosed();
        events.add(WireEvent.CLOSED);
      }
    }
  }
}
