package io.sluice.transport.grpc.internal;

import io.netty.util.AttributeKey;

/**
 * The bytes the calls of one connection may hold together in request messages they are reading
 * (begun, not yet whole): each call's own limit is the message size limit, so without a budget a
 * connection could hold {@code maxConcurrentStreams} messages at the limit. A {@link
 * MessageDeframer} reserves each byte it takes into a message and gives its reservation back when
 * the message is whole or the call ends; a reservation beyond the budget fails that call.
 *
 * <p><b>Threads.</b> One connection's event loop (not thread-safe).
 */
public final class ReadBudget {
  /** The budget of a connection, kept on its channel. */
  static final AttributeKey<ReadBudget> KEY = AttributeKey.valueOf(ReadBudget.class, "grpcReadBudget");

  /** No budget beyond each call's own limit (for tests of one deframer). */
  public static final ReadBudget UNLIMITED = new ReadBudget(Long.MAX_VALUE);

  private final long max;
  private long held;

  public ReadBudget(long max) {
    if (max <= 0) {
      throw new IllegalArgumentException("max must be positive, got " + max);
    }
    this.max = max;
  }

  /** The budget of a connection whose calls each read messages of up to {@code maxMessageSize}. */
  static ReadBudget forMessageLimit(int maxMessageSize) {
    return new ReadBudget(Math.max(8L << 20, 2L * maxMessageSize));
  }

  /** Reserves {@code n} bytes; false (nothing reserved) when that would exceed the budget. */
  boolean reserve(long n) {
    if (this == UNLIMITED) {
      return true;
    }
    if (held + n > max) {
      return false;
    }
    held += n;
    return true;
  }

  void release(long n) {
    if (this != UNLIMITED) {
      held -= n;
    }
  }

  /** Bytes reserved now. */
  public long held() {
    return held;
  }

  /** The budget. */
  public long max() {
    return max;
  }
}
