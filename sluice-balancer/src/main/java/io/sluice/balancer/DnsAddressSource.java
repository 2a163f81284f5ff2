package io.sluice.balancer;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRecordDecoder;
import io.netty.handler.codec.dns.DnsRawRecord;
import io.netty.handler.codec.dns.DnsRecord;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.resolver.dns.DnsNameResolver;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.DnsServerAddressStreamProviders;
import io.netty.resolver.dns.NoopDnsCache;
import io.netty.resolver.dns.SingletonDnsServerAddressStreamProvider;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * An {@link AddressSource} from DNS, re-resolved on an interval (default 1 s) with netty's
 * resolver and no cache: either the A/AAAA records of a host name, each with a given port (a
 * Kubernetes headless service: {@code my-svc.my-ns.svc.cluster.local}, one record per ready pod),
 * or the SRV records of a name (each target's A/AAAA records with the SRV port; only the records
 * of the lowest priority value are used; weights are ignored, as the balancer measures load).
 *
 * <p>A set is delivered when it differs from the last one. A failed resolution (a timeout, no
 * such name, no records) is reported to the listener's {@code onError} and the last set stays: a
 * DNS hiccup does not empty the fleet. The same holds for one SRV target: a target that cannot be
 * resolved now keeps the addresses it had (and is reported to {@code onError}); a target that left
 * the SRV answer is gone. An answer too large for UDP (the server marks it truncated) is asked
 * again over TCP, so a large service is seen whole. A listener that throws is logged; resolving
 * goes on. <b>Threads.</b> Resolves on one event loop, of its own
 * unless {@link Builder#eventLoopGroup} gives one (a NIO group). Thread-safe.
 */
public final class DnsAddressSource implements AddressSource {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(DnsAddressSource.class);

  private final String name;
  private final int port; // A/AAAA: the port of each address; SRV: -1
  private final long intervalNanos;
  private final long queryTimeoutMillis;
  private final InetSocketAddress nameServer;
  private final EventLoopGroup group;
  private final boolean ownsGroup;
  private EventLoop loop;
  private DnsNameResolver resolver; // the loop only
  private Listener listener;
  private Set<SocketAddress> last;
  /** The addresses of each name at its last resolution (SRV: "target:port"); the loop only. */
  private Map<String, Set<SocketAddress>> lastByName = Map.of();
  private ScheduledFuture<?> next;
  private volatile boolean closed;

  private DnsAddressSource(Builder b) {
    this.name = b.name;
    this.port = b.port;
    this.intervalNanos = b.interval.toNanos();
    this.queryTimeoutMillis = b.queryTimeout.toMillis();
    this.nameServer = b.nameServer;
    if (b.group != null) {
      this.group = b.group;
      this.ownsGroup = false;
    } else {
      this.group =
          new MultiThreadIoEventLoopGroup(
              1, new DefaultThreadFactory("sluice-dns", true), NioIoHandler.newFactory());
      this.ownsGroup = true;
    }
  }

  /** The A and AAAA records of {@code host}, each address with {@code port}. */
  public static Builder host(String host, int port) {
    if (port <= 0 || port > 65535) {
      throw new IllegalArgumentException("port must be in 1..65535, got " + port);
    }
    return new Builder(Objects.requireNonNull(host, "host"), port);
  }

  /** The SRV records of {@code name} (e.g. {@code _rsocket._tcp.my-svc.my-ns.svc.cluster.local}). */
  public static Builder srv(String name) {
    return new Builder(Objects.requireNonNull(name, "name"), -1);
  }

  @Override
  public synchronized void start(Listener listener) {
    if (this.listener != null) {
      throw new IllegalStateException("address source already started");
    }
    this.listener = Objects.requireNonNull(listener, "listener");
    loop = group.next();
    loop.execute(
        () -> {
          if (closed) {
            return;
          }
          DnsNameResolverBuilder b =
              new DnsNameResolverBuilder(loop)
                  .datagramChannelType(NioDatagramChannel.class)
                  // An answer too large for UDP comes truncated (TC); it is then asked again over
                  // TCP instead of used as it is (a partial, changing set of a large service).
                  .socketChannelType(NioSocketChannel.class)
                  .resolveCache(NoopDnsCache.INSTANCE)
                  .queryTimeoutMillis(queryTimeoutMillis)
                  .nameServerProvider(
                      nameServer != null
                          ? new SingletonDnsServerAddressStreamProvider(nameServer)
                          : DnsServerAddressStreamProviders.platformDefault());
          resolver = b.build();
          resolveNow();
        });
  }

  private void resolveNow() {
    if (closed) {
      return;
    }
    CompletableFuture<List<Target>> f =
        port > 0
            ? addresses(name, port).handle((set, e) -> List.of(new Target(name, set, e)))
            : srvAddresses();
    f.whenComplete((targets, e) -> loop.execute(() -> resolved(targets, e)));
  }

  /**
   * One resolution done, on the loop: delivers the set if it changed, reports a failure, and
   * schedules the next one whatever the listener does.
   */
  private void resolved(List<Target> targets, Throwable failure) {
    if (closed) {
      return;
    }
    try {
      if (failure != null) {
        report(unwrap(failure));
        return;
      }
      // A name that cannot be resolved now (a timeout, a server failure) keeps the addresses it
      // had at the last resolution: a DNS hiccup on one SRV target does not drain its servers.
      Set<SocketAddress> all = new LinkedHashSet<>();
      Map<String, Set<SocketAddress>> known = new HashMap<>();
      Throwable partial = null;
      for (Target t : targets) {
        Set<SocketAddress> set = t.addresses();
        if (t.error() != null) {
          set = lastByName.get(t.key());
          if (partial == null) {
            partial = unresolved(t, unwrap(t.error()), set != null);
          }
          if (set == null) {
            continue; // never resolved: nothing to keep
          }
        }
        known.put(t.key(), set);
        all.addAll(set);
      }
      lastByName = known;
      if (all.isEmpty()) {
        report(
            partial != null
                ? partial
                : new UnknownHostException("no address for the SRV targets of " + name));
        return;
      }
      if (!all.equals(last)) {
        last = all;
        try {
          listener.onAddresses(all);
        } catch (Throwable t) {
          logger.warn("{}: the listener's onAddresses threw; resolving goes on", this, t);
        }
      }
      if (partial != null) {
        report(partial);
      }
    } finally {
      if (!closed) {
        next = loop.schedule(this::resolveNow, intervalNanos, TimeUnit.NANOSECONDS);
      }
    }
  }

  private void report(Throwable cause) {
    try {
      listener.onError(cause);
    } catch (Throwable t) {
      logger.warn("{}: the listener's onError threw; resolving goes on", this, t);
    }
  }

  private static Throwable unwrap(Throwable e) {
    return e instanceof java.util.concurrent.CompletionException && e.getCause() != null
        ? e.getCause()
        : e;
  }

  private Throwable unresolved(Target t, Throwable cause, boolean kept) {
    if (port > 0) {
      return cause; // the one name: reported as it is
    }
    UnknownHostException e =
        new UnknownHostException(
            "SRV target " + t.key() + " of " + name + " could not be resolved now"
                + (kept ? ", its last addresses are kept" : "") + ": " + cause);
    e.initCause(cause);
    return e;
  }

  /** One name resolved (an SRV target, with its port; or the host): its addresses or why not. */
  private record Target(String key, Set<SocketAddress> addresses, Throwable error) {}

  private CompletableFuture<Set<SocketAddress>> addresses(String host, int port) {
    return toFuture(resolver.resolveAll(host))
        .thenApply(
            ips -> {
              Set<SocketAddress> r = new LinkedHashSet<>();
              for (InetAddress ip : ips) {
                r.add(new Named(literal(ip), port, host));
              }
              return r;
            });
  }

  private CompletableFuture<List<Target>> srvAddresses() {
    return toFuture(resolver.resolveAll(new DefaultDnsQuestion(name, DnsRecordType.SRV)))
        .thenCompose(
            records -> {
              List<String> targets = new ArrayList<>();
              List<Integer> ports = new ArrayList<>();
              int best = Integer.MAX_VALUE;
              try {
                for (DnsRecord r : records) {
                  if (r.type() != DnsRecordType.SRV || !(r instanceof DnsRawRecord)) {
                    continue;
                  }
                  ByteBuf c = ((DnsRawRecord) r).content().duplicate();
                  int priority = c.readUnsignedShort();
                  c.readUnsignedShort(); // weight
                  int p = c.readUnsignedShort();
                  String target = DefaultDnsRecordDecoder.decodeName(c);
                  if (priority < best) {
                    best = priority;
                    targets.clear();
                    ports.clear();
                  }
                  if (priority == best) {
                    targets.add(target);
                    ports.add(p);
                  }
                }
              } finally {
                records.forEach(ReferenceCountUtil::release);
              }
              if (targets.isEmpty()) {
                return CompletableFuture.failedFuture(
                    new UnknownHostException("no SRV records for " + name));
              }
              List<CompletableFuture<Target>> each = new ArrayList<>();
              for (int i = 0; i < targets.size(); i++) {
                String key = targets.get(i) + ":" + ports.get(i);
                each.add(addresses(targets.get(i), ports.get(i)).handle((set, e) -> new Target(key, set, e)));
              }
              return CompletableFuture.allOf(each.toArray(new CompletableFuture<?>[0]))
                  .thenApply(
                      v -> {
                        List<Target> all = new ArrayList<>();
                        each.forEach(t -> all.add(t.join()));
                        return all;
                      });
            });
  }

  /**
   * The DNS name {@code address} was found under, for TLS: the name to check the server's
   * certificate against and to send as SNI ({@code
   * TcpClientTransport.create(address).withSsl(context, DnsAddressSource.serverName(address))}).
   * For a host source it is the host name; for an SRV source, the SRV target the address belongs
   * to (a trailing dot removed). Null for an address that did not come from a {@code
   * DnsAddressSource}.
   *
   * <p>The addresses themselves are IP literals ({@code getHostString()} is the IP): a connector
   * that connects by host string connects to that IP, not to whatever the name resolves to next.
   */
  public static String serverName(SocketAddress address) {
    return address instanceof Named ? ((Named) address).name : null;
  }

  /**
   * An address as delivered: an IP literal and a port, equal to any {@link InetSocketAddress} of the
   * same IP and port, which also remembers the DNS name it was found under ({@link #serverName}).
   */
  private static final class Named extends InetSocketAddress {
    private static final long serialVersionUID = 1L;
    private final String name;

    Named(InetAddress ip, int port, String name) {
      super(ip, port);
      this.name = name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
    }
  }

  /**
   * The address without the name it was resolved from: a connector that connects by host string
   * then uses the IP, not the name again (which the JVM's resolver may not know).
   */
  private static InetAddress literal(InetAddress ip) {
    try {
      return InetAddress.getByAddress(ip.getAddress());
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e); // not for an address of a valid length
    }
  }

  private static <T> CompletableFuture<T> toFuture(Future<T> f) {
    CompletableFuture<T> r = new CompletableFuture<>();
    f.addListener(
        x -> {
          if (x.isSuccess()) {
            r.complete(f.getNow());
          } else {
            r.completeExceptionally(x.cause());
          }
        });
    return r;
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    if (loop == null) {
      if (ownsGroup) {
        group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      }
      return;
    }
    loop.execute(
        () -> {
          if (next != null) {
            next.cancel(false);
          }
          if (resolver != null) {
            resolver.close();
          }
          if (ownsGroup) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
          }
        });
  }

  @Override
  public String toString() {
    return "DnsAddressSource(" + (port > 0 ? name + ":" + port : "SRV " + name) + ")";
  }

  /** Builds a {@link DnsAddressSource}. */
  public static final class Builder {
    private final String name;
    private final int port;
    private Duration interval = Duration.ofSeconds(1);
    private Duration queryTimeout = Duration.ofSeconds(2);
    private InetSocketAddress nameServer;
    private EventLoopGroup group;

    private Builder(String name, int port) {
      this.name = name;
      this.port = port;
    }

    /** Time between the end of one resolution and the next (default 1 s). */
    public Builder interval(Duration interval) {
      if (interval.toMillis() < 10) {
        throw new IllegalArgumentException("interval must be at least 10 ms: " + interval);
      }
      this.interval = interval;
      return this;
    }

    /** Longest wait for one DNS answer (default 2 s). */
    public Builder queryTimeout(Duration timeout) {
      if (timeout.toMillis() <= 0) {
        throw new IllegalArgumentException("query timeout must be positive: " + timeout);
      }
      this.queryTimeout = timeout;
      return this;
    }

    /** Asks this name server (default: the system's, from /etc/resolv.conf). */
    public Builder nameServer(InetSocketAddress server) {
      this.nameServer = Objects.requireNonNull(server, "server");
      return this;
    }

    /** Resolves on a loop of {@code group}, a NIO group (default: one thread of its own). */
    public Builder eventLoopGroup(EventLoopGroup group) {
      this.group = Objects.requireNonNull(group, "group");
      return this;
    }

    public DnsAddressSource build() {
      return new DnsAddressSource(this);
    }
  }
}
