package io.sluice.cli;

import io.sluice.core.ConnectionOptions;
import io.sluice.lease.LeasePolicy;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.IoMode;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;

/** Entry point of {@code ./sluice}. Exit codes: 0 success, 1 failure, 2 usage error. */
public final class Main {
  private Main() {}

  /**
   * A command of this jar: the options its parser takes (with a value, and flags) and its help
   * text, {@code help/<helpFile>} beside this class. The ./sluice script prints the same files for
   * {@code --help} without building the jar.
   */
  record Command(String name, Set<String> options, Set<String> flags, String helpFile) {
    Args parse(String[] argv) {
      return Args.parse(argv, 1, options, flags);
    }

    String help() {
      return Main.help(helpFile);
    }
  }

  static final Map<String, Command> COMMANDS = commands(
      new Command(
          "demo",
          Set.of("seconds", "payload-size", "transport", "port", "io", "cut-every-ms", "count"),
          Set.of("rpc", "browser", "tls", "resume"),
          "demo.txt"),
      new Command(
          "server",
          Endpoints.union(Endpoints.SERVER_OPTIONS, Set.of("mtu", "lease-fixed", "metrics-port")),
          Endpoints.union(Endpoints.SERVER_FLAGS, Set.of("lease", "console", "resume")),
          "server.txt"),
      new Command(
          "client",
          Endpoints.union(Endpoints.CLIENT_OPTIONS, Set.of("mtu", "keepalive-ms", "servers", "count")),
          Endpoints.union(Endpoints.CLIENT_FLAGS, Set.of("lease", "large", "resume")),
          "client.txt"),
      new Command("soak", Set.of("minutes"), Set.of(), "soak.txt"),
      new Command("grpc-test-server", Set.of("host", "port", "transport", "metrics-port"), Set.of("console"), "grpc-test-server.txt"),
      new Command("grpc-test-client", Set.of("host", "port", "test_case", "transport"), Set.of(), "grpc-test-client.txt"),
      new Command("call", CallCommand.OPTIONS, CallCommand.FLAGS, "call.txt"),
      // Reached only as java -jar ...-all.jar bench: ./sluice bench runs sluice-benchmarks instead.
      new Command(
          "bench",
          Set.of("interaction", "seconds", "warmup", "payload-size", "in-flight", "transport", "io"),
          Set.of("tls"),
          "jar-bench.txt"));

  /** Commands the ./sluice script runs itself and never passes to this jar (see the script). */
  static final Set<String> SCRIPT_COMMANDS = Set.of("protoc", "bench", "jmh");

  /** The overview {@code ./sluice --help} prints: every command of the script. */
  static final String USAGE = help("sluice.txt");

  private static Map<String, Command> commands(Command... commands) {
    Map<String, Command> m = new LinkedHashMap<>();
    for (Command c : commands) {
      m.put(c.name(), c);
    }
    return Collections.unmodifiableMap(m);
  }

