package io.sluice.balancer;

import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.EventExecutor;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.exceptions.ConnectionErrorException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A scripted server for unit tests: its connections are {@link Requester}s whose answers a {@link
 * Script} decides, on an event loop of their own (as real connections: listeners on the loop, a
 * refusal while handing over reported synchronously).
 */
final class FakeServer {
  /** What a connection does with one request; runs on its loop. Owns {@code request}. */
  interface Script {
    void run(String kind, Message request, StreamListener listener, FakeServer server);
  }

  static final EventExecutor LOOP = new DefaultEventExecutor();

  final SocketAddress address;
  final AtomicInteger calls = new AtomicInteger();
  final AtomicInteger connects = new AtomicInteger();
  final AtomicInteger pushes = new AtomicInteger();
  /** The stream handle of every stream the server's connections opened, in order. */
  final List<Handle> handles = new CopyOnWriteArrayList<>();
  volatile Script script;
  volatile double availability = 1.0;
  volatile int maxRank = Integer.MAX_VALUE;
  volatile Connection last;
  /** Connections close gracefully only when told ({@link Connection#closed}): streams live on. */
  volatile boolean holdClose;
  /** Each connection closes cleanly at once after connecting (a server at its connection cap). */
  volatile boolean closeAtOnce;

  FakeServer(int port, Script script) {
    this.address = InetSocketAddress.createUnresolved("fake", port);
    this.script = script;
  }

  /** The answer "name" for a request-response. */
  static Script answering(String name) {
    return (kind, request, listener, server) -> {
      request.release();
      if (kind.equals("fnf")) {
        listener.onComplete();
        return;
      }
      listener.onNext(Message.utf8(name));
      listener.onComplete();
    };
  }

  CompletableFuture<Requester> connect() {
    connects.incrementAndGet();
    Connection c = new Connection();
    last = c;
    if (closeAtOnce) { // connected, then closed by the server: both reported from the loop
      CompletableFuture<Requester> f = new CompletableFuture<>();
      LOOP.execute(
          () -> {
            f.complete(c);
            c.open = false;
            c.closed.complete(null);
          });
      return f;
    }
    return CompletableFuture.completedFuture(c);
  }

  /** One connection to this server. */
  final class Connection implements Requester {
    final CompletableFuture<Void> closed = new CompletableFuture<>();
    volatile boolean open = true;
    volatile boolean disposed;

    private StreamHandle run(String kind, Message request, long n, StreamListener listener) {
      calls.incrementAndGet();
      if (!open) { // refused while handing over: reported at once, as the engine does
        request.release();
        listener.onError(ConnectionErrorException.notSent("connection closed"));
        return Handles.NOOP;
      }
      Handle h = new Handle(kind, n);
      if (!kind.equals("fnf")) {
        handles.add(h);
      }
      script.run(kind, request, listener, FakeServer.this);
      return h;
    }

    @Override
    public void fireAndForget(Message request, StreamListener listener) {
      run("fnf", request, 0, listener);
    }

    @Override
    public StreamHandle requestResponse(Message request, StreamListener listener) {
      return run("rr", request, 1, listener);
    }

    @Override
    public StreamHandle requestStream(Message request, long n, StreamListener listener) {
      return run("stream", request, n, listener);
    }

    @Override
    public StreamHandle requestChannel(
        Message first, boolean complete, long n, StreamListener listener) {
      return run("channel", first, n, listener);
    }

    @Override
    public void metadataPush(Message metadata, StreamListener listener) {
      pushes.incrementAndGet();
      metadata.release();
      listener.onComplete();
    }

    @Override
    public double availability() {
      return open ? availability : 0;
    }

    @Override
    public double availability(int rank) {
      return rank > maxRank ? 0 : availability();
    }

    @Override
    public ByteBufAllocator alloc() {
      return ByteBufAllocator.DEFAULT;
    }

    @Override
    public Executor executor() {
      return LOOP;
    }

    @Override
    public boolean isOpen() {
      return open;
    }

    @Override
    public void close() {
      open = false;
      if (!holdClose) {
        closed.complete(null);
      }
    }

    @Override
    public void dispose() {
      disposed = true;
      open = false;
      closed.complete(null);
    }

    /** The server starts a graceful close (CONNECTION_CLOSE): no new requests. */
    void startClosing() {
      open = false;
    }

    /** The connection fails: closed with an error. */
    void fail() {
      open = false;
      closed.completeExceptionally(new ConnectionErrorException("connection lost"));
    }

    @Override
    public CompletableFuture<Void> onClose() {
      return closed;
    }
  }

  /** A stream's handle that records what the caller sent it: demand, cancel, error, complete. */
  static final class Handle implements StreamHandle {
    final String kind;
    volatile String tag; // for the test's own use
    final AtomicLong demand = new AtomicLong(); // the initial n plus every request(n)
    volatile boolean canceled;
    volatile Throwable error;
    volatile boolean completed;

    Handle(String kind, long initialN) {
      this.kind = kind;
      demand.set(initialN);
    }

    /** The caller ended the stream: canceled it or failed it. */
    boolean ended() {
      return canceled || error != null;
    }

    @Override
    public void request(long n) {
      demand.addAndGet(n);
    }

    @Override
    public void cancel() {
      canceled = true;
    }

    @Override
    public void next(Message message) {
      message.release();
    }

    @Override
    public void complete() {
      completed = true;
    }

    @Override
    public void error(Throwable cause) {
      error = cause;
    }

    @Override
    public Executor executor() {
      return LOOP;
    }

    @Override
    public ByteBufAllocator alloc() {
      return ByteBufAllocator.DEFAULT;
    }
  }

  /** Stream handles that ignore everything. */
  static final class Handles implements StreamHandle {
    static final Handles NOOP = new Handles();

    @Override
    public void request(long n) {}

    @Override
    public void cancel() {}

    @Override
    public void next(Message message) {
      message.release();
    }

    @Override
    public void complete() {}

    @Override
    public void error(Throwable cause) {}

    @Override
    public Executor executor() {
      return LOOP;
    }

    @Override
    public ByteBufAllocator alloc() {
      return ByteBufAllocator.DEFAULT;
    }
  }
}
