package io.sluice.cli;

import io.sluice.core.ConnectionOptions;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/** Entry point of {@code ./sluice}. Exit codes: 0 success, 1 failure, 2 usage error. */
public final class Main {
  private Main() {}

  private static final String USAGE =
      String.join(
          "\n",
          "usage: sluice <command> [options]",
          "",
          "commands:",
          "  demo    [--seconds N] [--payload-size B] [--transport tcp|local]",
          "          a server and a client on 127.0.0.1; prints 'received messages: N' each second",
          "  demo --rpc [--seconds N]",
          "          the protobuf RPC example service; prints unary calls/s and streamed messages/s",
          "  protoc  ARGS...  protoc with protoc-gen-sluice and Sluice's .proto imports (the ./sluice script)",
          "  server  --transport tcp --host H --port P [--mtu B]",
          "          the echo responder other RSocket implementations test against; runs until killed",
          "  client  --transport tcp --host H --port P [--mtu B] [--lease] [--large] [--keepalive-ms K]",
          "          checks a server's echo contract; one PASS/FAIL line per case; --keepalive-ms K",
          "          sends KEEPALIVE every K ms with a max lifetime of 3 K and adds the keepalive case",
          "          (the server must answer 4 KEEPALIVEs while the connection idles)",
          "  bench   [--interaction stream|response] [--seconds N] [--warmup N] [--payload-size B]",
          "          [--in-flight K] [--transport tcp|local]",
          "          Sluice-only throughput in one JVM; prints per-second counts and the median",
          "  soak    [--minutes M]",
          "          mixed interactions with cancellations and errors against one server (not in CI);",
          "          prints heap, direct memory and live streams every 10 s",
          "",
          "JAVA_OPTS is passed to the JVM by the ./sluice script.");

  public static void main(String[] argv) {
    System.exit(run(argv, System.out, System.err));
  }

  static int run(String[] argv, PrintStream out, PrintStream err) {
    if (argv.length == 0 || argv[0].equals("--help") || argv[0].equals("help")) {
      out.println(USAGE);
      return argv.length == 0 ? 2 : 0;
    }
    try {
      switch (argv[0]) {
        case "demo":
          return demo(argv, out);
        case "server":
          return server(argv, out);
        case "client":
          return client(argv, out);
        case "bench":
          return bench(argv, out);
        case "soak":
          return new Soak().run(positive(Args.parse(argv, 1, Set.of("minutes"), Set.of()).getInt("minutes", 10), "minutes"), out);
        default:
          err.println("unknown command '" + argv[0] + "'\n\n" + USAGE);
          return 2;
      }
    } catch (Args.UsageException e) {
      err.println("sluice " + argv[0] + ": " + e.getMessage() + "\n\n" + USAGE);
      return 2;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }

  private static int demo(String[] argv, PrintStream out) throws InterruptedException {
    Args a = Args.parse(argv, 1, Set.of("seconds", "payload-size", "transport"), Set.of("rpc"));
    int seconds = positive(a.getInt("seconds", 10), "seconds");
    if (a.flag("rpc")) {
      return RpcDemoCommand.run(seconds, out);
    }
    int size = nonNegative(a.getInt("payload-size", 16), "payload-size");
    String transport = a.get("transport", "tcp");
    out.println(
        "sluice demo: request-stream of " + size + "-byte messages over " + transport
            + " on 127.0.0.1 for " + seconds + " s");
    Throughput t =
        new Throughput(Throughput.Interaction.STREAM, transport, size, 0, ConnectionOptions.defaults());
    List<Long> samples = t.run(0, seconds, out);
    long total = samples.stream().mapToLong(Long::longValue).sum();
    out.println(
        "total: " + total + " messages in " + seconds + " s, median "
            + Throughput.median(samples) + " messages/s");
    return 0;
  }

  private static int bench(String[] argv, PrintStream out) throws InterruptedException {
    Args a =
        Args.parse(
            argv,
            1,
            Set.of("interaction", "seconds", "warmup", "payload-size", "in-flight", "transport"),
            Set.of());
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
    Throughput t = new Throughput(i, transport, size, inFlight, ConnectionOptions.defaults());
    List<Long> samples = t.run(warmup, seconds, out);
    out.println(
        "bench " + interaction + " " + transport + " payload=" + size + "B: median "
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

  private static void requireTcp(Args a) {
    String transport = a.get("transport", "tcp");
    if (!transport.equals("tcp")) {
      throw new Args.UsageException("only --transport tcp is available, got " + transport);
    }
  }

  private static int server(String[] argv, PrintStream out) throws InterruptedException {
    Args a = Args.parse(argv, 1, Set.of("transport", "host", "port", "mtu"), Set.of());
    requireTcp(a);
    String host = a.get("host", "127.0.0.1");
    int port = a.getInt("port", 7878);
    ConnectionOptions options = options(a).toBuilder().lease(true).build();
    ServerTransport.Bound bound =
        SluiceServer.builder(TcpServerTransport.create(host, port))
            .options(options)
            .acceptor((setup, requester) -> new EchoResponder(requester.alloc()))
            .bind()
            .block(Duration.ofSeconds(10));
    int actual = ((InetSocketAddress) bound.address()).getPort();
    out.println("LISTENING " + actual);
    out.flush();
    bound.onClose().join();
    return 0;
  }

  private static int client(String[] argv, PrintStream out) {
    Args a =
        Args.parse(
            argv,
            1,
            Set.of("transport", "host", "port", "mtu", "keepalive-ms"),
            Set.of("lease", "large"));
    requireTcp(a);
    String host = a.get("host", "127.0.0.1");
    int port = a.getInt("port", 7878);
    if (port <= 0 || port > 65535) {
      throw new Args.UsageException("--port must be in 1..65535");
    }
    EchoClient client =
        new EchoClient(
            TcpClientTransport.create(host, port),
            options(a),
            a.flag("large"),
            a.getInt("keepalive-ms", 0),
            out);
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
