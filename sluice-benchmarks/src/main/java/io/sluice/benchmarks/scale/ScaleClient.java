package io.sluice.benchmarks.scale;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoopGroup;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.benchmarks.harness.Args;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.internal.EventLoops;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The Sluice client of {@code ./sluice bench --scale} ({@code BenchMain scale-client --port P
 * --addresses K --streams-per-connection S --rate R}): one event loop, whatever the server is.
 * {@code OPEN c} on stdin opens connections until there are {@code c} (round-robin over the K
 * addresses, at most {@link #CONNECTING} at a time), each with S request-channels, then prints
 * {@code SCALE_OPENED connections=.. streams=.. failed_connections=..}. One timer on the loop
 * ({@link #TICK_MILLIS}) visits the streams round-robin through a {@link Pacer}, each sending R
 * messages per second of 8 bytes: its {@code System.nanoTime()}. {@code MARK} / {@code REPORT}
 * answer {@code SCALE_CLIENT sent=.. skipped=.. failed_streams=.. cpu_ns=..} (sent and CPU time since
 * MARK; skipped: due sends a stream without credit had to miss; failed: every stream that ended,
 * ever).
 */
public final class ScaleClient {
  private ScaleClient() {}

  static final int TICK_MILLIS = 10;
  static final int CONNECTING = 256;

  private static final class Stream implements StreamListener {
    final Requester requester;
    StreamHandle handle;
    long credit;
    boolean ended;
    private final LongAdder failed;

    Stream(Requester requester, LongAdder failed) {
      this.requester = requester;
      this.failed = failed;
    }

    @Override
    public void onRequest(long n) {
      credit = credit + n < 0 ? Long.MAX_VALUE : credit + n;
    }

    @Override
    public void onNext(Message message) {
      message.release();
    }

    @Override
    public void onComplete() {
      end();
    }

    @Override
    public void onError(Throwable cause) {
      end();
    }

    @Override
    public void onCancel() {
      end();
    }

    private void end() {
      if (!ended) {
        ended = true;
        failed.increment();
      }
    }
  }

  /** Runs the client child until its stdin ends. */
  public static int run(String[] argv, PrintStream out) throws Exception {
    Args a = Args.parse(argv, 1,
        Set.of("port", "addresses", "streams-per-connection", "rate"), Set.of());
    int port = a.getInt("port", 0, 1, 65535);
    int addresses = a.getInt("addresses", 1, 1, 250);
    int perConnection = a.getInt("streams-per-connection", 1, 0, 1 << 20);
    double rate = ScaleOptions.parseRate(a.get("rate", "1"));
    EventLoopGroup loop = EventLoops.newGroup(1, "sluice-client-loop");
    List<TcpClientTransport> to = new ArrayList<>();
    for (int i = 0; i < addresses; i++) {
      to.add(TcpClientTransport.create(ScaleAddresses.host(i), port).withEventLoopGroup(loop));
    }
    List<Stream> streams = new ArrayList<>(); // loop-confined
    LongAdder sent = new LongAdder();
    LongAdder skipped = new LongAdder();
    LongAdder failed = new LongAdder();
    Pacer pacer = new Pacer(rate, System.nanoTime());
    int[] cursor = {0};
    loop.next().scheduleAtFixedRate(() -> {
      int n = pacer.due(System.nanoTime(), streams.size());
      for (int i = 0; i < n && !streams.isEmpty(); i++) {
        if (cursor[0] >= streams.size()) {
          cursor[0] = 0;
        }
        Stream s = streams.get(cursor[0]++);
        if (s.ended) {
          continue;
        }
        if (s.credit <= 0) {
          skipped.increment();
          continue;
        }
        s.credit--;
        s.handle.next(Message.of(stamp(s.requester)));
        sent.increment();
      }
    }, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);

    AtomicInteger connections = new AtomicInteger();
    AtomicInteger failedConnections = new AtomicInteger();
    long sentMark = 0;
    long skippedMark = 0;
    long cpuMark = 0;
    java.lang.management.OperatingSystemMXBean os =
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
    String line;
    while ((line = in.readLine()) != null) {
      line = line.trim();
      if (line.startsWith("OPEN ")) {
        int target = Integer.parseInt(line.substring(5).trim());
        Semaphore slots = new Semaphore(CONNECTING);
        int started = connections.get() + failedConnections.get();
        for (int c = started; c < target; c++) {
          slots.acquire();
          TcpClientTransport t = to.get(c % to.size());
          Connections.connect(t, ConnectionOptions.defaults(), ClientSetup.defaults(),
                  r -> new Responder() {})
              .whenComplete((requester, err) -> {
                if (err != null) {
                  failedConnections.incrementAndGet();
                  failed.add(perConnection);
                  slots.release();
                  return;
                }
                requester.executor().execute(() -> {
                  for (int i = 0; i < perConnection; i++) {
                    Stream s = new Stream(requester, failed);
                    streams.add(s);
                    s.handle = requester.requestChannel(
                        Message.of(stamp(requester)), false, 1, s);
                  }
                  connections.incrementAndGet();
                  slots.release();
                });
              });
        }
        slots.acquire(CONNECTING); // all done
        CountDown opened = new CountDown();
        loop.next().execute(() -> opened.set(streams.size()));
        print(out, "SCALE_OPENED connections=" + connections.get() + " streams=" + opened.await()
            + " failed_connections=" + failedConnections.get());
      } else if (line.equals("MARK")) {
        sentMark = sent.sum();
        skippedMark = skipped.sum();
        cpuMark = cpuNanos(os);
      } else if (line.equals("REPORT")) {
        print(out, "SCALE_CLIENT sent=" + (sent.sum() - sentMark) + " skipped="
            + (skipped.sum() - skippedMark) + " failed_streams=" + failed.sum()
            + " cpu_ns=" + (cpuNanos(os) - cpuMark));
      }
    }
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    return 0;
  }

  private static long cpuNanos(java.lang.management.OperatingSystemMXBean os) {
    return os instanceof com.sun.management.OperatingSystemMXBean
        ? ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime()
        : -1;
  }

  private static ByteBuf stamp(Requester requester) {
    return requester.alloc().buffer(Long.BYTES).writeLong(System.nanoTime());
  }

  private static void print(PrintStream out, String line) {
    synchronized (out) {
      out.println(line);
      out.flush();
    }
  }

  /** A value handed over from the event loop. */
  private static final class CountDown {
    private final java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
    private volatile int value;

    void set(int v) {
      value = v;
      done.countDown();
    }

    int await() throws InterruptedException {
      if (!done.await(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the client's event loop did not answer for 60 s");
      }
      return value;
    }
  }
}
