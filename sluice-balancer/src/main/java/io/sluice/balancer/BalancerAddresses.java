package io.sluice.balancer;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/** Formatting and parsing of server addresses. */
final class BalancerAddresses {
  private BalancerAddresses() {}

  /** {@code host:port} (the address as given, without a resolved IP alongside). */
  static String format(SocketAddress address) {
    if (address instanceof InetSocketAddress) {
      InetSocketAddress a = (InetSocketAddress) address;
      // A resolved address by its IP (DNS gives many under one name), else as it was given.
      String host = a.isUnresolved() ? a.getHostString() : a.getAddress().getHostAddress();
      return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
    }
    return String.valueOf(address);
  }
}
