package io.sluice.transport.grpc;

import java.util.Objects;

/**
 * The console page a gRPC server (or the one-port server) serves at {@code /console/} when asked
 * ({@link GrpcServices#withConsole}): the services and methods it serves with their messages'
 * fields, a form that calls a method with JSON through the server's HTTP/JSON route and shows the
 * answer or the status, and live figures ({@link ConsoleFigures}). Static HTML, CSS and
 * JavaScript from this jar; nothing loaded from elsewhere.
 *
 * <p>Off unless asked for. Answers clients on a loopback address only (127.0.0.0/8, ::1) unless
 * {@link #withRemoteAccess} says otherwise: any other gets 403, since the page calls every method
 * the server has. Immutable.
 */
public final class Console {
  private final boolean remoteAccess;
  private final ConsoleFigures figures; // null: the console's own

  private Console(boolean remoteAccess, ConsoleFigures figures) {
    this.remoteAccess = remoteAccess;
    this.figures = figures;
  }

  /** Loopback clients only; the figures counted by the console itself. */
  public static Console create() {
    return new Console(false, null);
  }

  /**
   * Whether clients on other addresses may use the console too. Leave it off unless something in
   * front (a proxy with authentication) decides who reaches the port: the page calls any method.
   */
  public Console withRemoteAccess(boolean remoteAccess) {
    return new Console(remoteAccess, figures);
  }

  /** Shows {@code figures} instead of the console's own counts. */
  public Console withFigures(ConsoleFigures figures) {
    return new Console(remoteAccess, Objects.requireNonNull(figures, "figures"));
  }

  /** True when clients off loopback are served. */
  public boolean remoteAccess() {
    return remoteAccess;
  }

  /** The figures given to {@link #withFigures}, or null for the console's own. */
  public ConsoleFigures figures() {
    return figures;
  }
}
