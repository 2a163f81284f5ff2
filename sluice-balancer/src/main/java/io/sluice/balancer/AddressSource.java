package io.sluice.balancer;

import java.net.SocketAddress;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Where a {@link Balancer} learns the servers it may use: a source delivers the whole current set
 * of addresses, again each time it changes. The balancer connects to an address that appears and
 * drains one that disappears (no new requests; live streams finish; then a graceful close).
 *
 * <p>Implementations: {@link #fixed} (a static list), {@link #manual} (sets pushed by the
 * application or a test), {@link DnsAddressSource} (A/AAAA or SRV records, re-resolved on an
 * interval), or your own.
 *
 * <p><b>Threads.</b> {@link #start} is called once; the listener may be called from any thread,
 * one call at a time, and must not block.
 */
public interface AddressSource extends AutoCloseable {

  /** Receives address sets. */
  @FunctionalInterface
  interface Listener {
    /** The complete current set (not a delta). An empty set means: no server now. */
    void onAddresses(Set<SocketAddress> addresses);

    /**
     * The source could not refresh (a DNS timeout, ...): the balancer keeps the last set. The
     * default ignores it.
     */
    default void onError(Throwable cause) {}
  }

  /** Starts delivering sets to {@code listener}; the current set, if known, at once. Once. */
  void start(Listener listener);

  /** Stops delivering; releases what the source holds (timers, a resolver). Idempotent. */
  @Override
  void close();

  /** A static set of addresses. */
  static AddressSource fixed(Collection<? extends SocketAddress> addresses) {
    ManualAddressSource source = new ManualAddressSource();
    source.update(addresses);
    return source;
  }

  /** A static set of addresses. */
  static AddressSource fixed(SocketAddress... addresses) {
    return fixed(List.of(addresses));
  }

  /** The A/AAAA records of {@code host}, each with {@code port}, re-resolved every second. */
  static AddressSource dns(String host, int port) {
    return DnsAddressSource.host(host, port).build();
  }

  /** The SRV records of {@code name}, re-resolved every second. */
  static AddressSource dnsSrv(String name) {
    return DnsAddressSource.srv(name).build();
  }

  /** A source whose sets the application pushes with {@link ManualAddressSource#update}. */
  static ManualAddressSource manual() {
    return new ManualAddressSource();
  }
}
