package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.exceptions.SluiceException;
import io.sluice.internal.frame.FrameType;
import io.sluice.test.ManualClockLoop;
import io.sluice.transport.DuplexTransport.Framing;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Runs one {@link SluiceConnection} over a {@link FakeTransport} on its own event loop; the test
 * plays the peer with raw frames.
 */
abstract class EngineTestBase {
  SingleThreadEventExecutor loop;
  FakeTransport transport;
  SluiceConnection conn;

  @BeforeEach
  void startLoop() {
    loop = newLoop();
  }

  /** The connection's event loop; a test of timers returns a {@link ManualClockLoop}. */
  SingleThreadEventExecutor newLoop() {
    return new DefaultEventExecutor();
  }

  /** The loop's clock, for a test whose {@link #newLoop} is a {@link ManualClockLoop}. */
  ManualClockLoop clock() {
    return (ManualClockLoop) loop;
  }

  @AfterEach
  void stopLoop() throws Exception {
    try {
      if (conn != null) {
        Loop.run(loop, () -> conn.dispose());
        Loop.settle(loop);
      }
      if (transport != null) {
        transport.sent.clear();
      }
    } finally {
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }
  }

  static ConnectionOptions.Builder opts() {
    return ConnectionOptions.builder();
  }

  // ---- server side ------------------------------------------------------------------------------

  /** A server engine waiting for SETUP. */
  SluiceConnection server(ConnectionOptions options, Responder responder) {
    return server(options, responder, Framing.FRAME_PER_WRITE);
  }

  SluiceConnection server(ConnectionOptions options, Responder responder, Framing framing) {
    transport = new FakeTransport(loop, framing);
    conn =
        Loop.call(
            loop, () -> SluiceConnection.server(transport, options, (setup, req) -> responder));
    return conn;
  }

  /** A server engine that has accepted a SETUP (20 s / 90 s keepalive). */
  SluiceConnection acceptedServer(ConnectionOptions options, Responder responder) {
    server(options, responder);
    transport.inject(Wire.setup());
    transport.assertNothingSent();
    return conn;
  }

  // ---- client side ------------------------------------------------------------------------------

  /** A client engine; its SETUP is taken off the wire and returned. */
  Wire.Sent client(ConnectionOptions options, Function<Requester, Responder> responder) {
    return client(options, responder, Framing.FRAME_PER_WRITE);
  }

  Wire.Sent client(
      ConnectionOptions options, Function<Requester, Responder> responder, Framing framing) {
    transport = new FakeTransport(loop, framing);
    conn =
        Loop.call(
            loop,
            () -> SluiceConnection.client(transport, options, ClientSetup.defaults(), responder));
    return transport.next(FrameType.SETUP);
  }

  Wire.Sent client(ConnectionOptions options) {
    return client(options, r -> new Responder() {});
  }

  // ---- listeners --------------------------------------------------------------------------------

  /** One signal a {@link Recorder} saw. */
  record Ev(String kind, String data, String metadata, long n, Throwable error) {
    int code() {
      return error instanceof SluiceException ? ((SluiceException) error).errorCode() : -1;
    }

    @Override
    public String toString() {
      switch (kind) {
        case "next":
          return "next(" + (metadata == null ? "" : metadata + "|") + data + ")";
        case "request":
          return "request(" + n + ")";
        case "error":
          return "error(" + error + ")";
        default:
          return kind;
      }
    }
  }

  /** Records every signal; releases every message it gets. */
  static class Recorder implements StreamListener {
    final BlockingQueue<Ev> events = new LinkedBlockingQueue<>();
    final List<Ev> all = new CopyOnWriteArrayList<>();
    final AtomicLong requested = new AtomicLong();

    private void add(Ev e) {
      all.add(e);
      events.add(e);
    }

    @Override
    public void onNext(Message m) {
      try {
        add(new Ev("next", m.dataUtf8(), m.metadataUtf8(), 0, null));
      } finally {
        m.release();
      }
    }

    @Override
    public void onComplete() {
      add(new Ev("complete", null, null, 0, null));
    }

    @Override
    public void onError(Throwable cause) {
      add(new Ev("error", null, null, 0, cause));
    }

    @Override
    public void onRequest(long n) {
      requested.addAndGet(n);
      add(new Ev("request", null, null, n, null));
    }

    @Override
    public void onCancel() {
      add(new Ev("cancel", null, null, 0, null));
    }

    Ev take() {
      try {
        Ev e = events.poll(Loop.WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(e).as("a signal within %s s", Loop.WAIT_SECONDS).isNotNull();
        return e;
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }

    Ev take(String kind) {
      Ev e = take();
      assertThat(e.kind()).as("signal %s", e).isEqualTo(kind);
      return e;
    }

    /** Next signal that is not onRequest. */
    Ev takeSkippingRequests() {
      for (; ; ) {
        Ev e = take();
        if (!e.kind().equals("request")) {
          return e;
        }
      }
    }
  }

  /** Messages with UTF-8 data from the connection's allocator. */
  Message msg(String data) {
    return Message.utf8(conn.alloc(), data);
  }

  Message msg(String metadata, String data) {
    return Message.utf8(conn.alloc(), metadata, data);
  }
}
