package io.sluice;

/**
 * What a client declared in its SETUP frame, as the server's acceptor sees it. The payload is
 * owned by the core and valid only during the acceptor call; retain it to keep it longer.
 *
 * <p><b>Threads.</b> Read it on the connection's event loop, during the acceptor call (where the
 * core hands it over); it is not meant to be kept or shared.
 */
public interface SetupInfo {
  int majorVersion();

  int minorVersion();

  /** Client's keepalive interval in milliseconds. */
  int keepAliveIntervalMillis();

  /** Client's max lifetime in milliseconds: silence longer than this ends the connection. */
  int keepAliveMaxLifetimeMillis();

  String metadataMimeType();

  String dataMimeType();

  /** True if the client asked for leasing (L flag). */
  boolean leaseRequested();

  /** The SETUP payload (data and optional metadata). */
  Message payload();
}
