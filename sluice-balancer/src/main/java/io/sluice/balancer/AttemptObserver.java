package io.sluice.balancer;

import java.net.SocketAddress;

/**
 * Sees the attempts of the calls that go through a {@link Balancer} ({@link
 * Balancer.Builder#attemptObserver}): for tracing (each attempt a span under the call's span, as
 * sluice-opentelemetry's {@code SluiceTracing.balancerAttempts()} does) or for counting retries.
 *
 * <p><b>Threads.</b> {@link #onCall} runs on the thread that hands the call to the balancer (where
 * an RPC client's call context is current); {@link Call#onAttempt} and {@link Attempt#onEnd} run
 * on whatever thread sends or ends the attempt. Keep them cheap and never block; an exception
 * thrown from them is ignored. Holds no buffers: it never sees a request.
 */
public interface AttemptObserver {
  /** Observes nothing (the default): the balancer then makes no observer calls at all. */
  AttemptObserver NONE = () -> null;

  /** A call enters the balancer; returns what follows its attempts, or null to follow none. */
  Call onCall();

  /** Follows one call. */
  interface Call {
    /**
     * Attempt {@code previousAttempts + 1} goes to {@code server}; returns what hears its end, or
     * null.
     */
    Attempt onAttempt(int previousAttempts, SocketAddress server);
  }

  /** Hears one attempt's end. */
  interface Attempt {
    /**
     * The attempt ended: {@code error} null when the server answered (or the caller ended the
     * call), else why it failed; {@code retried} when the balancer sends the call again elsewhere.
     */
    void onEnd(Throwable error, boolean retried);
  }
}
