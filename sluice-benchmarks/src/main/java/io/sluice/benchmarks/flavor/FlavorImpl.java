package io.sluice.benchmarks.flavor;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.benchmarks.harness.Counter;
import io.sluice.benchmarks.harness.Impl;
import io.sluice.benchmarks.harness.Spec;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import io.sluice.transport.netty.internal.EventLoops;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * What every flavor impl shares: the payload, the TCP transports (one event loop per side, as in
 * {@code SluiceImpl}), the stream-length convention and the closed loops that keep a window of
 * operations outstanding. The flavor-specific part of each loop is an {@link Op}: the few lines a
 * user of that flavor writes to issue one call and react to its end.
 *
 * <p>Semantics match {@code SluiceImpl}: the server answers every request-response with one
 * payload, a request-stream whose request data is the single byte {@link Spec#STREAM24} with
 * {@code 24} payloads (otherwise with an unending stream paced by demand), echoes every channel
 * message (the first included) and counts fire-and-forget messages.
 */
public abstract class FlavorImpl implements Impl, AutoCloseable {
  protected static final String SERVER_LOOP = "sluice-server-loop";
  private static final ByteBuf STREAM24_REQUEST =
      Unpooled.unreleasableBuffer(Unpooled.directBuffer(1).writeByte(Spec.STREAM24));

  private final Deque<AutoCloseable> resources = new ArrayDeque<>();
  private volatile boolean closing;

  @Override
  public String serverLoopPrefix() {
    return SERVER_LOOP;
  }

  /**
   * One immutable buffer shared by every message, as in {@code SluiceImpl}; released by {@link
   * #close()}.
   */
  protected ByteBuf payload(int size) {
    ByteBuf owner = Unpooled.directBuffer(size).writeZero(size);
    closeLater(owner::release);
    return Unpooled.unreleasableBuffer(owner);
  }

  protected TcpServerTransport serverTransport() {
    return TcpServerTransport.create("127.0.0.1", 0).withEventLoopGroup(group(SERVER_LOOP));
  }

  protected TcpClientTransport clientTransport(int port) {
    return TcpClientTransport.create("127.0.0.1", port).withEventLoopGroup(group("sluice-client-loop"));
  }

  private EventLoopGroup group(String name) {
    EventLoopGroup g = EventLoops.newGroup(1, name);
    closeLater(() -> g.shutdownGracefully(0, 2, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS));
    return g;
  }

  /** Notes the bound server for {@link #close()}; returns its port. */
  protected int port(ServerTransport.Bound bound) {
    closeLater(bound::close);
    return ((InetSocketAddress) bound.address()).getPort();
  }

  /** Notes a client connection for {@link #close()}; returns it. */
  protected Requester connected(Requester requester) {
    closeLater(requester::dispose);
    return requester;
  }

  private void closeLater(AutoCloseable resource) {
    synchronized (resources) {
      resources.push(resource);
    }
  }

  /**
   * Stops the loops, then closes what this instance opened, newest first (client connections, then
   * their event loops, then servers). The child processes never call it (they end with their
   * process); it is for running an impl inside another JVM.
   */
  @Override
  public void close() throws Exception {
    closing = true;
    while (true) {
      AutoCloseable r;
      synchronized (resources) {
        r = resources.poll();
      }
      if (r == null) {
        return;
      }
      r.close();
    }
  }

  /** The request of a latency-mode stream of {@link Spec#STREAM24} messages. */
  protected static Message stream24Request() {
    return Message.of(STREAM24_REQUEST);
  }

  /** How many messages a request-stream asks for; releases the request. */
  protected static long streamLength(Message request) {
    ByteBuf d = request.data();
    long n =
        d.readableBytes() == 1 && d.getByte(d.readerIndex()) == Spec.STREAM24
            ? Spec.STREAM24
            : Long.MAX_VALUE;
    request.release();
    return n;
  }

  /** One call of a flavor: starts it; {@code done} runs (on the event loop) when it succeeds. */
  @FunctionalInterface
  protected interface Op {
    void start(Runnable done);
  }

  /** Keeps {@code window} operations outstanding, each completion starting the next. */
  protected void closedLoop(Executor loop, int window, Op op) {
    Runnable again =
        new Runnable() {
          @Override
          public void run() {
            if (!closing) {
              op.start(this);
            }
          }
        };
    loop.execute(
        () -> {
          for (int i = 0; i < window; i++) {
            again.run();
          }
        });
  }

  /** Latency mode: {@code concurrency} operations, each timed from start to completion. */
  protected void timedLoop(Executor loop, int concurrency, Op op, LatencySink sink) {
    loop.execute(
        () -> {
          for (int i = 0; i < concurrency; i++) {
            new Timed(op, sink).run();
          }
        });
  }

  private final class Timed implements Runnable {
    private final Op op;
    private final LatencySink sink;
    private final Runnable finished = this::finished;
    private long started;

    Timed(Op op, LatencySink sink) {
      this.op = op;
      this.sink = sink;
    }

    @Override
    public void run() {
      if (closing) {
        return;
      }
      started = System.nanoTime();
      op.start(finished);
    }

    private void finished() {
      sink.record(System.nanoTime() - started);
      run();
    }
  }

  /**
   * Fire-and-forget with at most {@code window} sends not yet handed to the transport (as {@code
   * SluiceImpl}'s loop): sends until the window is full, then yields the event loop and goes on.
   */
  protected void fnfLoop(Executor loop, int window, Op send) {
    new FnfPump(loop, window, send).schedule();
  }

  private final class FnfPump implements Runnable {
    private final Executor loop;
    private final int window;
    private final Op send;
    private int outstanding;
    private final Runnable sent = () -> outstanding--;

    FnfPump(Executor loop, int window, Op send) {
      this.loop = loop;
      this.window = window;
      this.send = send;
    }

    void schedule() {
      loop.execute(this);
    }

    @Override
    public void run() {
      if (closing) {
        return;
      }
      int n = 0;
      while (outstanding < window && n < window) {
        outstanding++;
        n++;
        send.start(sent);
      }
      schedule();
    }
  }

  /** Counts and releases one received message; on the event loop. */
  protected static void count(Message m, Counter received) {
    m.release();
    received.increment();
  }

  protected static void failed(String what, Throwable cause) {
    System.err.println(what + " failed: " + cause);
  }
}
