package io.sluice.transport.netty.internal;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.dns.DnsAddressResolverGroup;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.DnsServerAddressStreamProvider;
import io.netty.resolver.dns.DnsServerAddressStreamProviders;
import io.sluice.transport.netty.IoMode;
import java.net.InetSocketAddress;
import java.util.EnumMap;
import java.util.Map;

/**
 * How the client transports turn a host name into an address: netty's asynchronous DNS resolver
 * (the hosts file, then the name servers and search domains of {@code /etc/resolv.conf}, answers
 * cached by their TTL, a truncated UDP answer asked again over TCP), which resolves on the
 * connecting channel's event loop without blocking it. netty's default would call the JDK's
 * blocking resolver on that loop, stalling every connection on it for as long as DNS takes (seconds
 * when a name server does not answer). One group per I/O engine, since its UDP and TCP channels must
 * be of the loop's engine; each keeps one resolver per event loop, closed when that loop ends.
 */
public final class Resolvers {
  private Resolvers() {}

  private static final Map<IoMode, AddressResolverGroup<InetSocketAddress>> BY_ENGINE =
      new EnumMap<>(IoMode.class);

  /** The resolver for channels on {@code group}'s loops. */
  public static AddressResolverGroup<InetSocketAddress> forGroup(EventLoopGroup group) {
    IoMode mode = EventLoops.modeOf(group);
    synchronized (BY_ENGINE) {
      return BY_ENGINE.computeIfAbsent(
          mode, m -> create(m, DnsServerAddressStreamProviders.platformDefault()));
    }
  }

  /** A resolver for channels of {@code mode}'s engine that asks {@code nameServers}. */
  public static AddressResolverGroup<InetSocketAddress> create(
      IoMode mode, DnsServerAddressStreamProvider nameServers) {
    DnsNameResolverBuilder b =
        new DnsNameResolverBuilder()
            .datagramChannelType(EventLoops.datagramChannel(mode))
            .socketChannelType(EventLoops.socketChannel(mode).asSubclass(SocketChannel.class))
            .nameServerProvider(nameServers);
    return new DnsAddressResolverGroup(b);
  }
}
