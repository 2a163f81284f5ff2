package io.sluice.rpc;

/**
 * Observes calls (metrics, tracing, logs). {@link #onCallStart} is called when a call starts; the
 * returned {@link CallObserver} then sees its first response and its end. Called on the
 * connection's event loop: keep it cheap and never block. Exceptions thrown here are ignored.
 *
 * <p>More exactly: a server calls {@link #onCallStart} on the event loop, but the observer's
 * callbacks run on the thread that sends the first response or ends the call, which may be the
 * handler's own; a client calls {@link #onCallStart} on the thread that subscribes to the call, and
 * a client-side deadline ends it on a Reactor timer thread. One call's callbacks may thus come on
 * different threads. Holds no buffers: it sees call metadata, method descriptors and statuses only.
 */
@FunctionalInterface
public interface RpcInstrumentation {

  /** Observes nothing. */
  RpcInstrumentation NONE = (metadata, method) -> CallObserver.NONE;

  /**
   * A call started.
   *
   * @param metadata what the call carried (service, method, headers, deadline, ...)
   * @param method the method, or null when no such method exists (the call then ends with
   *     UNIMPLEMENTED)
   */
  CallObserver onCallStart(CallMetadata metadata, MethodDescriptor<?, ?> method);

  /** Follows one call. */
  interface CallObserver {
    /** Observes nothing. */
    CallObserver NONE = new CallObserver() {};

    /**
     * Whether this observer wants {@link #onFirstResponse}: true unless overridden. A transport
     * asks before it reads the clock for the first response, so an observer that has no use for
     * it (the duration meters of sluice-micrometer, say) saves a clock read per call by answering
     * false. Asked when a response is sent (for each one while the answer is false); the answer
     * must not change during a call. An observer that forwards to others answers true when any of
     * them does.
     */
    default boolean observesFirstResponse() {
      return true;
    }

    /**
     * The first response message was sent (not called for calls without one, nor when {@link
     * #observesFirstResponse} is false).
     */
    default void onFirstResponse(long nanosSinceStart) {}

    /**
     * A request message of {@code bytes} bytes arrived (the serialized message as it came, without
     * the transport's framing: the RSocket data, or the gRPC message after its 5-byte prefix).
     */
    default void onMessageReceived(int bytes) {}

    /** A response message of {@code bytes} bytes is being sent (as {@link #onMessageReceived}). */
    default void onMessageSent(int bytes) {}

    /**
     * The call ended: {@link Status.Code#OK} on completion, {@link Status.Code#CANCELLED} when the
     * caller cancelled, {@link Status.Code#DEADLINE_EXCEEDED} when its deadline passed, the error's
     * status otherwise.
     */
    default void onEnd(Status status, long nanosSinceStart) {}
  }
}
