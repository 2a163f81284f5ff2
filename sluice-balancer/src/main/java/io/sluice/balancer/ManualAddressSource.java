package io.sluice.balancer;

import java.net.SocketAddress;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

/**
 * An {@link AddressSource} fed by the application: each {@link #update} replaces the set. Useful
 * for tests and for bridging a discovery system of your own. Thread-safe.
 */
public final class ManualAddressSource implements AddressSource {
  private Set<SocketAddress> current; // guarded by this; null until the first update
  private Listener listener; // guarded by this
  private boolean closed; // guarded by this

  ManualAddressSource() {}

  /** Replaces the set; the balancer is told at once (or at {@link #start}, if not started). */
  public void update(Collection<? extends SocketAddress> addresses) {
    Set<SocketAddress> copy = Set.copyOf(new LinkedHashSet<>(Objects.requireNonNull(addresses)));
    synchronized (this) {
      if (closed) {
        return;
      }
      current = copy;
      if (listener != null) {
        // Called under the lock: sets reach the listener one at a time and in order.
        listener.onAddresses(copy);
      }
    }
  }

  @Override
  public synchronized void start(Listener listener) {
    if (this.listener != null) {
      throw new IllegalStateException("address source already started");
    }
    this.listener = Objects.requireNonNull(listener, "listener");
    if (current != null && !closed) {
      listener.onAddresses(current);
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    listener = null;
  }

  @Override
  public synchronized String toString() {
    return "AddressSource" + (current == null ? "[]" : current.toString());
  }
}
