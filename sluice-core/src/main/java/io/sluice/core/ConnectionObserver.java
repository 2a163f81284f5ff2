package io.sluice.core;

/**
 * Told when a connection opens and when it has closed, and given the connection's {@link
 * ConnectionStats}, which the engine keeps up to date in plain fields on the connection's event
 * loop. Set with {@link ConnectionOptions.Builder#observer(ConnectionObserver)}; without one (the
 * default) the engine keeps no counts and its per-frame path is a null check.
 *
 * <p>This is how a metrics binding (sluice-micrometer) sees the engine: it keeps the stats of open
 * connections, reads them when it is scraped, and folds those of a closed connection into a
 * retired total in {@link #closed}.
 *
 * <p><b>Threads.</b> Both methods are called on the connection's event loop, from many loops at
 * once: implementations are thread-safe and must not block. {@link #closed} is called once for
 * each {@link #opened}, after every stream of the connection has ended; the stats no longer
 * change after it.
 */
public interface ConnectionObserver {

  /** The connection started (a client sent SETUP, a server began waiting for it). */
  void opened(ConnectionStats stats);

  /** The connection closed; {@link ConnectionStats#closeCause()} says why. */
  void closed(ConnectionStats stats);
}
