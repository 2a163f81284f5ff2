package io.sluice.interop.peer;

import io.netty.buffer.ByteBuf;
import io.rsocket.DuplexConnection;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.exceptions.ApplicationErrorException;
import io.rsocket.plugins.DuplexConnectionInterceptor;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.transport.netty.client.WebsocketClientTransport;
import io.rsocket.util.DefaultPayload;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.reactivestreams.Subscription;
import reactor.core.Exceptions;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;

/**
 * The {@code client} mode: connects with rsocket-java and runs every case of the echo contract
 * (see {@link EchoResponder}) against the server, printing {@code PASS <case>} or {@code FAIL
 * <case>: <reason>} per case and a final {@code <n> passed, <m> failed} line.
 *
 * <p>Every wait is bounded: each reactive wait uses {@link #TIMEOUT}, and each case additionally
 * runs under a watchdog, so the client cannot hang on a misbehaving server.
 */
final class ConformanceClient {

  /** Bound of every individual wait inside a case. */
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  /** Extra slack of the per-case watchdog on top of the case's own budget. */
  private static final Duration WATCHDOG_SLACK = Duration.ofSeconds(5);

  /** How long a request-n window is observed for items beyond the granted credit. */
  private static final Duration SETTLE = Duration.ofMillis(300);

  private static final int LARGE_SIZE = 1024 * 1024;

  private static final int FRAME_TYPE_SHIFT = 10;
  private static final int LEASE_FRAME_TYPE = 0x02;
  private static final int KEEPALIVE_FRAME_TYPE = 0x03;
  private static final int KEEPALIVE_RESPOND_FLAG = 0x80;

  private final String host;
  private final int port;
  private final int mtu;
  private final boolean lease;
  private final long keepAliveMs;

  /** LEASE frames received from the server. */
  private final AtomicInteger leaseFrames = new AtomicInteger();

  /** KEEPALIVE frames without the R flag (i.e. answers to ours) received from the server. */
  private final AtomicInteger keepAliveAnswers = new AtomicInteger();

