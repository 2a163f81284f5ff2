package io.sluice.rpc;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

/**
 * The status a server ends a call with when the method's handler, an interceptor or a call
 * listener fails with an exception: every transport (RSocket, gRPC, gRPC-Web, HTTP/JSON) and every
 * flavor uses it, so they all answer alike.
 *
 * <p>A {@link StatusException} anywhere in the cause chain is the handler's choice: its status is
 * sent as it is. Any other exception is unexpected: it is logged here (WARN, with the method's
 * name and the stack trace; at most {@value #LOGGED_PER_WINDOW} a minute server-wide, the next one
 * written says how many were left out, so a client that makes every call fail cannot flood the
 * log) and the caller gets {@link Status.Code#UNKNOWN} with no description,
 * because an exception's text can name hosts, users, paths or SQL. {@link
 * ServerInterceptors#exposeErrorMessages()} sends the text instead, for services that want it.
 *
 * <p>Stateless and thread-safe. Holds no buffers.
 */
public final class HandlerFailures {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(HandlerFailures.class);
  /** Stack traces written per minute, server-wide. */
  static final int LOGGED_PER_WINDOW = 20;

  private static final LogBudget budget = new LogBudget(LOGGED_PER_WINDOW, 60_000_000_000L);

  private HandlerFailures() {}

  /**
   * The status to end a call of {@code method} with, which failed with {@code t}: {@link
   * Status#fromThrowable}, whose {@link Status#cause()} is {@code t} when no {@link StatusException}
   * was found (then {@code t} is logged).
   */
  public static Status status(MethodDescriptor<?, ?> method, Throwable t) {
    Status s = Status.fromThrowable(t);
    if (t != null && s.cause() == t && logger.isWarnEnabled()) {
      long left = budget.admit(System.nanoTime());
      if (left != LogBudget.SUPPRESSED) {
        logger.warn(
            "{} failed; the caller gets UNKNOWN without the exception's text{}",
            method == null ? "an RPC call" : method.fullName(),
            left == 0 ? "" : " (" + left + " such failures before this one were not logged)",
            t);
      }
    }
    return s;
  }

  /**
   * The trailers to end the call with for {@code t}: those of the first {@link StatusException} in
   * its cause chain ({@link StatusException#trailers()}), {@link Headers#EMPTY} otherwise.
   */
  public static Headers trailers(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof StatusException) {
        return ((StatusException) c).trailers();
      }
    }
    return Headers.EMPTY;
  }

  /**
   * Ends {@code call}, which failed with {@code t}: {@link #status} and, when it carries some,
   * {@link #trailers}.
   */
  public static void close(ServerCall<?, ?> call, Throwable t) {
    Status s = status(call.method(), t);
    Headers trailers = trailers(t);
    if (trailers.isEmpty()) {
      call.close(s);
    } else {
      call.close(s, trailers);
    }
  }
}
