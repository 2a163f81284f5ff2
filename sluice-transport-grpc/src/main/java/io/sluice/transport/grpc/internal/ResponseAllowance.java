package io.sluice.transport.grpc.internal;

import io.netty.channel.Channel;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;

/**
 * How many responses a server call's handler may send ({@code ServerCall.Listener.onReady}), for
 * every protocol the gRPC server speaks (gRPC, gRPC-Web, HTTP/JSON): a batch at a time, as many as
 * fit {@link #HIGH_WATER} at the largest size sent so far (1 to {@link #BATCH}; {@link #FIRST_BATCH}
 * before any size is known, one for a unary method), and more only once the bytes sent before
 * have mostly left (their writes completed). A caller that does not read thus stops the handler
 * instead of filling memory; a handler that ignores {@code onReady} is refused once it sends beyond
 * its allowance while {@link #MAX_QUEUED} bytes of its call wait, or as many of all the calls of
 * its connection ({@link Connection}): a peer that never reads could otherwise be queued that much
 * on each of its streams.
 *
 * <p>Not thread-safe: the call's event loop only.
 */
public final class ResponseAllowance {
  /** Responses allowed at a time. */
  static final int BATCH = 32;

  /** The allowance under which more is given. */
  static final int REFILL_BELOW = BATCH / 2;

  /** Responses allowed before any size is known. */
  static final int FIRST_BATCH = 4;

  /** Bytes of responses in writes not yet complete above which no more are allowed. */
  static final int HIGH_WATER = 1 << 20;

  /**
   * Bytes of responses in writes not yet complete at which a response sent beyond the handler's
   * allowance is refused (the call then fails RESOURCE_EXHAUSTED): a handler that ignores {@code
   * onReady} and a caller that does not read must not fill memory together.
   */
  public static final long MAX_QUEUED = 64L << 20;

  /** The bytes of responses queued by all the calls of one connection. Its event loop only. */
  public static final class Connection {
    private static final AttributeKey<Connection> KEY = AttributeKey.valueOf(Connection.class, "grpcQueuedResponses");

    private long queued;

    /** The counter of connection {@code ch}, made by its first call; on {@code ch}'s event loop. */
    public static Connection of(Channel ch) {
      Attribute<Connection> a = ch.attr(KEY);
      Connection c = a.get();
      if (c == null) {
        c = new Connection();
        a.set(c);
      }
      return c;
    }

    /** Bytes of responses queued on the connection now. */
    public long queued() {
      return queued;
    }
  }

  private final boolean streaming;
  private final Connection connection;
  private long credit;
  private long queuedBytes;
  private int largest;

  /** A call alone on its connection: {@code streaming} whether the method streams responses (else one response is allowed). */
  public ResponseAllowance(boolean streaming) {
    this(streaming, new Connection());
  }

  /** A call of {@code connection}. */
  public ResponseAllowance(boolean streaming, Connection connection) {
    this.streaming = streaming;
    this.connection = connection;
  }

  /** The first allowance, given when the call starts. */
  public long first() {
    credit = streaming ? FIRST_BATCH : 1;
    return credit;
  }

  /**
   * A response of {@code bytes} is about to be written: true if it may be, counting it as queued
   * until {@link #written}; false if the handler went beyond its allowance while too much waits.
   */
  public boolean take(int bytes) {
    boolean permitted = credit > 0;
    if (permitted) {
      credit--;
    } else if (queuedBytes + bytes > MAX_QUEUED || connection.queued + bytes > MAX_QUEUED) {
      return false;
    }
    largest = Math.max(largest, bytes);
    queuedBytes += bytes;
    connection.queued += bytes;
    return true;
  }

  /** The write of a response of {@code bytes} completed (or failed). */
  public void written(int bytes) {
    queuedBytes -= bytes;
    connection.queued -= bytes;
  }

  /** More responses to allow now, or 0: for a streaming method whose allowance runs low while little waits. */
  public long more() {
    if (!streaming || credit >= REFILL_BELOW || queuedBytes >= HIGH_WATER) {
      return 0;
    }
    long target = Math.max(1, Math.min(BATCH, HIGH_WATER / Math.max(1, largest)));
    if (credit >= target) {
      return 0;
    }
    long more = target - credit;
    credit = target;
    return more;
  }

  /** The message a call fails with when {@link #take} refused a response. */
  public static String overflowMessage() {
    return "more than " + MAX_QUEUED + " bytes of responses (of this call, or of all calls of its connection) wait for a"
        + " caller that does not read them";
  }
}
