package io.sluice.core;

import io.sluice.Acceptor;
import io.sluice.internal.ResumeGate;
import io.sluice.internal.ResumeSessions;
import io.sluice.internal.SluiceConnection;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.ServerTransport;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A listening server that knows its live connections, so that it can be stopped gracefully: made
 * by {@link Connections#start}. {@link #stop(Duration)} is what a rolling restart calls.
 *
 * <p><b>Threads.</b> Every method may be called from any thread and never blocks; the future of
 * {@link #stop} may complete on a connection's event loop.
 */
public final class SluiceServer implements ServerTransport.Bound {
  private final ConnectionOptions options;
  private final Acceptor acceptor;
  private final ResumeSessions sessions;
  /** Live connections; guarded by itself, with {@link #stopping} and {@link #grace}. */
  private final Set<SluiceConnection> live = new HashSet<>();
  private boolean stopping;
  private Duration grace;
  private final CompletableFuture<Void> connectionsClosed = new CompletableFuture<>();
  /** The transport's own stop ({@link ServerTransport.Bound#stop}): its listener and what it serves itself. */
  private final CompletableFuture<Void> transportStopped = new CompletableFuture<>();
  private volatile ServerTransport.Bound bound;

  SluiceServer(ConnectionOptions options, Acceptor acceptor) {
    this.options = options;
    this.acceptor = acceptor;
    this.sessions = options.resumption() != null ? new ResumeSessions(options.resumption()) : null;
  }

  void bound(ServerTransport.Bound bound) {
    this.bound = bound;
  }

  /** An accepted connection, on its event loop. */
  void onConnection(DuplexTransport t) {
    if (sessions != null) {
      ResumeGate.serve(t, options, acceptor, sessions, this::track);
      return;
    }
    SluiceConnection c = Connections.serveOne(t, options, acceptor);
    if (c != null) {
      track(c);
    }
  }

  /**
   * The server's resumable sessions (null without {@link ConnectionOptions#resumption()}), for
   * metrics and tests.
   */
  public ResumeSessions resumeSessions() {
    return sessions;
  }

  private void track(SluiceConnection c) {
    Duration drainNow;
    synchronized (live) {
      live.add(c);
      drainNow = stopping ? grace : null;
    }
    c.onClose().whenComplete((v, e) -> closed(c));
    if (drainNow != null) {
      c.drain(drainNow); // accepted while the listener was closing
    }
  }

  private void closed(SluiceConnection c) {
    boolean done;
    synchronized (live) {
      live.remove(c);
      done = stopping && live.isEmpty();
    }
    if (done) {
      connectionsClosed.complete(null);
    }
  }

  /** Live connections now. */
  public int connections() {
    synchronized (live) {
      return live.size();
    }
  }

  /**
   * Stops the server gracefully: stops accepting at once, and on every live connection sends a
   * LEASE of 0 requests (on a connection that leases: its client stops sending there at once, its
   * availability drops to 0) and ERROR[CONNECTION_CLOSE], refuses new streams and lets the live
   * ones finish; a connection whose streams are still live after {@code grace} is closed then.
   * With resumption, every RESUME is refused from now on, and a session whose streams have ended
   * ends when its client closes, or when it is waiting without a transport.
   * The transport stops what it serves itself with the same grace ({@link
   * ServerTransport.Bound#stop}: the gRPC calls of a multiprotocol server, say). Calling it again
   * returns the same future and changes nothing.
   *
   * @return completes once the listener (its address free to bind again), every connection and
   *     what the transport serves itself have closed; it may complete on an event loop, so never
   *     block an event loop waiting for it
   * @throws IllegalArgumentException if {@code grace} is negative
   */
  public CompletableFuture<Void> stop(Duration grace) {
    Objects.requireNonNull(grace, "grace");
    if (grace.isNegative()) {
      throw new IllegalArgumentException("grace must not be negative: " + grace);
    }
    List<SluiceConnection> draining;
    synchronized (live) {
      if (!stopping) {
        stopping = true;
        this.grace = grace;
        draining = new ArrayList<>(live);
      } else {
        draining = null;
      }
    }
    if (draining != null) {
      if (sessions != null) {
        sessions.stopping(); // no RESUME from now on: see ResumeSessions.stopping
      }
      bound.stop(grace).whenComplete((v, e) -> transportStopped.complete(null));
      for (SluiceConnection c : draining) {
        c.drain(grace);
      }
      synchronized (live) {
        if (live.isEmpty()) {
          connectionsClosed.complete(null);
        }
      }
    }
    return CompletableFuture.allOf(connectionsClosed, transportStopped, bound.onClose());
  }

  /** {@link #stop} with {@link ConnectionOptions#drainTimeout()} as the grace, without waiting. */
  @Override
  public void close() {
    stop(options.drainTimeout());
  }

  @Override
  public SocketAddress address() {
    return bound.address();
  }

  /** Completes once the listener is closed (the connections may still drain: see {@link #stop}). */
  @Override
  public CompletableFuture<Void> onClose() {
    return bound.onClose();
  }

  @Override
  public String toString() {
    return "SluiceServer at " + bound.address() + " (" + connections() + " connections)";
  }
}
