package io.sluice.internal;

import io.sluice.core.ConnectionObserver;
import io.sluice.core.ConnectionStats;
import io.sluice.internal.frame.FrameType;

/**
 * The counts a {@link ConnectionObserver} reads, kept by the parts that already see each frame,
 * stream and limit ({@code InboundFrames}, {@code FrameWriter}, {@code StreamTable}, {@code
 * StreamState}, {@code KeepAlive} ...). Made only when the options carry an observer: the parts
 * hold null otherwise, and a null check is all the counting costs.
 *
 * <p><b>Threads.</b> Written on the connection's event loop only, in plain fields and arrays: no
 * volatile write and no allocation per frame (the shape of netty's allocator metrics). Readers on
 * other threads get a slightly stale view, which a metrics scrape accepts.
 */
final class ConnectionCounters implements ConnectionStats {
  private static final int INTERACTIONS = 4;
  private static final int OUTCOMES = Outcome.values().length;
  private static final Limit[] LIMITS = Limit.values();

  private final ConnectionObserver observer;
  private final String transport;
  private final boolean client;
  private final long[] framesIn = new long[FRAME_TYPES];
  private final long[] framesOut = new long[FRAME_TYPES];
  private long bytesIn;
  private long bytesOut;
  private final long[] errorsIn = new long[ERROR_CODES];
  private final long[] errorsOut = new long[ERROR_CODES];
  private final long[] started = new long[INTERACTIONS];
  private final long[] ended = new long[INTERACTIONS * OUTCOMES];
  private final long[] limits = new long[LIMITS.length];
  private CloseCause closeCause;
  private Limit closeLimit;
  private boolean opened;
  private boolean closed;

  ConnectionCounters(ConnectionObserver observer, String transport, boolean client) {
    this.observer = observer;
    this.transport = transport == null ? "other" : transport;
    this.client = client;
  }

  /** The type index of a frame type (see {@link ConnectionStats#FRAME_TYPES}). */
  static int typeIndex(int type) {
    return type >= 0 && type < FRAME_TYPES - 1 ? type : FRAME_TYPES - 1;
  }

  static Interaction interaction(int requestType) {
    switch (requestType) {
      case FrameType.REQUEST_FNF:
        return Interaction.FIRE_AND_FORGET;
      case FrameType.REQUEST_STREAM:
        return Interaction.REQUEST_STREAM;
      case FrameType.REQUEST_CHANNEL:
        return Interaction.REQUEST_CHANNEL;
      default:
        return Interaction.REQUEST_RESPONSE;
    }
  }

  // ---- written on the loop --------------------------------------------------------------------

  void frameIn(int type, int bytes) {
    framesIn[typeIndex(type)]++;
    bytesIn += bytes;
  }

  void frameOut(int type, int bytes) {
    framesOut[typeIndex(type)]++;
    bytesOut += bytes;
  }

  void errorIn(int code) {
    errorsIn[ConnectionStats.errorCodeIndex(code)]++;
  }

  void errorOut(int code) {
    errorsOut[ConnectionStats.errorCodeIndex(code)]++;
  }

  void streamStarted(int requestType) {
    started[interaction(requestType).ordinal()]++;
  }

  void streamEnded(int requestType, Outcome outcome) {
    ended[interaction(requestType).ordinal() * OUTCOMES + outcome.ordinal()]++;
  }

  /** A stream that never reached a handler: started and ended at once. */
  void streamRefused(int requestType) {
    streamStarted(requestType);
    streamEnded(requestType, Outcome.REJECTED);
  }

  void limitHit(Limit limit) {
    limits[limit.ordinal()]++;
    if (limit.closes()) {
      closing(CloseCause.LIMIT, limit);
    }
  }

  /** The first reason given for the close wins. */
  void closing(CloseCause cause, Limit limit) {
    if (closeCause == null && !closed) {
      closeCause = cause;
      closeLimit = limit;
    }
  }

  void open() {
    if (!opened) {
      opened = true;
      observer.opened(this);
    }
  }

  void close() {
    if (opened && !closed) {
      if (closeCause == null) {
        closeCause = CloseCause.TRANSPORT;
      }
      closed = true;
      observer.closed(this);
    }
  }

  // ---- read from anywhere ---------------------------------------------------------------------

  @Override
  public String transport() {
    return transport;
  }

  @Override
  public boolean client() {
    return client;
  }

  @Override
  public long frames(boolean inbound, int typeIndex) {
    return inbound ? framesIn[typeIndex] : framesOut[typeIndex];
  }

  @Override
  public long bytes(boolean inbound) {
    return inbound ? bytesIn : bytesOut;
  }

  @Override
  public long errors(boolean inbound, int codeIndex) {
    return inbound ? errorsIn[codeIndex] : errorsOut[codeIndex];
  }

  @Override
  public long streamsStarted(Interaction interaction) {
    return started[interaction.ordinal()];
  }

  @Override
  public long streamsEnded(Interaction interaction, Outcome outcome) {
    return ended[interaction.ordinal() * OUTCOMES + outcome.ordinal()];
  }

  @Override
  public long limitHits(Limit limit) {
    return limits[limit.ordinal()];
  }

  @Override
  public CloseCause closeCause() {
    return closed ? closeCause : null;
  }

  @Override
  public Limit closeLimit() {
    return closed ? closeLimit : null;
  }
}
