package io.sluice.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP proxy for RSocket's length-prefixed framing that cuts connections on demand: at a
 * frame boundary, or in the middle of a frame (a random number of the frame's bytes forwarded,
 * the rest dropped). Each connection it accepts is forwarded to {@code target}; {@link #cut}
 * cuts the newest one. Both directions are parsed (u24 length, then the frame), so a cut knows
 * where frames begin. Bytes read but not forwarded before a cut are lost, as on a real link.
 *
 * <p>Plain blocking sockets, two threads per connection; bounded by the connections a test makes.
 */
public final class CutProxy implements AutoCloseable {
  /** Where a cut falls. */
  public enum Mode {
    FRAME_BOUNDARY,
    MID_FRAME
  }

  private final ServerSocket listener;
  private final InetSocketAddress target;
  private final List<Pair> pairs = new ArrayList<>();
  private final AtomicInteger cutsAtBoundary = new AtomicInteger();
  private final AtomicInteger cutsMidFrame = new AtomicInteger();
  private volatile boolean closed;

  public CutProxy(InetSocketAddress target) throws IOException {
    this.target = target;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread t = new Thread(this::acceptLoop, "cut-proxy-accept");
    t.setDaemon(true);
    t.start();
  }

  public int port() {
    return listener.getLocalPort();
  }

  public int cutsAtBoundary() {
    return cutsAtBoundary.get();
  }

  public int cutsMidFrame() {
    return cutsMidFrame.get();
  }

  /** Connections accepted so far. */
  public synchronized int connections() {
    return pairs.size();
  }

  /**
   * Cuts the newest connection: the next read in either direction is forwarded up to a point that
   * {@code mode} chooses, then both sockets are closed. A connection idle for {@code idleMillis}
   * is cut where it stands (at a boundary). Returns false if there was nothing live to cut.
   */
  public boolean cut(Mode mode, long idleMillis) {
    Pair p;
    synchronized (this) {
      if (pairs.isEmpty()) {
        return false;
      }
      p = pairs.get(pairs.size() - 1);
    }
    if (p.dead) {
      return false;
    }
    p.cutRequest = mode;
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(idleMillis);
    while (!p.dead && System.nanoTime() < deadline) {
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (!p.dead) {
      p.kill();
      cutsAtBoundary.incrementAndGet();
    }
    return true;
  }

  private void acceptLoop() {
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
        Pair p = new Pair(down, up);
        synchronized (this) {
          pairs.add(p);
        }
        p.start();
      } catch (IOException e) {
        if (!closed) {
          continue;
        }
        return;
      }
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    listener.close();
    synchronized (this) {
      for (Pair p : pairs) {
        p.kill();
      }
    }
  }

  private final class Pair {
    final Socket down;
    final Socket up;
    volatile Mode cutRequest;
    volatile boolean dead;

    Pair(Socket down, Socket up) {
      this.down = down;
      this.up = up;
    }

    void start() {
      pump(down, up, "c->s");
      pump(up, down, "s->c");
    }

    private void pump(Socket from, Socket to, String name) {
      Thread t =
          new Thread(
              () -> {
                try {
                  run(from.getInputStream(), to.getOutputStream());
                } catch (IOException e) {
                  // a cut or a close
                } finally {
                  kill();
                }
              },
              "cut-proxy-" + name);
      t.setDaemon(true);
      t.start();
    }

    /** Copies frames, tracking their boundaries so that a cut can choose where it falls. */
    private void run(InputStream in, OutputStream out) throws IOException {
      byte[] buf = new byte[64 * 1024];
      int need = 0; // body bytes left in the current frame
      int prefixGot = 0;
      int prefix = 0;
      int[] boundaries = new int[buf.length + 1];
      while (!dead) {
        int n = in.read(buf);
        if (n < 0) {
          return;
        }
        // Offsets (0..n) at which a frame ends and the next begins.
        int nb = 0;
        if (need == 0 && prefixGot == 0) {
          boundaries[nb++] = 0;
        }
        int i = 0;
        while (i < n) {
          if (need > 0) {
            int skip = Math.min(need, n - i);
            i += skip;
            need -= skip;
            if (need == 0) {
              boundaries[nb++] = i;
            }
          } else {
            prefix = (prefix << 8) | (buf[i++] & 0xFF);
            if (++prefixGot == 3) {
              need = prefix;
              prefix = 0;
              prefixGot = 0;
              if (need == 0) {
                boundaries[nb++] = i;
              }
            }
          }
        }
        Mode m = cutRequest;
        if (m == null) {
          out.write(buf, 0, n);
          continue;
        }
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        int at;
        if (m == Mode.FRAME_BOUNDARY && nb > 0) {
          at = boundaries[rnd.nextInt(nb)];
          cutsAtBoundary.incrementAndGet();
        } else if (m == Mode.MID_FRAME && n > 1) {
          do {
            at = 1 + rnd.nextInt(n - 1);
          } while (isBoundary(boundaries, nb, at) && n > nb);
          if (isBoundary(boundaries, nb, at)) {
            cutsAtBoundary.incrementAndGet();
          } else {
            cutsMidFrame.incrementAndGet();
          }
        } else {
          at = 0;
          cutsAtBoundary.incrementAndGet();
        }
        out.write(buf, 0, at);
        out.flush();
        dead = true;
        kill();
        return;
      }
    }

    private boolean isBoundary(int[] b, int nb, int at) {
      for (int k = 0; k < nb; k++) {
        if (b[k] == at) {
          return true;
        }
      }
      return false;
    }

    void kill() {
      dead = true;
      try {
        down.close();
      } catch (IOException ignored) {
        // closing
      }
      try {
        up.close();
      } catch (IOException ignored) {
        // closing
      }
    }
  }
}
