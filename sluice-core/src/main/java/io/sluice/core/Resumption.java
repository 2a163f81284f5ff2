package io.sluice.core;

import java.time.Duration;
import java.util.Objects;

/**
 * Session resumption (RSocket RESUME): a connection whose transport dies is kept for {@link
 * #sessionTimeout()} while the client reconnects through the same {@code ClientTransport}; both
 * sides then replay what the other did not receive, so no stream breaks. A client asks for it with
 * {@link ClientSetup#resumable(Resumption)}; a server offers it with {@link
 * ConnectionOptions.Builder#resumption(Resumption)}. What is and is not guaranteed:
 * docs/guide/resumption.md; the bounds: docs/limits.md.
 *
 * <p><b>Threads.</b> Immutable; the {@link Listener} is called on the connection's event loop.
 */
public final class Resumption {
  /** Default per-session store of sent, unacknowledged frames (bytes). */
  public static final long DEFAULT_MAX_STORE_BYTES = 4L * 1024 * 1024;
  /** The largest per-session store a session may be given (bytes). */
  public static final long MAX_STORE_BYTES = 256L * 1024 * 1024;
  /** The smallest per-session store (bytes): twice the acknowledgement step, see limits.md. */
  public static final long MIN_STORE_BYTES = 256L * 1024;

  private final Duration sessionTimeout;
  private final long maxStoreBytes;
  private final Duration minBackoff;
  private final Duration maxBackoff;
  private final int maxSessions;
  private final long maxTotalStoreBytes;
  private final int maxFailedResumesPerSecond;
  private final int maxFailedResumesPerSecondPerAddress;
  private final Listener listener;

  private Resumption(Builder b) {
    this.sessionTimeout = b.sessionTimeout;
    this.maxStoreBytes = b.maxStoreBytes;
    this.minBackoff = b.minBackoff;
    this.maxBackoff = b.maxBackoff;
    this.maxSessions = b.maxSessions;
    this.maxTotalStoreBytes = b.maxTotalStoreBytes;
    this.maxFailedResumesPerSecond = b.maxFailedResumesPerSecond;
    this.maxFailedResumesPerSecondPerAddress = b.maxFailedResumesPerSecondPerAddress;
    this.listener = b.listener;
  }

  /** The defaults of docs/limits.md. */
  public static Resumption defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * How long a session outlives its transport: the client tries to resume for this long, the
   * server keeps the session (its streams and its store) for this long, then drops it and fails
   * its streams.
   */
  public Duration sessionTimeout() {
    return sessionTimeout;
  }

  /**
   * Bytes of sent frames one session keeps until the peer acknowledges them. Producers are paused
   * at half of it; a session that would go past it (frames that flow control does not bound) is
   * ended with a clear error rather than grown.
   */
  public long maxStoreBytes() {
    return maxStoreBytes;
  }

  /** Client: the first reconnect delay; each failed attempt doubles it up to {@link #maxBackoff()}. */
  public Duration minBackoff() {
    return minBackoff;
  }

  public Duration maxBackoff() {
    return maxBackoff;
  }

  /** Server: the most resumable sessions (connected or waiting) at once; more SETUPs are refused. */
  public int maxSessions() {
    return maxSessions;
  }

  /** Server: the bytes all its sessions' stores may hold together. */
  public long maxTotalStoreBytes() {
    return maxTotalStoreBytes;
  }

  /** Server: failed RESUMEs per second, server-wide, past which RESUMEs are refused unchecked. */
  public int maxFailedResumesPerSecond() {
    return maxFailedResumesPerSecond;
  }

  /** Server: failed RESUMEs per second from one remote address, past which it is refused. */
  public int maxFailedResumesPerSecondPerAddress() {
    return maxFailedResumesPerSecondPerAddress;
  }

  /** Client: told of cuts, resumes and the end of trying. */
  public Listener listener() {
    return listener;
  }

  /** What a client's session reports; every method is called on the connection's event loop. */
  public interface Listener {
    /** The transport was lost; the client starts reconnecting. */
    default void disconnected(Throwable cause) {}

    /** The session resumed on a new transport; {@code count} is 1 for the first resume. */
    default void resumed(int count) {}

    /** The session could not be resumed (refused, or not within the timeout); it is closed. */
    default void resumeFailed(Throwable cause) {}
  }

  /** Builder; every setter checks its argument. */
  public static final class Builder {
    private Duration sessionTimeout = Duration.ofSeconds(60);
    private long maxStoreBytes = DEFAULT_MAX_STORE_BYTES;
    private Duration minBackoff = Duration.ofMillis(50);
    private Duration maxBackoff = Duration.ofSeconds(5);
    private int maxSessions = 10_000;
    private long maxTotalStoreBytes = 512L * 1024 * 1024;
    private int maxFailedResumesPerSecond = 100;
    private int maxFailedResumesPerSecondPerAddress = 5;
    private Listener listener = new Listener() {};

    private Builder() {}

    public Builder sessionTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.toMillis() <= 0) {
        throw new IllegalArgumentException("sessionTimeout must be positive: " + timeout);
      }
      this.sessionTimeout = timeout;
      return this;
    }

    public Builder maxStoreBytes(long bytes) {
      if (bytes < MIN_STORE_BYTES || bytes > MAX_STORE_BYTES) {
        throw new IllegalArgumentException(
            "maxStoreBytes must be within [" + MIN_STORE_BYTES + ", " + MAX_STORE_BYTES + "]: " + bytes);
      }
      this.maxStoreBytes = bytes;
      return this;
    }

    public Builder backoff(Duration min, Duration max) {
      if (min.toMillis() <= 0 || max.compareTo(min) < 0) {
        throw new IllegalArgumentException("backoff needs 0 < min <= max: " + min + ", " + max);
      }
      this.minBackoff = min;
      this.maxBackoff = max;
      return this;
    }

    public Builder maxSessions(int sessions) {
      if (sessions <= 0) {
        throw new IllegalArgumentException("maxSessions must be positive: " + sessions);
      }
      this.maxSessions = sessions;
      return this;
    }

    public Builder maxTotalStoreBytes(long bytes) {
      if (bytes < MIN_STORE_BYTES) {
        throw new IllegalArgumentException("maxTotalStoreBytes below " + MIN_STORE_BYTES + ": " + bytes);
      }
      this.maxTotalStoreBytes = bytes;
      return this;
    }

    public Builder maxFailedResumesPerSecond(int serverWide, int perAddress) {
      if (serverWide <= 0 || perAddress <= 0) {
        throw new IllegalArgumentException("failed-resume rates must be positive");
      }
      this.maxFailedResumesPerSecond = serverWide;
      this.maxFailedResumesPerSecondPerAddress = perAddress;
      return this;
    }

    public Builder listener(Listener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    public Resumption build() {
      return new Resumption(this);
    }
  }
}
