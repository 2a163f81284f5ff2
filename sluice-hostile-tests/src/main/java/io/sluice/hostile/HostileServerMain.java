package io.sluice.hostile;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import io.netty.util.internal.PlatformDependent;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Resumption;
import io.sluice.internal.ResumeGate;
import io.sluice.internal.ResumeSessions;
import io.sluice.internal.SluiceConnection;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.grpc.GrpcServer;
import io.sluice.transport.grpc.GrpcServices;
import io.sluice.transport.http2.Http2ServerTransport;
import io.sluice.transport.multiprotocol.MultiProtocolServerTransport;
import io.sluice.transport.netty.TcpServerTransport;
import io.sluice.transport.netty.Tls;
import io.sluice.transport.websocket.WebSocketServerTransport;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Sluice TCP server for the hostile-peer suite and the soak, meant to run in its own JVM with a
 * small heap. Serves {@link TestResponder} on 127.0.0.1 and talks over stdio:
 *
 * <ul>
 *   <li>prints {@code LISTENING <port>} once bound ({@code LISTENING <port> <deadline port>} with
 *       {@code deadlinePrefaceTimeoutMs});
 *   <li>prints {@code CLOSED <remote port> <cause>} when an established connection closes with an
 *       error;
 *   <li>answers {@code stats} with {@code STATS key=value ...} (heap and direct memory now and their
 *       peaks since the last {@code reset}, heap after a GC, open connections, live streams, the peak of request-streams live in
 *       the responder since the last {@code reset}, counted as they start and end, not sampled;
 *       the messages the gRPC service's Count calls sent, {@code countSent});
 *   <li>{@code leakcheck} runs the garbage collector until two collections were seen to complete,
 *       then allocates and releases buffers (netty looks for collected, unreleased buffers only
 *       when it tracks a new one), and answers {@code LEAKREPORT <report>} for each leak netty
 *       reported since the last check (line breaks as {@code " | "}), then {@code LEAKS <count>
 *       level=<netty's leak detection level> open=<connections still open>}; {@code leakcheck
 *       close} first stops accepting, disposes every connection and waits (at most 10 s) for them
 *       to close, so that whatever they held is garbage too;
 *   <li>{@code reset} clears the peaks; {@code quit} exits.
 * </ul>
 *
 * <p>Leak reports are recorded by a {@link ResourceLeakDetectorFactory} installed before the first
 * buffer is allocated (the server refuses to start otherwise), so {@code leakcheck} does not depend
 * on parsing netty's log; netty still logs its {@code LEAK:} lines on stderr. The level is the
 * caller's {@code -Dio.netty.leakDetection.level}; the hostile suite runs it at {@code paranoid}.
 *
 * <p>Options: {@code key=value} arguments naming {@link ConnectionOptions} in milliseconds or
 * counts: {@code setupTimeoutMs}, {@code writeStallTimeoutMs}, {@code maxConnections}, {@code
 * maxIgnoredFramesPerSecond}, {@code maxCancelsPerSecond}, {@code maxRequestNPerSecond}; {@code
 * transport=ws} serves RSocket over WebSocket (path {@code /}) instead of TCP, with {@code
 * upgradeTimeoutMs} the WebSocket upgrade deadline; {@code transport=h2} serves the HTTP/2 stream
 * mapping (h2c, {@link Http2ServerTransport}) and {@code transport=h2tls} the same over TLS (ALPN
 * h2, a self-signed certificate for {@code localhost}), with {@code prefaceTimeoutMs} the deadline
 * for the client's preface; {@code transport=grpc} serves {@link HostileGrpcService} with a {@link
 * GrpcServer} (h2c, or TLS with ALPN h2 for {@code transport=grpctls}; {@code prefaceTimeoutMs}
 * its preface deadline; its calls are the {@code streams}
 * statistic and, for {@code leakcheck close}, what must end), and {@code transport=mpgrpc} the
 * multiprotocol server with gRPC on ({@code prefaceTimeoutMs} its detection timeout); {@code
 * deadlinePrefaceTimeoutMs} (those HTTP/2 servers only) binds the same server a second time with
 * that preface (or detection) deadline instead, for the scenarios whose subject is the deadline,
 * so that the rest keep the long one and they need not wait it out; {@code
 * maxEarlyResets} and {@code earlyResetWindowMs} (default 10 s) set the HTTP/2 and gRPC servers'
 * bound on rapid resets (for the TLS suites only: see Http2TlsAttacksTest); everything
 * else keeps its default. The RSocket suites over TCP and WebSocket lower the per-second frame
 * budgets and the TLS suites the early-reset bound, because a server at PARANOID leak detection on
 * a loaded machine may not read fast enough to trip the default budgets within an attack: there the
 * defaults are not tested (the h2c suites keep them). {@code resume=1} offers session
 * resumption with {@link Resumption#defaults()}, {@code resumeMaxSessions=N} the same with at most
 * N sessions. {@code leakOnPurpose=1} is for the test
 * of the leak check only: a request-response with data {@code leak} never releases its request,
 * and leak reports are recorded but not logged (CI fails on any {@code LEAK:} line).
 */
public final class HostileServerMain {
  private static final PrintStream out = System.out;
  private static final Set<SluiceConnection> live = ConcurrentHashMap.newKeySet();
  private static final AtomicInteger open = new AtomicInteger();
  private static volatile long peakHeap;
  private static volatile long peakDirect;
  private static volatile int peakConnections;
  /**
   * The most request-streams live at once on any one connection since the last {@code reset}
   * (per connection, as the cap is: the well-behaved client's stream beside an attacker's 8,192 is
   * not a breach).
   */
  private static final AtomicInteger peakRequestStreams = new AtomicInteger();
  private static volatile boolean leakOnPurpose;
  private static final HostileGrpcService grpc = new HostileGrpcService();
  /**
   * The gRPC server's open connections (transport=grpc and grpctls), in the {@code connections}
   * statistic beside the RSocket ones: the tests wait for it to reach 0 before they read the heap
   * an attack left, and a connection that has not closed yet still holds what the attack sent.
   */
  private static volatile java.util.function.IntSupplier grpcConnections = () -> 0;

  private HostileServerMain() {}

  public static void main(String[] args) throws Exception {
    LeakRecorder.install();
    ConnectionOptions.Builder options = ConnectionOptions.builder();
    int maxConnections = TcpServerTransport.DEFAULT_MAX_CONNECTIONS;
    boolean webSocket = false;
    String http2 = null;
    long upgradeTimeoutMs = 0;
    long prefaceTimeoutMs = 0;
    long deadlinePrefaceTimeoutMs = 0;
    int maxEarlyResets = 0;
    long earlyResetWindowMs = 10_000;
    for (String a : args) {
      String[] kv = a.split("=", 2);
      if (a.equals("transport=ws")) {
        webSocket = true;
        continue;
      }
      if (a.equals("transport=h2") || a.equals("transport=h2tls") || a.equals("transport=grpc") || a.equals("transport=grpctls")
          || a.equals("transport=mpgrpc")) {
        http2 = kv[1];
        continue;
      }
      long v = Long.parseLong(kv[1]);
      switch (kv[0]) {
        case "setupTimeoutMs":
          options.setupTimeout(Duration.ofMillis(v));
          break;
        case "writeStallTimeoutMs":
          options.writeStallTimeout(Duration.ofMillis(v));
          break;
        case "maxConnections":
          maxConnections = (int) v;
          break;
        case "maxIgnoredFramesPerSecond":
          options.maxIgnoredFramesPerSecond((int) v);
          break;
        case "maxCancelsPerSecond":
          options.maxCancelsPerSecond((int) v);
          break;
        case "maxRequestNPerSecond":
          options.maxRequestNPerSecond((int) v);
          break;
        case "upgradeTimeoutMs":
          upgradeTimeoutMs = v;
          break;
        case "prefaceTimeoutMs":
          prefaceTimeoutMs = v;
          break;
        case "deadlinePrefaceTimeoutMs":
          deadlinePrefaceTimeoutMs = v;
          break;
        case "maxEarlyResets":
          maxEarlyResets = (int) v;
          break;
        case "earlyResetWindowMs":
          earlyResetWindowMs = v;
          break;
        case "resumeMaxSessions":
          // Resumption on (Resumption's defaults but this bound on sessions): resume=1 alone.
          options.resumption(Resumption.builder().maxSessions((int) v).build());
          break;
        case "resume":
          if (v != 0) {
            options.resumption(Resumption.defaults());
          }
          break;
        case "leakOnPurpose":
          leakOnPurpose = v != 0;
          LeakRecorder.logReports = !leakOnPurpose;
          break;
        default:
          throw new IllegalArgumentException("unknown option " + a);
      }
    }
    ConnectionOptions opts = options.build();
    ServerTransport transport;
    // The same server with the short preface (or detection) deadline, if asked for.
    ServerTransport deadlineTransport = null;
    if ("grpc".equals(http2) || "grpctls".equals(http2)) {
      GrpcServer g =
          GrpcServer.create("127.0.0.1", 0)
              .withServices(grpc.registry())
              .withMaxConnections(maxConnections)
              .withWriteStallTimeout(opts.writeStallTimeout());
      if (http2.equals("grpctls")) {
        g = g.withSsl(Tls.server(Tls.selfSigned("localhost")).alpn("h2").build());
      }
      if (prefaceTimeoutMs > 0) {
        g = g.withPrefaceTimeout(Duration.ofMillis(prefaceTimeoutMs));
      }
      if (maxEarlyResets > 0) {
        g = g.withMaxEarlyResets(maxEarlyResets, Duration.ofMillis(earlyResetWindowMs));
      }
      GrpcServer.Running running = g.bind().get(10, TimeUnit.SECONDS);
      grpcConnections = running::connections;
      if (deadlinePrefaceTimeoutMs > 0) {
        GrpcServer.Running second =
            g.withPrefaceTimeout(Duration.ofMillis(deadlinePrefaceTimeoutMs)).bind().get(10, TimeUnit.SECONDS);
        grpcConnections = () -> running.connections() + second.connections();
        serve(running.port(), second.port(), () -> {
          running.close();
          second.close();
        });
        return;
      }
      serve(running.port(), 0, running::close);
      return;
    } else if ("mpgrpc".equals(http2)) {
      if (maxEarlyResets > 0) {
        throw new IllegalArgumentException("maxEarlyResets: not an option of the multiprotocol server");
      }
      MultiProtocolServerTransport mp =
          MultiProtocolServerTransport.create("127.0.0.1", 0)
              .withMaxConnections(maxConnections)
              .withHttpRoutes(GrpcServices.of(grpc.registry()).httpRoutes())
              .withWriteStallTimeout(opts.writeStallTimeout());
      transport =
          prefaceTimeoutMs > 0 ? mp.withDetectionTimeout(Duration.ofMillis(prefaceTimeoutMs)) : mp;
      if (deadlinePrefaceTimeoutMs > 0) {
        deadlineTransport = mp.withDetectionTimeout(Duration.ofMillis(deadlinePrefaceTimeoutMs));
      }
    } else if (http2 != null) {
      Http2ServerTransport h2 = Http2ServerTransport.create("127.0.0.1", 0).withMaxConnections(maxConnections);
      if (prefaceTimeoutMs > 0) {
        h2 = h2.withPrefaceTimeout(Duration.ofMillis(prefaceTimeoutMs));
      }
      if (maxEarlyResets > 0) {
        h2 = h2.withMaxEarlyResets(maxEarlyResets, Duration.ofMillis(earlyResetWindowMs));
      }
      if (http2.equals("h2tls")) {
        h2 = h2.withSsl(Tls.server(Tls.selfSigned("localhost")).alpn("h2").build());
      }
      transport = h2;
      if (deadlinePrefaceTimeoutMs > 0) {
        deadlineTransport = h2.withPrefaceTimeout(Duration.ofMillis(deadlinePrefaceTimeoutMs));
      }
    } else if (webSocket) {
      WebSocketServerTransport ws =
          WebSocketServerTransport.create("127.0.0.1", 0).withMaxConnections(maxConnections);
      transport = upgradeTimeoutMs > 0 ? ws.withUpgradeTimeout(Duration.ofMillis(upgradeTimeoutMs)) : ws;
    } else {
      transport = TcpServerTransport.create("127.0.0.1", 0).withMaxConnections(maxConnections);
    }
    // With resumption, the connection's first frame decides (SETUP, resumable SETUP or RESUME).
    ResumeSessions sessions = opts.resumption() != null ? new ResumeSessions(opts.resumption()) : null;
    java.util.function.Consumer<io.sluice.transport.DuplexTransport> accept =
        t -> {
          SocketAddress remote = t.remoteAddress();
          if (sessions != null) {
            ResumeGate.serve(
                t, opts, (setup, requester) -> new TestResponder(), sessions, c -> track(c, remote));
            return;
          }
          track(SluiceConnection.server(t, opts, (setup, requester) -> new TestResponder()), remote);
        };
    ServerTransport.Bound bound = transport.bind(accept).get(10, TimeUnit.SECONDS);
    ServerTransport.Bound second =
        deadlineTransport == null ? null : deadlineTransport.bind(accept).get(10, TimeUnit.SECONDS);
    serve(
        port(bound.address()),
        second == null ? 0 : port(second.address()),
        () -> {
          bound.close();
          if (second != null) {
            second.close();
          }
        });
  }

  /** Counts {@code c} among the open connections until it closes (a resumed session: once). */
  private static void track(SluiceConnection c, SocketAddress remote) {
    peakConnections = Math.max(peakConnections, open.incrementAndGet());
    live.add(c);
    c.onClose()
        .whenComplete(
            (v, e) -> {
              live.remove(c);
              open.decrementAndGet();
              if (e != null) {
                out.println("CLOSED " + port(remote) + " " + e);
              }
            });
  }

  /**
   * Serves the stdio commands (see the class comment) for a server bound to {@code port} (and to
   * {@code deadlinePort} with the short preface deadline, unless 0).
   */
  private static void serve(int port, int deadlinePort, Runnable stopAccepting) throws Exception {
    Thread sampler = new Thread(HostileServerMain::sample, "sampler");
    sampler.setDaemon(true);
    sampler.start();
    out.println("LISTENING " + port + (deadlinePort > 0 ? " " + deadlinePort : ""));
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      switch (line.trim()) {
        case "stats":
          out.println(stats());
          break;
        case "reset":
          peakHeap = heapUsed();
          peakDirect = directUsed();
          peakConnections = open.get();
          peakRequestStreams.set(0);
          out.println("RESET");
          break;
        case "leakcheck":
          leakCheck(false, stopAccepting);
          break;
        case "leakcheck close":
          leakCheck(true, stopAccepting);
          break;
        case "quit":
          stopAccepting.run();
          System.exit(0);
          break;
        default:
          out.println("ERR unknown command " + line);
      }
    }
    System.exit(0); // stdin closed: the parent went away
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static int port(SocketAddress a) {
    return a instanceof InetSocketAddress ? ((InetSocketAddress) a).getPort() : -1;
  }

  private static void sample() {
    for (; ; ) {
      long h = heapUsed();
      if (h > peakHeap) {
        peakHeap = h;
      }
      long d = directUsed();
      if (d > peakDirect) {
        peakDirect = d;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  static long heapUsed() {
    Runtime r = Runtime.getRuntime();
    return r.totalMemory() - r.freeMemory();
  }

  /**
   * Direct memory in use: netty's own counter (buffers it allocates without a cleaner, which the
   * JDK does not see) plus the JDK's direct buffer pool.
   */
  static long directUsed() {
    long netty = Math.max(0, PlatformDependent.usedDirectMemory());
    long jdk = 0;
    for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (b.getName().equals("direct")) {
        jdk = b.getMemoryUsed();
      }
    }
    return netty + jdk;
  }

  /** The {@code leakcheck} command: see the class comment. */
  private static void leakCheck(boolean closeAll, Runnable stopAccepting) {
    long stillOpen = open.get();
    if (closeAll) {
      stopAccepting.run();
      List<CompletableFuture<Void>> closing = new ArrayList<>();
      for (SluiceConnection c : live) {
        c.dispose();
        closing.add(c.onClose());
      }
      try {
        CompletableFuture.allOf(closing.toArray(new CompletableFuture<?>[0]))
            .handle((v, e) -> null) // closed with an error is closed
            .get(10, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        // reported below as open=N
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      // Not the open counter: its callback on a close may run after ours.
      stillOpen = closing.stream().filter(f -> !f.isDone()).count();
      // gRPC connections are not SluiceConnections: their calls end (cancelled) as they close.
      for (int i = 0; i < 500 && grpc.liveCalls() > 0; i++) {
        sleepQuietly(20);
      }
      stillOpen += grpc.liveCalls();
    }
    List<String> leaks = LeakRecorder.detect();
    for (String leak : leaks) {
      out.println("LEAKREPORT " + leak.replace("\r", "").replace("\n", " | "));
    }
    out.println(
        "LEAKS " + leaks.size() + " level=" + ResourceLeakDetector.getLevel() + " open=" + stillOpen);
  }

  private static String stats() {
    int streams = 0;
    for (SluiceConnection c : live) {
      try {
        streams += c.executor() instanceof io.netty.util.concurrent.EventExecutor
            ? ((io.netty.util.concurrent.EventExecutor) c.executor())
                .submit(c::activeStreams)
                .get(5, TimeUnit.SECONDS)
            : 0;
      } catch (Exception e) {
        // closed meanwhile
      }
    }
    streams += grpc.liveCalls();
    // Counted before the GC below, which takes a while: a connection that closes meanwhile would
    // otherwise read as closed beside a heap that still held what it had (the tests wait for 0
    // connections before they take the heap an attack left).
    int connections = open.get() + grpcConnections.getAsInt();
    long heapNow = heapUsed();
    System.gc();
    long heapAfterGc = heapUsed();
    return "STATS heap=" + heapNow
        + " heapAfterGc=" + heapAfterGc
        + " peakHeap=" + peakHeap
        + " direct=" + directUsed()
        + " peakDirect=" + peakDirect
        + " connections=" + connections
        + " peakConnections=" + peakConnections
        + " streams=" + streams
        + " peakRequestStreams=" + peakRequestStreams.get()
        + " countSent=" + grpc.countSent();
  }

  /**
   * What the server answers. Request-response: {@code big} gets 1 KiB, anything else {@code
   * echo:<data>}. Request-stream: endless 64-byte items as demanded ({@code count:K}: K items, then
   * complete). Request-channel: echoes each inbound message, asking the peer for one more only when
   * it has room to answer.
   */
  static final class TestResponder implements Responder {
    private static final byte[] BIG = new byte[1024];
    private static final byte[] ITEM = new byte[64];
    /** Request-streams live on this connection. */
    private final AtomicInteger liveRequestStreams = new AtomicInteger();

    @Override
    public StreamListener requestResponse(Message request, StreamHandle response) {
      String d = request.dataUtf8();
      if (!(leakOnPurpose && d.equals("leak"))) {
        request.release();
      }
      ByteBuf reply =
          d.equals("big")
              ? response.alloc().buffer(BIG.length).writeBytes(BIG)
              : response.alloc().buffer().writeBytes(("echo:" + d).getBytes(StandardCharsets.UTF_8));
      response.nextAndComplete(Message.of(reply));
      return Quiet.INSTANCE;
    }

    @Override
    public StreamListener requestStream(Message request, StreamHandle stream) {
      peakRequestStreams.accumulateAndGet(liveRequestStreams.incrementAndGet(), Math::max);
      String d = request.dataUtf8();
      request.release();
      long total = d.startsWith("count:") ? Long.parseLong(d.substring(6)) : Long.MAX_VALUE;
      return new Quiet() {
        long sent;
        boolean ended;

        @Override
        public void onRequest(long n) {
          for (long i = 0; i < n && sent < total; i++) {
            sent++;
            ByteBuf b = stream.alloc().buffer(ITEM.length).writeBytes(ITEM);
            if (sent == total) {
              end();
              stream.nextAndComplete(Message.of(b));
            } else {
              stream.next(Message.of(b));
            }
          }
        }

        @Override
        public void onCancel() {
          end();
        }

        @Override
        public void onError(Throwable cause) {
          end();
        }

        private void end() {
          if (!ended) {
            ended = true;
            liveRequestStreams.decrementAndGet();
          }
        }
      };
    }

    @Override
    public StreamListener requestChannel(Message first, boolean inboundComplete, StreamHandle ch) {
      return new Quiet() {
        Message held = first;
        long credit;
        boolean inboundDone = inboundComplete;

        @Override
        public void onRequest(long n) {
          credit += n;
          if (held != null) {
            Message m = held;
            held = null;
            echo(m);
          }
        }

        private void echo(Message m) {
          credit--;
          ch.next(m);
          if (inboundDone) {
            ch.complete();
          } else if (credit > 0) {
            ch.request(1);
          }
        }

        @Override
        public void onNext(Message m) {
          if (credit <= 0) {
            m.release(); // cannot happen: we asked for one only with room to answer
            return;
          }
          echo(m);
        }

        @Override
        public void onComplete() {
          inboundDone = true;
          if (held == null) {
            ch.complete();
          }
        }

        @Override
        public void onCancel() {
          release();
        }

        @Override
        public void onError(Throwable cause) {
          release();
        }

        private void release() {
          if (held != null) {
            held.release();
            held = null;
          }
        }
      };
    }
  }

  /**
   * Records every leak report of netty's detectors (and lets netty log it unless {@link
   * #logReports} is off). {@link #install} must run before anything touches a buffer: netty creates
   * the one detector all buffers share when its {@code AbstractByteBuf} class initialises.
   */
  static final class LeakRecorder extends ResourceLeakDetectorFactory {
    private static final int MAX_ROUNDS = 10;
    private static final int MIN_COLLECTIONS = 2;
    private static final long CANARY_WAIT_MILLIS = 1000;
    private static final ConcurrentLinkedQueue<String> reports = new ConcurrentLinkedQueue<>();
    private static volatile boolean byteBufDetectorCreated;
    static volatile boolean logReports = true;

    static void install() {
      ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new LeakRecorder());
      UnpooledByteBufAllocator.DEFAULT.heapBuffer(1).release(); // initialises AbstractByteBuf
      if (!byteBufDetectorCreated) {
        throw new IllegalStateException(
            "netty's buffers were initialised before the leak recorder was installed");
      }
    }

    /**
     * Collects garbage until {@value #MIN_COLLECTIONS} collections were seen to complete (at most
     * {@value #MAX_ROUNDS} rounds), allocating tracked buffers after each so that netty reports
     * what was collected unreleased; returns and clears the reports recorded so far.
     */
    static List<String> detect() {
      ReferenceQueue<Object> collected = new ReferenceQueue<>();
      int completed = 0;
      for (int round = 0; round < MAX_ROUNDS && completed < MIN_COLLECTIONS; round++) {
        // The canary's referent is garbage at once: once it is enqueued, that collection has run
        // and the reference handler has processed what it found (netty's leak records included).
        PhantomReference<Object> canary = new PhantomReference<>(new Object(), collected);
        System.gc();
        try {
          // Up to a second for the reference handler: on a loaded machine it may not run for a
          // while, and a round it misses proves no collection (the wait ends when it does run).
          if (collected.remove(CANARY_WAIT_MILLIS) != null) {
            completed++;
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        } finally {
          Reference.reachabilityFence(canary);
        }
        // All buffers share one detector, which polls for collected ones when it tracks a new
        // buffer. An unpooled direct buffer is tracked and, unlike a pooled one allocated on this
        // thread, does not make the allocator reserve a chunk of direct memory for this thread,
        // which would count against the suite's direct memory bound. Below paranoid netty tracks
        // one allocation in 128 (by default).
        int each = ResourceLeakDetector.getLevel() == ResourceLeakDetector.Level.PARANOID ? 1 : 1024;
        for (int i = 0; i < each; i++) {
          UnpooledByteBufAllocator.DEFAULT.directBuffer(8).release();
        }
      }
      List<String> taken = new ArrayList<>();
      for (String r; (r = reports.poll()) != null; ) {
        taken.add(r);
      }
      return taken;
    }

    @Override
    @Deprecated
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(
        Class<T> resource, int samplingInterval, long maxActive) {
      return newResourceLeakDetector(resource, samplingInterval);
    }

    @Override
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(
        Class<T> resource, int samplingInterval) {
      if (resource == ByteBuf.class) {
        byteBufDetectorCreated = true;
      }
      return new ResourceLeakDetector<T>(resource, samplingInterval) {
        @Override
        protected boolean needReport() {
          return true; // report even if no logger has ERROR enabled
        }

        @Override
        protected void reportTracedLeak(String resourceType, String records) {
          reports.add("LEAK: " + resourceType + ".release() was not called." + records);
          if (logReports) {
            super.reportTracedLeak(resourceType, records);
          }
        }

        @Override
        protected void reportUntracedLeak(String resourceType) {
          reports.add("LEAK: " + resourceType + ".release() was not called (no records).");
          if (logReports) {
            super.reportUntracedLeak(resourceType);
          }
        }
      };
    }
  }

  /** A listener that ignores every signal (and releases what it is given). */
  static class Quiet implements StreamListener {
    static final Quiet INSTANCE = new Quiet();

    @Override
    public void onNext(Message message) {
      message.release();
    }

    @Override
    public void onComplete() {}

    @Override
    public void onError(Throwable cause) {}
  }
}
