package io.sluice.benchmarks;

import io.sluice.benchmarks.flavor.FuturesImpl;
import io.sluice.benchmarks.flavor.GrpcStubImpl;
import io.sluice.benchmarks.flavor.MutinyImpl;
import io.sluice.benchmarks.flavor.ReactorImpl;
import io.sluice.benchmarks.flavor.RxImpl;
import io.sluice.benchmarks.grpc.GrpcImpl;
import io.sluice.benchmarks.grpc.GrpcWireImpl;
import io.sluice.benchmarks.h2load.SluiceGrpcBenchServer;
import io.sluice.benchmarks.balancer.DelayedIdServer;
import io.sluice.benchmarks.balancer.SluiceStrategies;
import io.sluice.benchmarks.harness.Args;
import io.sluice.benchmarks.harness.BalancerChild;
import io.sluice.benchmarks.harness.ChildMain;
import io.sluice.benchmarks.harness.Impl;
import io.sluice.benchmarks.harness.Spec;
import io.sluice.benchmarks.many.ManyChildren;
import io.sluice.benchmarks.many.ManyOptions;
import io.sluice.benchmarks.rpc.RpcImpl;
import io.sluice.benchmarks.scale.ScaleBench;
import io.sluice.benchmarks.sluice.BenchTransports;
import io.sluice.benchmarks.sluice.SluiceImpl;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Entry point of {@code ./sluice bench} and {@code ./sluice jmh}; also the server and client child
 * processes of every impl but the rsocket-java and Spring RSocket peers (their own jar). Exit codes: 0 done, 1 failed, 2 usage.
 */
public final class BenchMain {
  private BenchMain() {}

  /** {@code ./sluice bench --help}: bench-usage.txt beside this class, which run.sh prints too. */
  static final String USAGE = text("bench-usage.txt");

  /** {@code ./sluice jmh --help}: jmh-usage.txt beside this class, which run.sh prints too. */
  static final String JMH_USAGE = text("jmh-usage.txt");

  /** The options of {@code ./sluice bench} that take a value. */
  static final Set<String> OPTIONS =
      Set.of("impl", "interaction", "size", "seconds", "warmup", "window", "pair", "rounds", "epochs",
          "transport", "io", "rate", "calls", "warmup-calls");

  /** The flags of {@code ./sluice bench} (and {@code --help}, answered before parsing). */
  static final Set<String> FLAGS =
      Set.of("compare", "compare-flavors", "compare-transports", "compare-grpc", "latency",
          "interleave", "vt-costs", "tls", "balancer", "markdown", "h2load", "smoke", "print-classpath");

