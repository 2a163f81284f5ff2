package io.sluice.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;

/**
 * A loopback TCP port where nothing listens, kept that way until {@link #close()}: a socket is
 * bound to it without listening. A connect to it is refused (the SYN is answered by a reset).
 *
 * <p>Why not "bind a server, close it, connect to its port": a port just freed can come back as
 * the connecting socket's own ephemeral port, and Linux then connects the socket to itself (TCP
 * self-connect), so the connect that should fail succeeds. A port held by a bound socket is never
 * handed out as a connecting socket's ephemeral port.
 */
public final class ClosedPort implements AutoCloseable {
  private final Socket holder;

  private ClosedPort(Socket holder) {
    this.holder = holder;
  }

  /** A fresh port on 127.0.0.1 where nothing listens. */
  public static ClosedPort any() {
    return hold(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
  }

  /**
   * Holds {@code address} (a port a test's server listened on and has stopped listening on) so
   * that it stays closed. Fails if another socket took the port in between.
   */
  public static ClosedPort hold(SocketAddress address) {
    Socket s = new Socket();
    try {
      // SO_REUSEADDR: the port may still carry connections the closed server accepted (they keep
      // it bound; a bind without the option would fail). A bound, non-listening socket is enough:
      // Linux never picks a port that bind() holds as a connecting socket's ephemeral port.
      s.setReuseAddress(true);
      s.bind(address);
      return new ClosedPort(s);
    } catch (IOException e) {
      try {
        s.close();
      } catch (IOException ignored) {
        // nothing to keep
      }
      throw new UncheckedIOException("cannot hold " + address + " closed", e);
    }
  }

  /** The port. */
  public int port() {
    return holder.getLocalPort();
  }

  /** The held address. */
  public InetSocketAddress address() {
    return (InetSocketAddress) holder.getLocalSocketAddress();
  }

  /** Frees the port. */
  @Override
  public void close() {
    try {
      holder.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
