package io.sluice.transport.http2.internal;

import io.netty.channel.Channel;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;

/**
 * The bytes the streams of one connection may hold together in what they are reading: gRPC
 * messages begun and not yet whole, gRPC-Web and HTTP/JSON request bodies not yet complete, and
 * the stream mapping's RSocket frames cut across DATA frames ({@link InboundReassembler}), whatever
 * the protocol and over HTTP/2 or HTTP/1.1: one budget per connection. Each stream's own limit is
 * its protocol's message size limit, so without a budget a connection could hold {@code
 * maxConcurrentStreams} messages at the limit. gRPC's {@code MessageDeframer} (and a gRPC-Web call
 * collecting its body) reserves each byte it takes and gives its reservation back when the message
 * or body is whole or the call ends; a reservation beyond the budget fails that call with
 * RESOURCE_EXHAUSTED, and resets a mapping stream (ENHANCE_YOUR_CALM): only the stream that would
 * pass the budget fails, the connection goes on.
 *
 * <p><b>Threads.</b> One connection's event loop (not thread-safe).
 */
public final class ReadBudget {
  /** The budget of a connection, kept on its channel. */
  static final AttributeKey<ReadBudget> KEY = AttributeKey.valueOf(ReadBudget.class, "readBudget");

  /** No budget beyond each call's own limit (for tests of one deframer). */
  public static final ReadBudget UNLIMITED = new ReadBudget(Long.MAX_VALUE);

  private long max;
  private long held;

  public ReadBudget(long max) {
    if (max <= 0) {
      throw new IllegalArgumentException("max must be positive, got " + max);
    }
    this.max = max;
  }

  /** The budget of a connection whose calls each read messages of up to {@code maxMessageSize}. */
  public static ReadBudget forMessageLimit(int maxMessageSize) {
    return new ReadBudget(maxFor(maxMessageSize));
  }

  private static long maxFor(int maxMessageSize) {
    return Math.max(8L << 20, 2L * maxMessageSize);
  }

  /**
   * The budget of connection {@code ch}, made by its first call ({@link #forMessageLimit}); one
   * per connection whatever its calls speak. On {@code ch}'s event loop.
   */
  public static ReadBudget of(Channel ch, int maxMessageSize) {
    Attribute<ReadBudget> a = ch.attr(KEY);
    ReadBudget b = a.get();
    if (b == null) {
      b = forMessageLimit(maxMessageSize);
      a.set(b);
    } else {
      b.widen(maxMessageSize);
    }
    return b;
  }

  /** A protocol with larger messages joins the connection: the budget holds two of them too. */
  void widen(int maxMessageSize) {
    long m = maxFor(maxMessageSize);
    if (max < m) {
      max = m;
    }
  }

  /** Reserves {@code n} bytes; false (nothing reserved) when that would exceed the budget. */
  public boolean reserve(long n) {
    if (this == UNLIMITED) {
      return true;
    }
    if (held + n > max) {
      return false;
    }
    held += n;
    return true;
  }

  /** Gives back {@code n} bytes reserved before. */
  public void release(long n) {
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