  static String text(String file) {
    try (InputStream in = BenchMain.class.getResourceAsStream(file)) {
      if (in == null) {
        throw new IllegalStateException(file + " is missing beside " + BenchMain.class.getName());
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).stripTrailing();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Parses {@code bench ...} or {@code jmh ...} as {@link #run} does and runs nothing: an unknown
   * option, a stray word or an option without its value throws {@link Args.UsageException}. Option
   * values are not checked, and {@code jmh} takes JMH's own options. The docs test in
   * sluice-build-checks runs every {@code ./sluice bench} line of the docs through it.
   */
  public static void check(String... argv) {
    if (argv.length > 0 && argv[0].equals("jmh")) {
      return;
    }
    int from = argv.length > 0 && argv[0].equals("bench") ? 1 : 0;
    if (Arrays.asList(argv).contains("--help")) {
      return;
    }
    if (ScaleBench.handles(argv)) {
      ManyOptions.rejectWithScale(argv, from);
      ScaleBench.checkNames(argv, from);
    } else if (ManyOptions.handles(argv, from)) {
      ManyOptions.checkNames(argv, from, scaleOnlyNames());
    } else {
      Args.parse(argv, from, OPTIONS, FLAGS);
    }
  }

  public static void main(String[] argv) throws Exception {
    System.exit(run(argv, System.out, System.err));
  }

  static Impl impl(String name) {
    switch (name) {
      case "grpc-java":
        return new GrpcImpl();
      case "sluice-reactor":
        return new ReactorImpl();
      case "sluice-futures":
        return new FuturesImpl();
      case "sluice-rxjava":
        return new RxImpl();
      case "sluice-mutiny":
        return new MutinyImpl();
      case "sluice-grpc-stub":
        return new GrpcStubImpl();
      case "sluice-rpc":
        return new RpcImpl();
      case "sluice-rpc+observed":
        return new RpcImpl(true);
      case "sluice-virtualthreads":
        return virtualThreads(false);
      case "sluice-virtualthreads-eventloop":
        return virtualThreads(true);
      default:
        SluiceImpl sluice = SluiceImpl.parse(name);
        if (sluice != null) {
          return sluice;
        }
        GrpcImpl grpc = GrpcImpl.parse(name); // grpc-java/epoll
        if (grpc != null) {
          return grpc;
        }
        GrpcWireImpl wire = GrpcWireImpl.parse(name); // grpc:CLIENT-to-SERVER
        if (wire != null) {
          return wire;
        }
        throw new Args.UsageException("impl '" + name + "' does not run in this JVM");
    }
  }

  /** Where the virtual-threads impl lives: compiled only when the module is built on JDK 21+. */
  static final String VIRTUAL_THREADS_IMPL = "io.sluice.benchmarks.flavor.VirtualThreadsImpl";

  /** Whether this build and this JVM can run {@code sluice-virtualthreads}. */
  static boolean virtualThreadsAvailable() {
    if (Runtime.version().feature() < 21) {
      return false;
    }
    try {
      Class.forName(VIRTUAL_THREADS_IMPL, false, BenchMain.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  /** The JDK that {@code EventLoopThreads} needs (its {@code MIN_JDK}). */
  static final int EVENT_LOOP_VT_JDK = 24;

  /** Whether {@code sluice-virtualthreads-eventloop} can run here. */
  static boolean eventLoopVirtualThreadsAvailable() {
    return virtualThreadsAvailable() && Runtime.version().feature() >= EVENT_LOOP_VT_JDK;
  }

  /** Says, as a usage error, why {@code sluice-virtualthreads} cannot run here. */
  private static void requireVirtualThreads() {
    if (!virtualThreadsAvailable()) {
      throw new Args.UsageException(
          "sluice-virtualthreads needs the benchmarks built and run on JDK 21+ (this is JDK "
              + Runtime.version().feature() + "), e.g. JAVA_HOME=/usr/lib/jvm/<jdk 21+>"
              + " PATH=$JAVA_HOME/bin:$PATH ./sluice bench ...");
    }
  }

  /** {@code --vt-costs}: what an event-loop virtual thread costs, in this JVM (no I/O). */
  private static int virtualThreadCosts(int rounds, PrintStream out) throws Exception {
    if (!eventLoopVirtualThreadsAvailable()) {
      throw new Args.UsageException(
          "--vt-costs needs the benchmarks built and run on JDK " + EVENT_LOOP_VT_JDK + "+");
    }
    Class.forName("io.sluice.benchmarks.flavor.VirtualThreadCosts")
        .getMethod("run", PrintStream.class, int.class)
        .invoke(null, out, rounds);
    return 0;
  }

  private static Impl virtualThreads(boolean onEventLoop) {
    requireVirtualThreads();
    try {
      return (Impl)
          Class.forName(VIRTUAL_THREADS_IMPL)
              .getDeclaredConstructor(boolean.class)
              .newInstance(onEventLoop);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot make " + VIRTUAL_THREADS_IMPL, e);
    }
  }

  static int run(String[] argv, PrintStream out, PrintStream err) throws Exception {
    if (argv.length > 0 && (argv[0].equals("server") || argv[0].equals("client"))) {
      return ChildMain.run(argv, BenchMain::impl);
    }
    if (ManyChildren.handles(argv)) {
      return ManyChildren.run(argv, out);
    }
    if (argv.length > 0 && argv[0].equals("grpc-bench-server")) {
      return SluiceGrpcBenchServer.run(System.out, System.in);
    }
    if (argv.length > 0 && argv[0].equals("balancer-server")) {
      return BalancerChild.server(argv, new DelayedIdServer());
    }
    if (argv.length > 0 && argv[0].equals("balancer-client")) {
      return BalancerChild.client(argv, new SluiceStrategies());
    }
    if (argv.length > 0 && argv[0].equals("jmh")) {
      if (Arrays.asList(argv).contains("--help")) { // JMH's own is -h
        out.println(JMH_USAGE);
        return 0;
      }
      org.openjdk.jmh.Main.main(Arrays.copyOfRange(argv, 1, argv.length));
      return 0;
    }
    int from = argv.length > 0 && argv[0].equals("bench") ? 1 : 0;
    try {
      if (Arrays.asList(argv).contains("--help")) {
        out.println(USAGE);
        return 0;
      }
      if (ScaleBench.handles(argv)) { // --scale, --scale-sweep and their children: own classes
        ManyOptions.rejectWithScale(argv, from);
        return ScaleBench.run(argv, from, out);
      }
      // --connections without --scale (or --concurrency, --response-size): many connections.
      if (ManyOptions.handles(argv, from)) {
        ManyOptions many = ManyOptions.parse(argv, from, scaleOnlyNames());
        Orchestrator o = new Orchestrator(out);
        out.println(
            "# server and client JVMs on 127.0.0.1, "
                + (o.pinned() ? "pinned to CPU 0 / CPU 1 with taskset" : "not pinned (no taskset or 1 CPU)")
                + "; warm-up " + many.warmup() + " s, measured " + many.seconds() + " s");
        out.println("# machine: " + Machine.describe());
        return ManyConnections.run(o, many, out);
      }
      Args a = Args.parse(argv, from, OPTIONS, FLAGS);
      if (a.flag("print-classpath")) { // run.sh answers it first, with the same class path
        out.println(System.getProperty("java.class.path"));
        return 0;
      }
      boolean smoke = a.flag("smoke");
      if (smoke && (a.flag("vt-costs") || a.flag("balancer") || a.flag("h2load") || a.has("pair")
          || a.flag("interleave"))) {
        throw new Args.UsageException("--smoke goes with the throughput and latency runs, not with"
            + " --pair, --interleave, --balancer, --h2load or --vt-costs");
      }
      if (smoke && (a.has("seconds") || a.has("warmup"))) {
        throw new Args.UsageException("--smoke runs no warm-up and one measured "
            + Orchestrator.SMOKE_TICK_MILLIS + " ms: no --seconds or --warmup");
      }
      if (a.flag("vt-costs")) {
        return virtualThreadCosts(a.getInt("rounds", 10, 1, 10_000), out);
      }
      if (a.flag("balancer")) {
        return BalancerBench.run(a, out);
      }
      if (a.has("rate")) {
        throw new Args.UsageException("--rate goes with --balancer");
      }
      if (a.flag("h2load") && !a.flag("compare-grpc")) {
        throw new Args.UsageException("--h2load goes with --compare-grpc");
      }
      if ((a.has("calls") || a.has("warmup-calls")) && !a.flag("h2load")) {
        throw new Args.UsageException("--calls and --warmup-calls go with --compare-grpc --h2load");
      }
      if (a.flag("h2load")) {
        return H2loadBench.run(a, out);
      }
      // A smoke run's orchestrator counts in intervals of SMOKE_TICK_MILLIS: one, after none.
      int seconds = smoke ? 1 : a.getInt("seconds", 10, 1, 3600);
      int warmup = smoke ? 0 : a.getInt("warmup", 30, 0, 3600);
      // --latency alone or with --transport / --compare-transports: the stream table; null for
      // the per-impl latency mode (--impl, --compare, --compare-flavors). Checked before any output.
      LatencyTable.Plan latencyTable = a.flag("latency") ? LatencyTable.plan(a) : null;
      if (a.flag("markdown") && !a.flag("compare")) {
        throw new Args.UsageException("--markdown goes with --compare");
      }
      if (a.flag("markdown") && a.flag("latency")) {
        throw new Args.UsageException("--markdown goes with the throughput --compare, not --latency");
      }
      try (Orchestrator o = smoke ? Orchestrator.smoke(out) : new Orchestrator(out)) {
        return run(a, o, warmup, seconds, latencyTable, out);
      }
    } catch (Args.UsageException e) {
      err.println("sluice bench: " + e.getMessage() + "\n\n" + USAGE);
      return 2;
    } catch (BenchTransports.NotBuiltException e) {
      err.println("sluice bench: " + e.getMessage());
      return 2;
    } catch (IllegalStateException e) {
      err.println("sluice bench: " + e.getMessage());
      return 1;
    }
  }

  /** The modes that run on {@code o}, with the warm-up and seconds already read from {@code a}. */
  private static int run(Args a, Orchestrator o, int warmup, int seconds,
      LatencyTable.Plan latencyTable, PrintStream out) throws Exception {
    out.println(
        "# server and client JVMs on 127.0.0.1, "
            + (o.pinned() ? "pinned to CPU 0 / CPU 1 with taskset" : "not pinned (no taskset or 1 CPU)")
            + (a.flag("smoke")
                ? "; smoke run: no warm-up, one " + Orchestrator.SMOKE_TICK_MILLIS + " ms measured,"
                    + " a server JVM kept for all runs it can serve (the figures mean nothing)"
                : "; warm-up " + warmup + " s, measured " + seconds + " s"));
    String machine = Machine.describe();
    out.println("# machine: " + machine);
    if (a.flag("compare") && a.flag("compare-flavors")) {
      throw new Args.UsageException("--compare and --compare-flavors exclude each other");
    }
    if (a.flag("interleave") && !a.flag("compare-flavors")) {
      throw new Args.UsageException("--interleave goes with --compare-flavors (or use --pair A,B)");
    }
    int rounds = a.getInt("rounds", 10, 1, 10_000);
    int epochs = a.getInt("epochs", 3, 1, 100);
    if (a.flag("compare-flavors") && a.flag("interleave")) {
      return interleavedFlavors(o, warmup, epochs, rounds, out);
    }
    String pair = a.get("pair", null);
    if (pair != null) {
      String[] ab = pair.split(",", -1);
      if (ab.length != 2) {
        throw new Args.UsageException("--pair takes two impls, A,B; got '" + pair + "'");
      }
      String interaction = a.get("interaction", "stream");
      boolean texts = interaction.equals(Spec.TEXTS24); // the latency table's case (Orchestrator)
      if (!texts) {
        Spec.checkInteraction(interaction, false);
      } else if (a.has("size")) {
        throw new Args.UsageException("--interaction texts24 streams fixed texts: no --size");
      }
      int size = texts ? 0 : a.getInt("size", 8, 0, 1 << 20);
      o.interleaved(checkImpl(ab[0]), checkImpl(ab[1]), interaction, size,
          warmup, epochs, rounds, SLICE_MILLIS, SETTLE_MILLIS);
      return 0;
    }
    if (latencyTable != null) {
      return LatencyTable.run(o, latencyTable, warmup, seconds, out);
    }
    if (a.flag("latency")) {
      List<String> impls =
          a.flag("compare")
              ? Spec.PEERS
              : a.flag("compare-flavors") ? Spec.FLAVORS : List.of(checkImpl(a.get("impl", "sluice")));
      int size = a.getInt("size", 8, 0, 1 << 20);
      List<String> lines = new ArrayList<>();
      for (String impl : impls) {
        lines.add(o.latency(impl, "stream24", size, 1, warmup, seconds));
        for (int c : new int[] {1, 4, 8}) {
          lines.add(o.latency(impl, "rr", size, c, warmup, seconds));
        }
      }
      out.println();
      lines.forEach(out::println);
      return 0;
    }
    if (a.flag("compare")) {
      return compare(o, warmup, seconds, a.flag("markdown") ? machine : null, out);
    }
    if (a.flag("compare-transports")) {
      return TransportComparison.run(o, warmup, seconds, out);
    }
    if (a.flag("compare-grpc")) {
      List<Integer> sizes =
          a.has("size") ? List.of(a.getInt("size", 8, 0, 1 << 20)) : GrpcComparison.SIZES;
      return GrpcComparison.run(o, warmup, seconds, sizes, out);
    }
    if (a.flag("compare-flavors")) {
      return compareFlavors(o, warmup, seconds, out);
    }
    String impl = checkImpl(withTransport(a, a.get("impl", "sluice")));
    String interaction = a.get("interaction", "stream");
    Spec.checkInteraction(interaction, false);
    if (GrpcWireImpl.parse(impl) != null && !GrpcComparison.INTERACTIONS.contains(interaction)) {
      throw new Args.UsageException(impl + " runs --interaction rr or stream, not " + interaction);
    }
    int size = a.getInt("size", 8, 0, 1 << 20);
    int window = a.getInt("window", Spec.defaultWindow(impl, interaction), 1, 1 << 20);
    o.throughput(impl, interaction, size, window, warmup, seconds);
    return 0;
  }

  /** The option and flag names only the scale modes take (named in the many-connections errors). */
  static Set<String> scaleOnlyNames() {
    Set<String> names = new java.util.TreeSet<>(ScaleBench.optionNames());
    names.removeAll(OPTIONS);
    names.removeAll(FLAGS);
    return names;
  }

  /**
   * {@code --transport T}, {@code --io E} and {@code --tls} on the impl {@code sluice}: the impl
   * {@code sluice@T[/E][+tls]} ({@link SluiceImpl#parse}); other impls take none of them.
   */
  static String withTransport(Args a, String impl) {
    String transport = a.get("transport", null);
    String io = a.get("io", null);
    boolean tls = a.flag("tls");
    if (transport == null && io == null && !tls) {
      return impl;
    }
    if (!impl.equals("sluice")) {
      throw new Args.UsageException("--transport, --io and --tls apply to --impl sluice only");
    }
    String name = "sluice@" + (transport == null ? "tcp" : transport) + (io == null ? "" : "/" + io)
        + (tls ? "+tls" : "");
    if (SluiceImpl.parse(name) == null) {
      throw new Args.UsageException("--transport is one of " + BenchTransports.names()
          + " and --io auto, nio, epoll or io_uring; got " + name);
    }
    return name;
  }

  private static String checkImpl(String impl) {
    if (!Spec.IMPLS.contains(impl) && SluiceImpl.parse(impl) == null
        && GrpcWireImpl.parse(impl) == null) {
      throw new Args.UsageException("--impl must be one of " + Spec.IMPLS + ", got '" + impl + "'");
    }
    if (impl.startsWith("sluice-virtualthreads")) {
      requireVirtualThreads(); // before any process starts
    }
    if (impl.equals("sluice-virtualthreads-eventloop") && !eventLoopVirtualThreadsAvailable()) {
      throw new Args.UsageException(
          "sluice-virtualthreads-eventloop needs JDK " + EVENT_LOOP_VT_JDK + "+ (this is JDK "
              + Runtime.version().feature() + "): virtual threads pin their carrier in"
              + " synchronized before it");
    }
    return impl;
  }

  /**
   * {@code --compare}: every peer for stream, rr and channel at 8 and 140 B, then the table of
   * Sluice's ratios to each; with {@code --markdown} ({@code machine} not null) also the
   * like-for-like table README shows (raw RSocket against raw rsocket-java), headed by the machine,
   * the date and the command, ready to paste.
   */
  private static int compare(Orchestrator o, int warmup, int seconds, String machine, PrintStream out)
      throws Exception {
    Map<String, Map<String, Orchestrator.Result>> rows = new LinkedHashMap<>();
    for (String interaction : List.of("stream", "rr", "channel")) {
      for (int size : List.of(8, 140)) {
        Map<String, Orchestrator.Result> row = new LinkedHashMap<>();
        for (String impl : Spec.PEERS) {
          out.println("## " + impl + " " + interaction + " " + size + " B");
          row.put(impl, o.throughput(impl, interaction, size,
              Spec.defaultWindow(impl, interaction), warmup, seconds));
        }
        rows.put(interaction + " " + size + " B", row);
      }
    }
    out.println();
    out.println("| interaction | sluice | grpc-java | rsocket-java | spring-rsocket"
        + " | sluice/grpc | sluice/rsocket | sluice/spring | sluice B/msg |");
    out.println("|---|---|---|---|---|---|---|---|---|");
    for (Map.Entry<String, Map<String, Orchestrator.Result>> e : rows.entrySet()) {
      Map<String, Orchestrator.Result> row = e.getValue();
      long s = row.get("sluice").median();
      StringBuilder line = new StringBuilder("| " + e.getKey());
      for (String impl : Spec.PEERS) {
        line.append(" | ").append(Orchestrator.rate(row.get(impl).median()));
      }
      for (String peer : List.of("grpc-java", "rsocket-java", "spring-rsocket")) {
        long p = row.get(peer).median();
        line.append(" | ").append(p == 0 ? "n/a" : String.format(Locale.ROOT, "%.1fx", (double) s / p));
      }
      line.append(String.format(Locale.ROOT, " | %.1f |", row.get("sluice").bytesPerMessage()));
      out.println(line);
    }
    out.println();
    out.println("messages/s are medians of the per-second counts; ratios are ratios of medians;"
        + " 'B/msg' is bytes allocated on Sluice's server event loop per message.");
    if (machine != null) {
      out.println();
      rawTable(rows, machine, warmup, seconds, o.pinned()).forEach(out::println);
    }
    return 0;
  }

  /**
   * README's raw-RSocket table from {@code --compare}'s medians: Sluice's core against rsocket-java,
   * both with one shared payload per process, at 8 B, with the machine and the command above it.
   */
  static List<String> rawTable(
      Map<String, Map<String, Orchestrator.Result>> rows, String machine, int warmup, int seconds,
      boolean pinned) {
    List<String> lines = new ArrayList<>();
    lines.add("**Raw RSocket against rsocket-java** (`./sluice bench --compare --markdown"
        + (warmup == 30 ? "" : " --warmup " + warmup) + (seconds == 10 ? "" : " --seconds " + seconds)
        + "`): both raw payloads (one shared payload per process), 512 requests in flight, one"
        + " connection; measured " + machine + "; server and client JVMs "
        + (pinned ? "pinned to one vCPU each" : "not pinned") + ".");
    lines.add("");
    lines.add("| interaction | Sluice | rsocket-java | ratio |");
    lines.add("|---|---|---|---|");
    for (Map.Entry<String, Map<String, Orchestrator.Result>> e : rows.entrySet()) {
      if (!e.getKey().endsWith(" 8 B")) {
        continue;
      }
      long s = e.getValue().get("sluice").median();
      long r = e.getValue().get("rsocket-java").median();
      lines.add("| " + e.getKey() + " | " + Orchestrator.rate(s) + " | " + Orchestrator.rate(r) + " | "
          + (r == 0 ? "n/a" : String.format(Locale.ROOT, "%.1fx", (double) s / r)) + " |");
    }
    return lines;
  }

  /**
   * The cases of {@code --compare-flavors}: stream and rr at 8 B for every flavor, at 128 B for the
   * core SPI and RPC; grpc-java in every case, the yardstick of RPC.
   */
  static Map<String, List<String>> flavorCases() {
    Map<String, List<String>> cases = new LinkedHashMap<>();
    List<String> all = new ArrayList<>(Spec.FLAVORS);
    all.add("grpc-java");
    for (String interaction : List.of("stream", "rr")) {
      cases.put(interaction + " 8", List.copyOf(all));
    }
    for (String interaction : List.of("stream", "rr")) {
      cases.put(interaction + " 128", List.of("sluice", "sluice-rpc", "grpc-java"));
    }
    return cases;
  }

  private static int compareFlavors(Orchestrator o, int warmup, int seconds, PrintStream out)
      throws Exception {
    Map<String, Map<String, Orchestrator.Result>> rows = new LinkedHashMap<>();
    for (Map.Entry<String, List<String>> c : flavorCases().entrySet()) {
      String[] parts = c.getKey().split(" ");
      String interaction = parts[0];
      int size = Integer.parseInt(parts[1]);
      Map<String, Orchestrator.Result> row = new LinkedHashMap<>();
      for (String impl : c.getValue()) {
        out.println("## " + impl + " " + interaction + " " + size + " B");
        row.put(impl, o.throughput(impl, interaction, size,
            Spec.defaultWindow(impl, interaction), warmup, seconds));
      }
      rows.put(interaction + " " + size + " B", row);
    }
    out.println();
    out.println("| interaction | impl | msgs/s | vs sluice-reactor | vs sluice | vs grpc-java"
        + " | server CPU ns/msg | client CPU ns/msg |");
    out.println("|---|---|---|---|---|---|---|---|");
    for (Map.Entry<String, Map<String, Orchestrator.Result>> e : rows.entrySet()) {
      Map<String, Orchestrator.Result> row = e.getValue();
      for (Map.Entry<String, Orchestrator.Result> cell : row.entrySet()) {
        Orchestrator.Result r = cell.getValue();
        out.println("| " + e.getKey() + " | " + cell.getKey() + " | " + Orchestrator.rate(r.median())
            + " | " + ratio(r.median(), median(row.get("sluice-reactor")))
            + " | " + ratio(r.median(), median(row.get("sluice")))
            + " | " + ratio(r.median(), median(row.get("grpc-java")))
            + String.format(Locale.ROOT, " | %.0f | %.0f |",
                r.serverCpuNanosPerMessage(), r.clientCpuNanosPerMessage()));
      }
    }
    out.println();
    out.println("messages/s are medians of the per-second counts; a ratio is this impl's median over"
        + " the other's in the same run (n/a where that impl did not run or received nothing);"
        + " CPU ns/msg is the whole process's CPU time over the measured seconds divided by the"
        + " messages counted then (on a shared machine a steadier yardstick than messages/s).");
    return 0;
  }

  /** A pair's turn: measured for a second after a quarter second to pick up again. */
  static final int SLICE_MILLIS = 1000;

  static final int SETTLE_MILLIS = 250;

  /** The flavors {@code --compare-flavors --interleave} pairs with sluice-reactor. */
  static List<String> interleavedFlavors() {
    List<String> flavors = new ArrayList<>(Spec.FLAVORS);
    flavors.removeAll(List.of("sluice", "sluice-reactor", "sluice-rpc"));
    if (virtualThreadsAvailable()) {
      flavors.add("sluice-virtualthreads");
      if (eventLoopVirtualThreadsAvailable()) {
        flavors.add("sluice-virtualthreads-eventloop");
      }
    }
    return flavors;
  }

  private static int interleavedFlavors(
      Orchestrator o, int warmup, int epochs, int rounds, PrintStream out)
      throws Exception {
    List<Orchestrator.Pair> pairs = new ArrayList<>();
    for (String interaction : List.of("stream", "rr")) {
      for (String flavor : interleavedFlavors()) {
        out.println("## sluice-reactor / " + flavor + " " + interaction + " 8 B, interleaved");
        pairs.add(o.interleaved("sluice-reactor", flavor, interaction, 8, warmup, epochs, rounds,
            SLICE_MILLIS, SETTLE_MILLIS));
      }
    }
    out.println();
    out.println("| interaction | flavor | sluice-reactor msgs/s | flavor msgs/s"
        + " | flavor / reactor (median of rounds) | p25-p75 |");
    out.println("|---|---|---|---|---|---|");
    for (Orchestrator.Pair p : pairs) {
      out.println(String.format(Locale.ROOT, "| %s %d B | %s | %s | %s | %.2f | %.2f-%.2f |",
          p.interaction(), p.size(), p.b(), Orchestrator.rate(p.aMedian()),
          Orchestrator.rate(p.bMedian()), p.ratioQuantile(0.5), p.ratioQuantile(0.25),
          p.ratioQuantile(0.75)));
    }
    out.println();
    out.println("Each flavor and sluice-reactor ran as two server/client pairs taking turns (SIGSTOP /"
        + " SIGCONT), " + SLICE_MILLIS + " ms each, " + rounds + " rounds, in " + epochs
        + " epochs of new processes; msgs/s are medians of the turns, the ratio is the median of"
        + " the per-round ratios.");
    return 0;
  }

  private static Long median(Orchestrator.Result r) {
    return r == null ? null : r.median();
  }

  private static String ratio(long value, Long base) {
    return base == null || base == 0
        ? "n/a"
        : String.format(Locale.ROOT, "%.2f", (double) value / base);
  }

}