  static String help(String file) {
    try (InputStream in = Main.class.getResourceAsStream("help/" + file)) {
      if (in == null) {
        throw new IllegalStateException("help/" + file + " is missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).stripTrailing();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Parses a command line as {@code ./sluice} and {@link #run} would, and runs nothing. Returns
   * false for a command the script passes elsewhere ({@link #SCRIPT_COMMANDS}: {@code bench} is
   * parsed by sluice-benchmarks' {@code BenchMain.check}, {@code protoc} and {@code jmh} take their
   * tools' own options). Option values are not checked. The docs test in sluice-build-checks runs
   * every {@code ./sluice ...} line of the docs through it.
   *
   * @throws IllegalArgumentException naming an unknown command or option, a stray word or an
   *     option without its value
   */
  public static boolean check(String... argv) {
    if (argv.length == 0 || argv[0].equals("--help") || argv[0].equals("-h")) {
      return true;
    }
    if (argv[0].equals("help")) {
      if (argv.length > 2 || (argv.length == 2 && !COMMANDS.containsKey(argv[1])
          && !SCRIPT_COMMANDS.contains(argv[1]))) {
        throw new IllegalArgumentException("help takes one command, got " + Arrays.asList(argv));
      }
      return true;
    }
    if (SCRIPT_COMMANDS.contains(argv[0])) {
      return false;
    }
    Command command = COMMANDS.get(argv[0]);
    if (command == null) {
      throw new IllegalArgumentException("unknown command '" + argv[0] + "'");
    }
    if (!Arrays.asList(argv).contains("--help")) {
      try {
        if (command.name().equals("call")) {
          CallCommand.check(argv); // positional arguments and grpcurl's short options
          return true;
        }
        command.parse(argv);
      } catch (Args.UsageException e) {
        throw new IllegalArgumentException("sluice " + argv[0] + ": " + e.getMessage(), e);
      }
    }
    return true;
  }

  public static void main(String[] argv) {
    System.exit(run(argv, System.out, System.err));
  }

  static int run(String[] argv, PrintStream out, PrintStream err) {
    return run(argv, System.in, out, err);
  }

  /** As {@link #run(String[], PrintStream, PrintStream)}, {@code in} as stdin ({@code call -d @}). */
  static int run(String[] argv, InputStream in, PrintStream out, PrintStream err) {
    if (argv.length == 0 || argv[0].equals("--help") || argv[0].equals("-h")
        || argv[0].equals("help")) {
      if (argv.length == 2 && argv[0].equals("help") && COMMANDS.containsKey(argv[1])) {
        out.println(COMMANDS.get(argv[1]).help());
        return 0;
      }
      out.println(USAGE);
      return argv.length == 0 ? 2 : 0;
    }
    Command command = COMMANDS.get(argv[0]);
    if (command == null) {
      err.println("unknown command '" + argv[0] + "'\n\n" + USAGE);
      return 2;
    }
    if (Arrays.asList(argv).contains("--help")) {
      out.println(command.help());
      return 0;
    }
    try {
      if (command.name().equals("call")) {
        // Positional arguments and grpcurl's short options: its own parser.
        return CallCommand.run(argv, in, out, err);
      }
      Args a = command.parse(argv);
      switch (command.name()) {
        case "demo":
          return demo(a, out);
        case "server":
          return server(a, out, err);
        case "client":
          return client(a, out, err);
        case "bench":
          return bench(a, out);
        case "grpc-test-server":
          return GrpcTestCommands.server(a, out, err);
        case "grpc-test-client":
          return GrpcTestCommands.client(a, out, err);
        case "soak":
          return new Soak().run(positive(a.getInt("minutes", 10), "minutes"), out);
        default:
          throw new IllegalStateException("no runner for " + command.name());
      }
    } catch (Args.UsageException e) {
      err.println("sluice " + argv[0] + ": " + e.getMessage() + "\n\n" + command.help());
      return 2;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }

  private static int demo(Args a, PrintStream out) throws InterruptedException {
    if (a.flag("browser")) {
      if (a.flag("rpc")) {
        throw new Args.UsageException("--browser and --rpc are two different demos: pick one");
      }
      int port = a.getInt("port", BrowserDemoCommand.DEFAULT_PORT);
      if (port < 0 || port > 65535) {
        throw new Args.UsageException("--port must be in 0..65535");
      }
      // Without --seconds the page's server runs until it is stopped.
      int seconds = a.get("seconds", null) == null ? 0 : positive(a.getInt("seconds", 0), "seconds");
      return BrowserDemoCommand.run(port, seconds, out);
    }
    if (a.get("port", null) != null) {
      throw new Args.UsageException("--port applies to --browser only");
    }
    if (a.flag("resume")) {
      if (a.flag("rpc")) {
        throw new Args.UsageException("--resume and --rpc are two different demos: pick one");
      }
      return ResumeDemoCommand.run(
          positive(a.getInt("cut-every-ms", 1000), "cut-every-ms"),
          positive(a.getInt("count", 1_000_000), "count"),
          out);
    }
    if (a.get("cut-every-ms", null) != null || a.get("count", null) != null) {
      throw new Args.UsageException("--cut-every-ms and --count apply to --resume only");
    }
    int seconds = positive(a.getInt("seconds", 10), "seconds");
    if (a.flag("rpc")) {
      return RpcDemoCommand.run(seconds, out);
    }
    int size = nonNegative(a.getInt("payload-size", 16), "payload-size");
    String transport = a.get("transport", "tcp");
    boolean tls = a.flag("tls");
    out.println(
        "sluice demo: request-stream of " + size + "-byte messages over " + transport
            + (tls ? "+tls" : "") + (transport.equals("uds") ? "" : " on 127.0.0.1") + " for "
            + seconds + " s");
    Throughput t =
        new Throughput(Throughput.Interaction.STREAM, transport, size, 0, ConnectionOptions.defaults())
            .withIo(io(a))
            .withTls(tls)
            .withTracing(true);
    List<Long> samples = t.run(0, seconds, out);
    long total = samples.stream().mapToLong(Long::longValue).sum();
    out.println(
        "total: " + total + " messages in " + seconds + " s, median "
            + Throughput.median(samples) + " messages/s");
    return 0;
  }

  private static int bench(Args a, PrintStream out) throws InterruptedException {
    String interaction = a.get("interaction", "stream");
    Throughput.Interaction i;
    if (interaction.equals("stream")) {
      i = Throughput.Interaction.STREAM;
    } else if (interaction.equals("response")) {
      i = Throughput.Interaction.RESPONSE;
    } else {
      throw new Args.UsageException("--interaction is stream or response, got " + interaction);
    }
    int seconds = positive(a.getInt("seconds", 10), "seconds");
    int warmup = nonNegative(a.getInt("warmup", 5), "warmup");
    int size = nonNegative(a.getInt("payload-size", 16), "payload-size");
    int inFlight = positive(a.getInt("in-flight", 256), "in-flight");
    String transport = a.get("transport", "tcp");
    boolean tls = a.flag("tls");
    Throughput t =
        new Throughput(i, transport, size, inFlight, ConnectionOptions.defaults())
            .withIo(io(a))
            .withTls(tls);
    List<Long> samples = t.run(warmup, seconds, out);
    out.println(
        "bench " + interaction + " " + transport + (tls ? "+tls" : "") + " payload=" + size + "B: median "
            + Throughput.median(samples) + " messages/s over " + samples.size() + " s");
    return 0;
  }

  private static ConnectionOptions options(Args a) {
    ConnectionOptions.Builder b = ConnectionOptions.builder();
    int mtu = a.getInt("mtu", -1);
    if (mtu >= 0) {
      try {
        b.mtu(mtu);
      } catch (IllegalArgumentException e) {
        throw new Args.UsageException(e.getMessage());
      }
    }
    if (a.flag("lease")) {
      b.lease(true);
    }
    // Interop peers may send frames up to the protocol's 16 MiB limit when they do not fragment.
    b.maxFrameSize(0xFFFFFF);
    return b.build();
  }

  /**
   * The I/O engine {@code --io} names (default auto). A named engine that cannot load here is a
   * usage error saying why, as {@code withIo} on a transport is.
   */
  private static IoMode io(Args a) {
    IoMode mode;
    try {
      mode = IoMode.parse(a.get("io", "auto"));
    } catch (IllegalArgumentException e) {
      throw new Args.UsageException("--io: " + e.getMessage());
    }
    Throwable cause = mode.unavailabilityCause();
    if (cause != null) {
      throw new Args.UsageException(
          "--io " + mode.label() + " cannot run here (" + cause + "); use --io auto or --io nio");
    }
    return mode;
  }

  /**
   * The server's options: it accepts clients that ask for leasing, and grants them what {@code
   * --lease} or {@code --lease-fixed} says (unlimited leases without either).
   */
  static ConnectionOptions serverOptions(Args a) {
    ConnectionOptions.Builder b = options(a).toBuilder().lease(true);
    if (a.flag("resume")) {
      b.resumption(io.sluice.core.Resumption.defaults());
    }
    LeasePolicy policy = ServerLease.policy(a);
    if (policy != null) {
      b.leasePolicy(policy);
    }
    return b.build();
  }

  private static int server(Args a, PrintStream out, PrintStream err) throws InterruptedException {
    MetricsEndpoint metrics = MetricsEndpoint.start(a, err);
    try {
      return server(a, metrics, out, err);
    } finally {
      if (metrics != null) {
        metrics.close();
      }
    }
  }

  private static int server(Args a, MetricsEndpoint metrics, PrintStream out, PrintStream err)
      throws InterruptedException {
    ConnectionOptions options = serverOptions(a);
    if (metrics != null) {
      options = options.toBuilder().observer(metrics.metrics().connections()).build();
      ServerLease.bindMetrics(options.leasePolicy(), metrics.metrics());
    }
    ServerTransport transport = Endpoints.server(a, io(a), err);
    ServerTransport.Bound bound =
        SluiceServer.builder(transport)
            .options(options)
            .acceptor(
                (setup, requester) ->
                    RsocketTracing.serve(new EchoResponder(requester.alloc()), requester.unwrap()))
            .bind()
            .block(Duration.ofSeconds(10));
    if (a.flag("console")) {
      err.println("sluice server: the console is at http://"
          + GrpcTestCommands.hostForUrl(a.get("host", "127.0.0.1")) + ":" + Endpoints.listening(transport, bound)
          + "/console/ (loopback clients only)");
      err.flush();
    }
    out.println("LISTENING " + Endpoints.listening(transport, bound));
    out.flush();
    ScheduledExecutorService report = ServerLease.report(options.leasePolicy(), err);
    try {
      bound.onClose().join();
    } finally {
      if (report != null) {
        report.shutdownNow();
      }
    }
    return 0;
  }

  private static int client(Args a, PrintStream out, PrintStream err) {
    boolean h2 = Endpoints.kind(a) == Endpoints.Kind.H2;
    if (h2 && a.flag("lease")) {
      throw new Args.UsageException("--lease: the HTTP/2 stream mapping (h2) carries no lease");
    }
    if (a.get("servers", null) != null) {
      return ServersClient.run(a, io(a), options(a), a.flag("large"), out, err);
    }
    if (a.get("count", null) != null) {
      if (!a.flag("resume")) {
        throw new Args.UsageException("--count: with --resume only");
      }
      int n = positive(a.getInt("count", 0), "--count");
      return ResumeCountClient.run(Endpoints.client(a, io(a), err), options(a), n, out);
    }
    EchoClient client =
        new EchoClient(
            Endpoints.client(a, io(a), err),
            options(a),
            a.flag("large"),
            a.getInt("keepalive-ms", 0),
            out);
    if (a.flag("resume")) {
      client.resumable();
    }
    client.skipping(Endpoints.uncarried(Endpoints.kind(a)));
    return client.run() == 0 ? 0 : 1;
  }

  private static int positive(int v, String name) {
    if (v <= 0) {
      throw new Args.UsageException("--" + name + " must be positive");
    }
    return v;
  }

  private static int nonNegative(int v, String name) {
    if (v < 0) {
      throw new Args.UsageException("--" + name + " must not be negative");
    }
    return v;
  }
}
