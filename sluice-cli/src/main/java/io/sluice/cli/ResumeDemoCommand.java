package io.sluice.cli;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.Resumption;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code ./sluice demo --resume [--cut-every-ms M] [--count N]}: a resumable server and client in
 * this JVM with a relay between them that cuts the TCP connection every M ms once the last cut was
 * resumed (wherever the bytes stand: between frames or inside one); the client's request-stream of N sequenced messages keeps
 * counting across the cuts. Prints {@code RESUMED k} on each resume, a progress line each second,
 * and {@code PASS stream N messages in order (C cuts)} or {@code FAIL ...}. Every wait is bounded.
 * With the OTEL_* variables set the stream is traced ({@link RsocketTracing}): a client span and,
 * under it, the server's, once for the stream however many cuts it survives.
 */
final class ResumeDemoCommand {
  private ResumeDemoCommand() {}

  static int run(long cutEveryMillis, int count, PrintStream out) throws InterruptedException {
    ServerTransport.Bound server =
        SluiceServer.builder(TcpServerTransport.create("127.0.0.1", 0))
            .options(ConnectionOptions.builder().resumption(Resumption.defaults()).build())
            .acceptor(
                (setup, requester) ->
                    RsocketTracing.serve(new EchoResponder(requester.alloc()), requester.unwrap()))
            .bind()
            .block(Duration.ofSeconds(30));
    Relay relay;
    try {
      relay = new Relay((InetSocketAddress) server.address());
    } catch (IOException e) {
      server.close();
      out.println("FAIL relay: " + e);
      return 1;
    }
    out.println(
        "sluice demo --resume: request-stream of " + count + " messages through a relay that cuts"
            + " the connection every " + cutEveryMillis + " ms");
    out.flush();
    Requester requester = null;
    AtomicInteger resumes = new AtomicInteger();
    try {
      Resumption r =
          Resumption.builder()
              .backoff(Duration.ofMillis(10), Duration.ofMillis(500))
              .listener(
                  new Resumption.Listener() {
                    @Override
                    public void resumed(int k) {
                      resumes.set(k);
                      synchronized (out) {
                        out.println("RESUMED " + k);
                        out.flush();
                      }
                    }
                  })
              .build();
      requester =
          RsocketTracing.call(
              Connections.connect(
                      TcpClientTransport.create("127.0.0.1", relay.port()),
                      ConnectionOptions.defaults(),
                      ClientSetup.defaults().resumable(r),
                      x -> new Responder() {})
                  .get(30, TimeUnit.SECONDS));
      SequenceListener seq = new SequenceListener(() -> {});
      AtomicLong received = seq.received;
      AtomicReference<String> wrong = seq.wrong;
      CompletableFuture<Void> done = seq.done;
      requester.requestStream(Message.utf8("seq:" + count), Long.MAX_VALUE, seq);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.max(120, count / 2_000));
      long nextCut = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(cutEveryMillis);
      long nextReport = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
      int cuts = 0;
      while (!done.isDone() && System.nanoTime() < deadline) {
        Thread.sleep(Math.min(cutEveryMillis, 50));
        long now = System.nanoTime();
        // Not before the first message (a cut inside the SETUP leaves no session to resume), nor
        // while the last cut is being resumed (a cut inside every handshake would only show that).
        if (now >= nextCut && received.get() > 0 && resumes.get() == cuts && !done.isDone()) {
          if (relay.cut()) {
            cuts++;
          }
          nextCut = now + TimeUnit.MILLISECONDS.toNanos(cutEveryMillis);
        }
        if (now >= nextReport) {
          synchronized (out) {
            out.println("received " + received.get() + " of " + count + ", " + cuts + " cuts");
            out.flush();
          }
          nextReport = now + TimeUnit.SECONDS.toNanos(1);
        }
      }
      try {
        done.get(1, TimeUnit.SECONDS);
      } catch (Exception e) {
        return fail(out, "stream after " + received.get() + " of " + count + " messages: " + e);
      }
      if (wrong.get() != null) {
        return fail(out, "stream out of order: " + wrong.get());
      }
      if (received.get() != count) {
        return fail(out, "stream " + received.get() + " of " + count + " messages");
      }
      synchronized (out) {
        out.println("PASS stream " + count + " messages in order (" + cuts + " cuts)");
        out.flush();
      }
      return 0;
    } catch (Exception e) {
      return fail(out, "connect: " + e);
    } finally {
      if (requester != null) {
        requester.dispose();
      }
      relay.close();
      server.close();
    }
  }

  private static int fail(PrintStream out, String why) {
    synchronized (out) {
      out.println("FAIL " + why);
      out.flush();
    }
    return 1;
  }

  /** A loopback TCP relay to {@code target}; {@link #cut} closes the newest connection. */
  private static final class Relay {
    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final List<Socket[]> pairs = new ArrayList<>();
    private final AtomicInteger threads = new AtomicInteger();
    private volatile boolean closed;

    Relay(InetSocketAddress target) throws IOException {
      this.target = target;
      this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      daemon(this::accept, "resume-demo-relay");
    }

    int port() {
      return listener.getLocalPort();
    }

    private void accept() {
      while (!closed) {
        try {
          Socket down = listener.accept();
          Socket up = new Socket();
          try {
            up.connect(target, 10_000);
          } catch (IOException e) {
            down.close();
            continue;
          }
          down.setTcpNoDelay(true);
          up.setTcpNoDelay(true);
          synchronized (this) {
            pairs.add(new Socket[] {down, up});
          }
          daemon(() -> pump(down, up), "resume-demo-relay-" + threads.incrementAndGet());
          daemon(() -> pump(up, down), "resume-demo-relay-" + threads.incrementAndGet());
        } catch (IOException e) {
          if (closed) {
            return;
          }
        }
      }
    }

    private static void pump(Socket from, Socket to) {
      byte[] buf = new byte[16 * 1024];
      try (InputStream in = from.getInputStream();
          OutputStream o = to.getOutputStream()) {
        int n;
        while ((n = in.read(buf)) >= 0) {
          o.write(buf, 0, n);
        }
      } catch (IOException e) {
        // cut or closed
      } finally {
        closeQuietly(from);
        closeQuietly(to);
      }
    }

    /** Closes the newest connection both ways; false if there is none live. */
    synchronized boolean cut() {
      if (pairs.isEmpty()) {
        return false;
      }
      Socket[] p = pairs.get(pairs.size() - 1);
      if (p[0].isClosed()) {
        return false;
      }
      closeQuietly(p[0]);
      closeQuietly(p[1]);
      return true;
    }

    synchronized void close() {
      closed = true;
      closeQuietly(listener);
      for (Socket[] p : pairs) {
        closeQuietly(p[0]);
        closeQuietly(p[1]);
      }
    }

    private static void closeQuietly(AutoCloseable c) {
      try {
        c.close();
      } catch (Exception e) {
        // nothing to do
      }
    }

    private static void daemon(Runnable r, String name) {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      t.start();
    }
  }
}
