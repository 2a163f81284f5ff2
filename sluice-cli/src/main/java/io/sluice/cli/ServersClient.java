package io.sluice.cli;

import io.netty.handler.ssl.SslContext;
import io.sluice.Responder;
import io.sluice.balancer.AddressSource;
import io.sluice.balancer.Balancer;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.netty.IoMode;
import io.sluice.transport.netty.internal.EventLoops;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./sluice client --servers host:port,host:port,...}: the echo contract ({@link EchoClient})
 * through a {@link Balancer} over those servers, then one line per server with the requests it
 * was sent.
 */
final class ServersClient {
  /**
   * The system property that overrides how long the command waits for a first server to connect
   * (milliseconds; 10 s by default): a test of an address nobody listens at need not wait 10 s.
   */
  static final String CONNECT_WAIT_PROPERTY = "sluice.servers.connectWaitMillis";

  private ServersClient() {}

  /** {@code host:port,host:port,...} ({@code [v6]:port} for IPv6), unresolved, no duplicates. */
  static List<InetSocketAddress> parse(String list) {
    LinkedHashSet<InetSocketAddress> r = new LinkedHashSet<>();
    for (String item : list.split(",", -1)) {
      String s = item.trim();
      int colon = s.lastIndexOf(':');
      String host = colon > 0 ? s.substring(0, colon) : "";
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      int port;
      try {
        port = Integer.parseInt(s.substring(colon + 1));
      } catch (NumberFormatException e) {
        port = -1;
      }
      if (host.isEmpty() || port <= 0 || port > 65535) {
        throw new Args.UsageException(
            "--servers takes host:port,host:port,... (port 1..65535), got '" + item + "'");
      }
      r.add(InetSocketAddress.createUnresolved(host, port));
    }
    return new ArrayList<>(r);
  }

  static int run(
      Args a,
      IoMode io,
      ConnectionOptions options,
      boolean large,
      PrintStream out,
      PrintStream err) {
    Endpoints.Kind kind = Endpoints.kind(a);
    if (kind == Endpoints.Kind.UDS) {
      throw new Args.UsageException("--servers is for tcp, ws, h2 and ws-h2 (host:port addresses)");
    }
    if (a.get("host", null) != null || a.get("port", null) != null) {
      throw new Args.UsageException("--servers replaces --host and --port");
    }
    if (a.get("keepalive-ms", null) != null) {
      throw new Args.UsageException("--keepalive-ms checks one connection: not with --servers");
    }
    Endpoints.checkApplicable(a, kind);
    List<InetSocketAddress> servers = parse(a.get("servers", ""));
    SslContext ssl = Endpoints.clientTls(a, err, kind);
    String wsPath = Endpoints.wsPath(a);
    io.netty.channel.EventLoopGroup group = EventLoops.shared(io);
    Balancer balancer =
        Balancer.builder()
            .addresses(AddressSource.fixed(servers))
            .connector(
                address -> {
                  InetSocketAddress at = (InetSocketAddress) address;
                  ClientTransport t =
                      Endpoints.clientTransport(
                          kind, at.getHostString(), at.getPort(), null, wsPath, ssl, group);
                  return Connections.connect(
                      t, options, ClientSetup.defaults(), r -> new Responder() {});
                })
            .build();
    try {
      if (!awaitOne(balancer)) {
        out.println("FAIL connect: no server of --servers connected: " + describe(balancer));
        out.println("0 passed, 1 failed");
        return 1;
      }
      Map<String, String> skip = new HashMap<>(Endpoints.uncarried(kind));
      skip.put(
          "fire-and-forget",
          "over --servers it reaches one server, and the 'stats' request that checks it may"
              + " reach another");
      InetSocketAddress first = servers.get(0);
      int failures =
          new EchoClient(
                  Endpoints.clientTransport(
                      kind, first.getHostString(), first.getPort(), null, wsPath, ssl, group),
                  options,
                  large,
                  0,
                  out)
              .over(balancer)
              .skipping(skip)
              .run();
      for (Balancer.ServerStatus s : balancer.servers()) {
        out.println(
            "server " + format(s.address()) + ": " + s.requests() + " requests, " + s.state());
      }
      return failures == 0 ? 0 : 1;
    } finally {
      balancer.dispose();
    }
  }

  private static boolean awaitOne(Balancer balancer) {
    long deadline =
        System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Long.getLong(CONNECT_WAIT_PROPERTY, 10_000));
    while (System.nanoTime() < deadline) {
      if (balancer.servers().stream().anyMatch(s -> s.state().equals("connected"))) {
        return true;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }

  private static String describe(Balancer balancer) {
    StringBuilder b = new StringBuilder();
    for (Balancer.ServerStatus s : balancer.servers()) {
      b.append(b.length() == 0 ? "" : ", ")
          .append(format(s.address()))
          .append(" (")
          .append(s.state())
          .append(s.lastError() != null ? ": " + s.lastError() : "")
          .append(')');
    }
    return b.toString();
  }

  private static String format(SocketAddress address) {
    InetSocketAddress a = (InetSocketAddress) address;
    String host = a.getHostString();
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
  }
}
