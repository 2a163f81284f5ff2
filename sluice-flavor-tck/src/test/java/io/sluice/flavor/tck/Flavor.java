package io.sluice.flavor.tck;

import io.sluice.Requester;
import io.sluice.Responder;

/**
 * One API flavor as the shared suite drives it: a server that implements {@link Contract} with the
 * flavor's own server API, and a client facade over the flavor's own client API. Both meet the
 * other side only through the core SPI, so any client flavor can be paired with any server flavor.
 */
interface Flavor {
  String name();

  /** The core responder that serves {@link Contract} through this flavor's server API. */
  Responder server(ServerProbe probe);

  /** As {@link #server(ServerProbe)}, for the connection {@code connection} (its requester). */
  default Responder server(ServerProbe probe, Requester connection) {
    return server(probe);
  }

  /** Skips the test (a JUnit assumption) where this JVM cannot run the flavor at all. */
  default void assumeRunnable() {}

  /** This flavor's client API over {@code requester}, behind the suite's facade. */
  Client client(Requester requester);

  /**
   * How many messages this flavor's client may let the server send ahead of what the test asked
   * for: 0 where the test controls demand exactly, the prefetch where an iterator grants credit
   * ahead of consumption.
   */
  default long maxAhead() {
    return 0;
  }
}