  private final ExecutorService watchdog =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "conformance-case");
            t.setDaemon(true);
            return t;
          });

  private RSocket rsocket;
  private int passed;
  private int failed;

  /** Connect with rsocket-java's WebSocket transport (path /) instead of TCP. */
  private final boolean webSocket;

  ConformanceClient(
      String host, int port, int mtu, boolean lease, long keepAliveMs, boolean webSocket) {
    this.webSocket = webSocket;
    this.host = host;
    this.port = port;
    this.mtu = mtu;
    this.lease = lease;
    this.keepAliveMs = keepAliveMs;
  }

  /** Runs all cases, printing results to {@code out}; returns the process exit status. */
  int run(PrintStream out) {
    // A request abandoned by a timed-out case may still fail later (e.g. when the connection
    // dies); that case has already been reported, so don't let Reactor dump the stack trace.
    Hooks.onErrorDropped(error -> {});
    try {
      rsocket = connect();
    } catch (Throwable t) {
      out.println("FAIL connect: " + reason(t));
      out.println("0 passed, 1 failed");
      out.flush();
      return 1;
    }
    try {
      runCase(out, "request-response", TIMEOUT, this::requestResponse);
      runCase(out, "request-response-metadata", TIMEOUT, this::requestResponseMetadata);
      runCase(out, "request-response-error", TIMEOUT, this::requestResponseError);
      runCase(out, "fire-and-forget", TIMEOUT, this::fireAndForget);
      runCase(out, "metadata-push", TIMEOUT, this::metadataPush);
      runCase(out, "request-stream", TIMEOUT, this::requestStream);
      runCase(out, "request-stream-many", TIMEOUT, this::requestStreamMany);
      runCase(out, "request-n-window", TIMEOUT.multipliedBy(3), this::requestNWindow);
      runCase(out, "cancel-mid-stream", TIMEOUT.multipliedBy(2), this::cancelMidStream);
      runCase(out, "request-channel", TIMEOUT, this::requestChannel);
      runCase(out, "large-request", TIMEOUT, this::largeRequest);
      runCase(out, "large-response", TIMEOUT, this::largeResponse);
      if (lease) {
        runCase(out, "lease", TIMEOUT, this::leaseReceived);
      }
      if (keepAliveMs > 0) {
        Duration budget = Duration.ofMillis(keepAliveMs * 7 / 2).plus(TIMEOUT);
        runCase(out, "keepalive", budget, this::keepAlive);
      }
    } finally {
      rsocket.dispose();
      watchdog.shutdownNow();
    }
    out.println(passed + " passed, " + failed + " failed");
    out.flush();
    return failed == 0 ? 0 : 1;
  }

  private RSocket connect() {
    RSocketConnector connector =
        RSocketConnector.create()
            // Observe inbound frames on the raw connection (LEASE / KEEPALIVE accounting).
            .interceptors(registry -> registry.forConnection(this::tapInbound));
    if (mtu > 0) {
      connector.fragment(mtu);
    }
    if (keepAliveMs > 0) {
      Duration interval = Duration.ofMillis(keepAliveMs);
      Duration maxLifetime = Duration.ofSeconds(90).plus(interval.multipliedBy(10));
      connector.keepAlive(interval, maxLifetime);
    }
    if (lease) {
      // The requester waits for the server's LEASE; our responder leases the server in turn.
      connector.lease(spec -> spec.sender(Leases.generous()));
    }
    RSocket socket =
        connector
            .connect(
                webSocket
                    ? WebsocketClientTransport.create(host, port)
                    : TcpClientTransport.create(host, port))
            .block(TIMEOUT);
    if (socket == null) {
      throw new IllegalStateException("connect returned nothing");
    }
    return socket;
  }

  private DuplexConnection tapInbound(
      DuplexConnectionInterceptor.Type type, DuplexConnection connection) {
    if (type != DuplexConnectionInterceptor.Type.SOURCE) {
      return connection;
    }
    return new ForwardingConnection(connection, connection.receive().doOnNext(this::observe));
  }

  private void observe(ByteBuf frame) {
    if (frame.readableBytes() < 6 || frame.getInt(frame.readerIndex()) != 0) {
      return;
    }
    int typeAndFlags = frame.getUnsignedShort(frame.readerIndex() + 4);
    int frameType = typeAndFlags >>> FRAME_TYPE_SHIFT;
    if (frameType == LEASE_FRAME_TYPE) {
      leaseFrames.incrementAndGet();
    } else if (frameType == KEEPALIVE_FRAME_TYPE && (typeAndFlags & KEEPALIVE_RESPOND_FLAG) == 0) {
      keepAliveAnswers.incrementAndGet();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Cases

  private void requestResponse() {
    Payload answer = requestResponse(Payloads.text("hello"));
    expectEquals("data", "echo:hello", answer.getDataUtf8());
    expect(!answer.hasMetadata(), "unexpected metadata '" + metadataText(answer) + "'");
  }

  private void requestResponseMetadata() {
    Payload answer =
        requestResponse(DefaultPayload.create(Payloads.utf8("hello"), Payloads.utf8("meta-1")));
    expectEquals("data", "echo:hello", answer.getDataUtf8());
    expect(answer.hasMetadata(), "metadata missing from the answer");
    expectEquals("metadata", "meta-1", answer.getMetadataUtf8());
  }

  private void requestResponseError() {
    try {
      Payload answer = requestResponse(Payloads.text("error"));
      throw new CheckFailed("expected an error, got data '" + answer.getDataUtf8() + "'");
    } catch (ApplicationErrorException e) {
      expectEquals("error message", "boom", e.getMessage());
    }
  }

  private void fireAndForget() {
    rsocket.fireAndForget(Payloads.text("hello-fnf")).block(TIMEOUT);
    awaitStats(stats -> stats.startsWith("fnf=hello-fnf;"), "fnf=hello-fnf");
  }

  private void metadataPush() {
    rsocket
        .metadataPush(DefaultPayload.create(new byte[0], Payloads.utf8("hello-mp")))
        .block(TIMEOUT);
    awaitStats(stats -> stats.endsWith(";mp=hello-mp"), "mp=hello-mp");
  }

  private void requestStream() {
    List<String> items = collect(rsocket.requestStream(Payloads.text("abc")));
    expectEquals("items", expectedItems("abc", EchoResponder.STREAM_ITEMS), items);
  }

  private void requestStreamMany() {
    List<String> items = collect(rsocket.requestStream(Payloads.text("many")));
    expectItems(items, "many", EchoResponder.MANY_ITEMS);
  }

  private void requestNWindow() throws Exception {
    WindowSubscriber subscriber = new WindowSubscriber();
    rsocket.requestStream(Payloads.text("many")).subscribe(subscriber);
    try {
      awaitWindow(subscriber, 1);
      subscriber.request(3);
      awaitWindow(subscriber, 4);
      subscriber.request(Long.MAX_VALUE);
      subscriber.done.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      expectItems(subscriber.snapshot(), "many", EchoResponder.MANY_ITEMS);
    } finally {
      subscriber.dispose();
    }
  }

  private void cancelMidStream() {
    List<String> items = collect(rsocket.requestStream(Payloads.text("many")).take(10));
    expectItems(items, "many", 10);
    Payload answer = requestResponse(Payloads.text("after-cancel"));
    expectEquals("data after cancel", "echo:after-cancel", answer.getDataUtf8());
  }

  private void requestChannel() {
    Flux<Payload> outbound = Flux.just("a", "b", "c").map(Payloads::text);
    List<String> items = collect(rsocket.requestChannel(outbound));
    expectEquals("items", List.of("echo:a", "echo:b", "echo:c"), items);
  }

  private void largeRequest() {
    byte[] data = Payloads.pattern(LARGE_SIZE);
    Payload answer = requestResponse(DefaultPayload.create(data));
    expectEquals(
        "data", "len:" + LARGE_SIZE + ":" + Payloads.checksum(data), answer.getDataUtf8());
  }

  private void largeResponse() {
    Payload answer = requestResponse(Payloads.text("big:" + LARGE_SIZE));
    byte[] data = Payloads.data(answer);
    expectEquals("length", LARGE_SIZE, data.length);
    byte[] expected = Payloads.pattern(LARGE_SIZE);
    if (!Arrays.equals(expected, data)) {
      throw new CheckFailed("content differs at byte " + Arrays.mismatch(expected, data));
    }
  }

  private void leaseReceived() {
    // Requests above already ran, which needs a lease; check the LEASE frame arrived as such.
    expect(leaseFrames.get() > 0, "no LEASE frame received from the server");
    Payload answer = requestResponse(Payloads.text("leased"));
    expectEquals("data", "echo:leased", answer.getDataUtf8());
  }

  private void keepAlive() throws InterruptedException {
    int answersBefore = keepAliveAnswers.get();
    Thread.sleep(keepAliveMs * 7 / 2);
    int answers = keepAliveAnswers.get() - answersBefore;
    // Three KEEPALIVE(R) ticks fall into 3.5 intervals; allow one to be in flight.
    expect(answers >= 2, "only " + answers + " KEEPALIVE answers in 3.5 intervals");
    Payload answer = requestResponse(Payloads.text("still-alive"));
    expectEquals("data", "echo:still-alive", answer.getDataUtf8());
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers

  @FunctionalInterface
  private interface Case {
    void run() throws Exception;
  }

  /** A failed expectation; its message is the whole FAIL reason. */
  private static final class CheckFailed extends RuntimeException {
    CheckFailed(String message) {
      super(message);
    }
  }

  /** Requests one item first, then exactly what the test asks for. */
  private static final class WindowSubscriber extends BaseSubscriber<Payload> {
    private final List<String> items = Collections.synchronizedList(new ArrayList<>());
    final CompletableFuture<Void> done = new CompletableFuture<>();

    @Override
    protected void hookOnSubscribe(Subscription subscription) {
      request(1);
    }

    @Override
    protected void hookOnNext(Payload payload) {
      try {
        items.add(payload.getDataUtf8());
      } finally {
        payload.release();
      }
    }

    @Override
    protected void hookOnComplete() {
      done.complete(null);
    }

    @Override
    protected void hookOnError(Throwable throwable) {
      done.completeExceptionally(throwable);
    }

    int count() {
      return items.size();
    }

    List<String> snapshot() {
      synchronized (items) {
        return new ArrayList<>(items);
      }
    }
  }

  private void runCase(PrintStream out, String name, Duration budget, Case body) {
    Future<?> future =
        watchdog.submit(
            () -> {
              body.run();
              return null;
            });
    String failure = null;
    try {
      future.get(budget.plus(WATCHDOG_SLACK).toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      future.cancel(true);
      failure = "timed out";
    } catch (ExecutionException e) {
      failure = reason(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failure = "interrupted";
    }
    if (failure == null) {
      passed++;
      out.println("PASS " + name);
    } else {
      failed++;
      out.println("FAIL " + name + ": " + failure);
    }
    out.flush();
  }

  private Payload requestResponse(Payload request) {
    Payload answer = rsocket.requestResponse(request).block(TIMEOUT);
    if (answer == null) {
      throw new CheckFailed("request-response completed without a payload");
    }
    return answer;
  }

  private static List<String> collect(Flux<Payload> items) {
    List<String> list =
        items
            .map(
                payload -> {
                  try {
                    return payload.getDataUtf8();
                  } finally {
                    payload.release();
                  }
                })
            .collectList()
            .block(TIMEOUT);
    if (list == null) {
      throw new CheckFailed("stream produced no result");
    }
    return list;
  }

  /** Polls {@code stats} until {@code matches} holds, within {@link #TIMEOUT}. */
  private void awaitStats(Predicate<String> matches, String wanted) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    String stats = "";
    while (System.nanoTime() < deadline) {
      stats = requestResponse(Payloads.text("stats")).getDataUtf8();
      if (matches.test(stats)) {
        return;
      }
      sleep(50);
    }
    throw new CheckFailed("stats never showed " + wanted + ", last was '" + stats + "'");
  }

  /** Waits until {@code expected} items arrived, then checks no more arrive without demand. */
  private static void awaitWindow(WindowSubscriber subscriber, int expected) {
    awaitCondition(
        () -> subscriber.count() >= expected || subscriber.done.isDone(),
        "waiting for " + expected + " item(s), got " + subscriber.count());
    sleep(SETTLE.toMillis());
    int count = subscriber.count();
    if (count != expected) {
      throw new CheckFailed(
          "after requesting " + expected + " in total, received " + count + " item(s)");
    }
  }

  private static void awaitCondition(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() >= deadline) {
        throw new CheckFailed("timed out " + what);
      }
      sleep(5);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CheckFailed("interrupted");
    }
  }

  private static List<String> expectedItems(String prefix, int count) {
    List<String> items = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      items.add(prefix + "-" + i);
    }
    return items;
  }

  /** Checks {@code items} is exactly prefix-0 … prefix-(count-1), reporting the first mismatch. */
  private static void expectItems(List<String> items, String prefix, int count) {
    List<String> expected = expectedItems(prefix, count);
    for (int i = 0; i < Math.min(items.size(), count); i++) {
      if (!expected.get(i).equals(items.get(i))) {
        throw new CheckFailed(
            "item " + i + ": expected '" + expected.get(i) + "', got '" + items.get(i) + "'");
      }
    }
    expectEquals("item count", count, items.size());
  }

  private static void expect(boolean condition, String message) {
    if (!condition) {
      throw new CheckFailed(message);
    }
  }

  private static void expectEquals(String what, Object expected, Object actual) {
    if (!expected.equals(actual)) {
      throw new CheckFailed(what + ": expected " + quote(expected) + ", got " + quote(actual));
    }
  }

  private static String quote(Object value) {
    String text = String.valueOf(value);
    if (text.length() > 200) {
      text = text.substring(0, 200) + "…(" + text.length() + " chars)";
    }
    return value instanceof String ? "'" + text + "'" : text;
  }

  private static String metadataText(Payload payload) {
    return payload.hasMetadata() ? payload.getMetadataUtf8() : "";
  }

  /** A one-line description of {@code t} for a FAIL line. */
  static String reason(Throwable failure) {
    // block() wraps checked exceptions (e.g. a refused connection) in a ReactiveException.
    Throwable t = failure == null ? null : Exceptions.unwrap(failure);
    if (t == null) {
      return "unknown error";
    }
    String message = t.getMessage() == null ? "" : t.getMessage();
    String text = t instanceof CheckFailed ? message : t.getClass().getSimpleName() + ": " + message;
    return text.replaceAll("\\s+", " ").trim();
  }
}
