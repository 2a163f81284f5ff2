package io.sluice.interop.peer;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Iterator;

/**
 * Entry point of the rsocket-java interop peer that Sluice's interop tests run as a separate
 * process ({@code java -jar rsocket-java-peer.jar <mode> [options]}).
 *
 * <pre>
 * server --host 127.0.0.1 --port P [--mtu N] [--exit-on-stdin-eof] [--transport tcp|ws]
 *     Echo server (see EchoResponder). Prints "LISTENING &lt;port&gt;" once bound (--port 0 picks
 *     an ephemeral port), then runs until killed, or until stdin closes with --exit-on-stdin-eof.
 *
 * client --host H --port P [--mtu N] [--lease] [--keepalive-ms K] [--transport tcp|ws]
 *     Runs every case of the echo contract against a server, printing "PASS &lt;case&gt;" or
 *     "FAIL &lt;case&gt;: &lt;reason&gt;" per case and "&lt;n&gt; passed, &lt;m&gt; failed" at the end.
 *     Exit status 0 if all passed, 1 otherwise.
 *
 * --transport ws speaks rsocket-java's WebSocket transport (path /) instead of TCP.
 *
 * server ... --resume
 *     The echo server offering rsocket-java's resumption (session kept 60 s; no lease).
 *
 * resume-client --host H --port P --count N
 *     A resumable rsocket-java client (retry every 100 ms, keepalive 500 ms) asks for a
 *     request-stream "seq:N" and checks that "0".."N-1" arrive once each, in order, across cuts.
 *     Prints "RECEIVING" at the first message, then "PASS stream N messages in order" (exit 0)
 *     or "FAIL ..." (exit 1).
 *
 * route-client --host H --port P --route R [--data D]
 *     Sends one request-response routed by composite metadata (see RouteClient) and prints the
 *     answer. Exit status 0 if one arrived, 1 otherwise.
 * </pre>
 *
 * <p>Exit status 2 means bad usage, 3 an unexpected error in server mode.
 */
public final class PeerMain {

  private static final int EXIT_USAGE = 2;
  private static final int EXIT_ERROR = 3;

  private static final String USAGE =
      String.join(
          System.lineSeparator(),
          "usage:",
          "  server --host 127.0.0.1 --port P [--mtu N] [--exit-on-stdin-eof] [--transport tcp|ws]",
          "  client --host H --port P [--mtu N] [--lease] [--keepalive-ms K] [--transport tcp|ws]",
          "  route-client --host H --port P --route R [--data D]",
          "  server ... --resume | resume-client --host H --port P --count N",
          "--mtu 0 (default) disables fragmentation; otherwise it must be at least 64.");

  private PeerMain() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  static int run(String[] args, PrintStream out, PrintStream err) {
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      err.println(USAGE);
      return EXIT_USAGE;
    }
    switch (options.mode) {
      case "server":
        try {
          new EchoServer(
                  options.host, options.port, options.mtu, options.exitOnStdinEof, options.webSocket)
              .resume(options.resume)
              .run(out);
          return 0;
        } catch (RuntimeException e) {
          err.println("server failed: " + e);
          return EXIT_ERROR;
        }
      case "client":
        return new ConformanceClient(
                options.host,
                options.port,
                options.mtu,
                options.lease,
                options.keepAliveMs,
                options.webSocket)
            .run(out);
      case "resume-client":
        return new ResumeStreamClient(options.host, options.port, options.count).run(out);
      case "route-client":
        return new RouteClient(options.host, options.port, options.route, options.data).run(out);
      default:
        throw new AssertionError(options.mode);
    }
  }

  /** Parsed command line. */
  static final class Options {
    String mode;
    String host = "127.0.0.1";
    int port = -1;
    int mtu;
    boolean lease;
    long keepAliveMs;
    boolean exitOnStdinEof;
    boolean webSocket;
    String route;
    String data = "";
    boolean resume;
    int count = 100_000;

    static Options parse(String[] args) {
      if (args.length == 0) {
        throw new IllegalArgumentException("missing mode");
      }
      Options options = new Options();
      options.mode = args[0];
      boolean server = options.mode.equals("server");
      boolean routeClient = options.mode.equals("route-client");
      boolean resumeClient = options.mode.equals("resume-client");
      boolean client = options.mode.equals("client") || routeClient || resumeClient;
      if (!server && !client) {
        throw new IllegalArgumentException("unknown mode '" + options.mode + "'");
      }
      Iterator<String> it = Arrays.asList(args).subList(1, args.length).iterator();
      while (it.hasNext()) {
        String option = it.next();
        switch (option) {
          case "--host":
            options.host = value(option, it);
            break;
          case "--port":
            options.port = intValue(option, it, 0, 65535);
            break;
          case "--mtu":
            options.mtu = intValue(option, it, 0, Integer.MAX_VALUE);
            if (options.mtu > 0 && options.mtu < 64) {
              throw new IllegalArgumentException("--mtu must be 0 or at least 64");
            }
            break;
          case "--exit-on-stdin-eof":
            requireMode(server, option);
            options.exitOnStdinEof = true;
            break;
          case "--lease":
            requireMode(client && !routeClient, option);
            options.lease = true;
            break;
          case "--route":
            requireMode(routeClient, option);
            options.route = value(option, it);
            break;
          case "--data":
            requireMode(routeClient, option);
            options.data = value(option, it);
            break;
          case "--transport":
            requireMode(!routeClient, option);
            String t = value(option, it);
            if (!t.equals("tcp") && !t.equals("ws")) {
              throw new IllegalArgumentException("--transport must be tcp or ws, got " + t);
            }
            options.webSocket = t.equals("ws");
            break;
          case "--resume":
            requireMode(server, option);
            options.resume = true;
            break;
          case "--count":
            requireMode(resumeClient, option);
            options.count = intValue(option, it, 1, Integer.MAX_VALUE);
            break;
          case "--keepalive-ms":
            requireMode(client && !routeClient, option);
            options.keepAliveMs = intValue(option, it, 1, Integer.MAX_VALUE);
            break;
          default:
            throw new IllegalArgumentException("unknown option '" + option + "'");
        }
      }
      if (options.port < 0) {
        throw new IllegalArgumentException("--port is required");
      }
      if (routeClient && options.route == null) {
        throw new IllegalArgumentException("route-client needs --route");
      }
      if (client && options.port == 0) {
        throw new IllegalArgumentException("client needs a non-zero --port");
      }
      return options;
    }

    private static void requireMode(boolean ok, String option) {
      if (!ok) {
        throw new IllegalArgumentException(option + " is not valid in this mode");
      }
    }

    private static String value(String option, Iterator<String> it) {
      if (!it.hasNext()) {
        throw new IllegalArgumentException(option + " needs a value");
      }
      return it.next();
    }

    private static int intValue(String option, Iterator<String> it, int min, int max) {
      String text = value(option, it);
      int value;
      try {
        value = Integer.parseInt(text);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(option + ": not a number: " + text);
      }
      if (value < min || value > max) {
        throw new IllegalArgumentException(option + " must be in [" + min + ", " + max + "]");
      }
      return value;
    }
  }
}
