package io.sluice.benchmarks.harness;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The child processes of {@code ./sluice bench --balancer}, driven by the orchestrator over
 * stdin/stdout; the same for Sluice's and rsocket-java's (each side brings its {@link Servers} and
 * {@link Strategies}).
 *
 * <p>{@code balancer-server --id N --delay-us D [--lease adaptive|fixed|none]}: a request-response server on
 * 127.0.0.1 that answers every request with its id ({@link #ID_BYTES} bytes, big-endian) {@code D}
 * microseconds after it arrived, the delay taken on a timer thread, never on the event loop; prints
 * {@code LISTENING <port>} and runs until its stdin ends.
 *
 * <p>{@code balancer-client --strategy S --ports P,P,.. --rate R --warmup W --seconds T}: opens
 * the strategy over the servers at those ports (server id i at the i-th port), calls it one call at
 * a time until every server has answered once ({@link #prime}), drives it with {@link OpenLoop},
 * prints a progress line a second and ends with {@link OpenLoop.Outcome#line()}.
 * Exits when done, or when its stdin ends (the orchestrator is gone).
 */
public final class BalancerChild {
  /** The bytes of a server's answer: its id, an int. */
  public static final int ID_BYTES = 4;

  private BalancerChild() {}

  /** Starts servers; one per process. */
  public interface Servers {
    /**
     * Starts the server with id {@code id} answering after {@code delayNanos}, with leasing
     * ({@code lease}: {@code adaptive}, {@code fixed} or {@code none}) and returns its port.
     */
    int serve(int id, long delayNanos, String lease) throws Exception;
  }

  /** Opens strategies by name. */
  public interface Strategies {
    /** Opens strategy {@code name} over the servers at {@code ports} (server id i at ports[i]). */
    BalancerStrategy open(String name, List<Integer> ports) throws Exception;
  }

  /** Runs {@code balancer-server ...} ({@code argv[0]}); returns when stdin ends. */
  public static int server(String[] argv, Servers servers) throws Exception {
    Args a = Args.parse(argv, 1, Set.of("id", "delay-us", "lease"), Set.of());
    int id = a.getInt("id", 0, 0, 1000);
    long delay = TimeUnit.MICROSECONDS.toNanos(a.getInt("delay-us", 1000, 0, 10_000_000));
    String lease = a.get("lease", "none");
    if (!lease.equals("adaptive") && !lease.equals("fixed") && !lease.equals("none")) {
      throw new Args.UsageException("--lease is adaptive, fixed or none, got '" + lease + "'");
    }
    int port = servers.serve(id, delay, lease);
    System.out.println("LISTENING " + port);
    System.out.flush();
    drain(System.in);
    return 0;
  }

  /** Runs {@code balancer-client ...} ({@code argv[0]}); returns when the run is over. */
  public static int client(String[] argv, Strategies strategies) throws Exception {
    Args a =
        Args.parse(argv, 1, Set.of("strategy", "ports", "rate", "warmup", "seconds"), Set.of());
    String name = a.get("strategy", "");
    List<Integer> ports = new ArrayList<>();
    for (String p : a.get("ports", "").split(",", -1)) {
      try {
        ports.add(Integer.parseInt(p.trim()));
      } catch (NumberFormatException e) {
        throw new Args.UsageException("--ports takes ports separated by commas, got '" + p + "'");
      }
    }
    int rate = a.getInt("rate", 2000, 1, 1_000_000);
    int warmup = a.getInt("warmup", 10, 0, 86400);
    int seconds = a.getInt("seconds", 30, 1, 86400);
    Thread watchdog = new Thread(() -> {
      drain(System.in);
      System.exit(0); // the orchestrator is done with this process, or gone
    }, "balancer-stdin");
    watchdog.setDaemon(true);
    watchdog.start();
    PrintStream out = System.out;
    BalancerStrategy strategy = strategies.open(name, ports);
    try {
      prime(strategy, ports.size(), out);
      OpenLoop.Outcome outcome = OpenLoop.run(strategy, ports.size(), rate, warmup, seconds, out);
      // Printed before closing: the run's result does not wait for the connections to close.
      out.println(outcome.line());
      out.flush();
    } finally {
      strategy.close();
    }
    return 0;
  }

  /** Calls one at a time before the load, until every server has answered one. */
  static final int PRIME_CALLS = 2000;

  static final int PRIME_SECONDS = 30;

  /**
   * Calls one at a time until every server has answered once (at most {@link #PRIME_CALLS} calls
   * or {@link #PRIME_SECONDS} s), so that the load starts on connections that are up, whichever
   * the strategy: a client that connects lazily (rsocket-java's pool) would otherwise spend the
   * warm-up connecting while the open loop's calls pile up behind it.
   */
  static void prime(BalancerStrategy strategy, int servers, PrintStream out)
      throws InterruptedException {
    boolean[] answered = new boolean[servers];
    int seen = 0;
    int calls = 0;
    int failed = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PRIME_SECONDS);
    while (seen < servers && calls < PRIME_CALLS && System.nanoTime() < deadline) {
      calls++;
      CompletableFuture<Integer> answer = new CompletableFuture<>();
      strategy.call(new BalancerStrategy.Done() {
        @Override
        public void complete(int serverId) {
          answer.complete(serverId);
        }

        @Override
        public void fail(Throwable cause) {
          answer.completeExceptionally(cause);
        }
      });
      try {
        int id = answer.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (id >= 0 && id < servers && !answered[id]) {
          answered[id] = true;
          seen++;
        }
      } catch (ExecutionException | TimeoutException e) {
        failed++;
      }
    }
    out.println("primed: " + calls + " calls one at a time, " + failed + " failed, " + seen + " of "
        + servers + " servers answered");
    out.flush();
  }

  private static void drain(InputStream in) {
    try {
      while (in.read() >= 0) {
        // nothing to read: the end of stdin is the signal
      }
    } catch (IOException e) {
      // treated as the end
    }
  }
}
