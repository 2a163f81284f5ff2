package io.sluice.rpc;

/**
 * How a server transport reports its calls to an {@link RpcInstrumentation}: the same for every
 * transport (RSocket, gRPC), and safe: an exception thrown by the instrumentation is ignored, and
 * the clock is read only when something observes (for a first response, only when the observer
 * {@linkplain RpcInstrumentation.CallObserver#observesFirstResponse wants one}).
 *
 * <p>Stateless: safe from any thread. Holds no buffers.
 */
public final class CallObservation {
  private CallObservation() {}

  /** The start time of a call observed by {@code instrumentation}: 0 when nothing observes. */
  public static long startNanos(RpcInstrumentation instrumentation) {
    return instrumentation == RpcInstrumentation.NONE ? 0 : System.nanoTime();
  }

  /**
   * Starts observing a call ({@code method} null for a method that does not exist); never null.
   */
  public static RpcInstrumentation.CallObserver start(
      RpcInstrumentation instrumentation, CallMetadata metadata, MethodDescriptor<?, ?> method) {
    if (instrumentation == RpcInstrumentation.NONE) {
      return RpcInstrumentation.CallObserver.NONE;
    }
    try {
      RpcInstrumentation.CallObserver o = instrumentation.onCallStart(metadata, method);
      return o == null ? RpcInstrumentation.CallObserver.NONE : o;
    } catch (RuntimeException e) {
      return RpcInstrumentation.CallObserver.NONE;
    }
  }

  /**
   * Whether {@code observer} wants {@link #firstResponse} (false for {@code NONE} and when it
   * throws): a transport that tracks whether a call's first response went out needs not track it
   * otherwise.
   */
  public static boolean observesFirstResponse(RpcInstrumentation.CallObserver observer) {
    if (observer == RpcInstrumentation.CallObserver.NONE) {
      return false;
    }
    try {
      return observer.observesFirstResponse();
    } catch (RuntimeException e) {
      return false; // instrumentation must not break calls
    }
  }

  /**
   * The call sent its first response: the clock is read only when {@code observer} {@linkplain
   * RpcInstrumentation.CallObserver#observesFirstResponse wants it}.
   */
  public static void firstResponse(RpcInstrumentation.CallObserver observer, long startNanos) {
    if (observer == RpcInstrumentation.CallObserver.NONE) {
      return;
    }
    try {
      if (!observer.observesFirstResponse()) {
        return;
      }
      observer.onFirstResponse(System.nanoTime() - startNanos);
    } catch (RuntimeException ignored) {
      // Instrumentation must not break calls.
    }
  }

  /** The call received a request message of {@code bytes} bytes. */
  public static void messageReceived(RpcInstrumentation.CallObserver observer, int bytes) {
    if (observer == RpcInstrumentation.CallObserver.NONE) {
      return;
    }
    try {
      observer.onMessageReceived(bytes);
    } catch (RuntimeException ignored) {
      // Instrumentation must not break calls.
    }
  }

  /** The call is sending a response message of {@code bytes} bytes. */
  public static void messageSent(RpcInstrumentation.CallObserver observer, int bytes) {
    if (observer == RpcInstrumentation.CallObserver.NONE) {
      return;
    }
    try {
      observer.onMessageSent(bytes);
    } catch (RuntimeException ignored) {
      // Instrumentation must not break calls.
    }
  }

  /** The call ended with {@code status}. */
  public static void end(RpcInstrumentation.CallObserver observer, Status status, long startNanos) {
    if (observer == RpcInstrumentation.CallObserver.NONE) {
      return;
    }
    try {
      observer.onEnd(status, System.nanoTime() - startNanos);
    } catch (RuntimeException ignored) {
      // Instrumentation must not break calls.
    }
  }
}
