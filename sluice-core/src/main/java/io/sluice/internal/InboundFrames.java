package io.sluice.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.sluice.ErrorCode;
import io.sluice.Message;
import io.sluice.StreamListener;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.ConnectionStats;
import io.sluice.exceptions.SluiceException;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.FrameValidator;
import io.sluice.internal.frame.Frames;
import io.sluice.lease.RequestStats;

/**
 * The inbound half of a connection: checks each frame the transport hands over and dispatches it
 * to the connection (stream 0), to a live stream, or to a new responder stream; reassembles
 * fragmented messages; and counts what a peer may send for free against per-second budgets and
 * the reassembly budget ({@link ConnectionOptions}, docs/limits.md). Nothing a peer sends escapes
 * as an exception: a bug becomes a connection error. Confined to the connection's event loop.
 *
 * <p><b>Buffers.</b> The frame belongs to the transport; every message handed on is a retained
 * slice of it (or a reassembled composite), owned by whoever receives it.
 */
final class InboundFrames {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(InboundFrames.class);

  private final SluiceConnection conn;
  // The parts used per frame, held here rather than reached through the connection each time.
  private final FrameWriter out;
  private final StreamTable streams;
  private final KeepAlive keepAlive;
  // Per-second frame counts (see ConnectionOptions) and the bytes held by reassembly.
  // The per-second budgets of docs/limits.md, one per kind of frame, each made when its first
  // frame comes: an idle connection holds only the keepalive's (the six were 192 B of the ~3 KiB
  // an idle server connection holds).
  private static final int KEEPALIVES = 0;
  private static final int METADATA_PUSHES = 1;
  private static final int REQUEST_NS = 2;
  private static final int CANCELS = 3;
  private static final int STREAM_ERRORS = 4;
  private static final int IGNORED = 5;
  private final RateBudget[] budgets = new RateBudget[6];
  private long reassemblyBytes;
  /**
   * Told of every request the peer starts here, or null (then a null check is all it costs); set
   * once, and once more when leasing starts (see {@code Lease#startGrants}).
   */
  RequestStats stats;
  /** The connection's counts, or null when no observer is set (see {@code StreamTable}). */
  private final ConnectionCounters counters;

  InboundFrames(SluiceConnection conn) {
    this.conn = conn;
    this.out = conn.out;
    this.streams = conn.streams;
    this.counters = conn.streams.counters;
    this.keepAlive = conn.keepAlive;
    ConnectionOptions options = conn.options;
    this.stats = options.requestStats();
  }

  /** One inbound frame, the size already checked by the transport; the frame is not taken. */
  void onFrame(ByteBuf frame) {
    if (conn.state == SluiceConnection.CLOSED) {
      return;
    }
    out.readBatchFrame();
    keepAlive.heard = true;
    ConnectionCounters c = counters;
    if (c != null) {
      int size = frame.readableBytes();
      c.frameIn(size >= Frames.HEADER_SIZE ? Frames.type(frame) : 0, size);
    }
    try {
      String malformed = FrameValidator.validate(frame);
      if (malformed != null) {
        if (malformed == FrameValidator.UNKNOWN_TYPE
            && frame.readableBytes() >= Frames.HEADER_SIZE
            && Frames.hasFlag(frame, Frames.FLAG_IGNORE)) {
          countIgnored();
          return; // unknown type the peer says we may ignore
        }
        // Before establishment a broken frame is a broken SETUP: answer with a setup-class code.
        int code = conn.state == SluiceConnection.AWAITING_SETUP ? ErrorCode.INVALID_SETUP : ErrorCode.CONNECTION_ERROR;
        closing(ConnectionStats.CloseCause.PROTOCOL_ERROR);
        conn.connectionError(code, "malformed frame: " + malformed, null);
        return;
      }
      if (conn.state == SluiceConnection.AWAITING_SETUP) {
        conn.handshake.onSetupFrame(frame);
        return;
      }
      int streamId = Frames.streamId(frame);
      if (streamId == 0) {
        onConnectionFrame(frame);
      } else {
        onStreamFrame(streamId, frame);
      }
    } catch (Throwable t) {
      // Nothing a peer sends may escape the connection: a bug here becomes a connection error.
      logger.warn("Unexpected failure handling {}", Frames.describe(frame), t);
      closing(ConnectionStats.CloseCause.PROTOCOL_ERROR);
      conn.connectionError(ErrorCode.CONNECTION_ERROR, "internal error", t);
    }
    out.inboundFrameHandled();
  }

  private void onConnectionFrame(ByteBuf frame) {
    int type = Frames.type(frame);
    switch (type) {
      case FrameType.KEEPALIVE:
        if (overBudget(KEEPALIVES, "KEEPALIVE frames")) {
          return;
        }
        if (Frames.keepAliveData(frame).readableBytes() > conn.options.maxKeepAliveDataSize()) {
          limitHit(ConnectionStats.Limit.MAX_KEEPALIVE_DATA_SIZE);
          conn.connectionError(
              ErrorCode.CONNECTION_ERROR,
              "KEEPALIVE data larger than " + conn.options.maxKeepAliveDataSize() + " bytes",
              null);
          return;
        }
        if (Frames.hasFlag(frame, Frames.FLAG_KEEPALIVE_RESPOND)) {
          if (!conn.writability.admitEcho()) {
            limitHit(ConnectionStats.Limit.KEEPALIVE_ECHOES_PENDING);
            return;
          }
          ByteBuf data = Frames.keepAliveData(frame);
          conn.writability.noteUnpaid(Frames.HEADER_SIZE + 8 + data.readableBytes());
          out.writeKeepAlive(false, data);
        }
        return;
      case FrameType.ERROR:
        onConnectionErrorFrame(frame);
        return;
      case FrameType.METADATA_PUSH:
        onMetadataPush(frame);
        return;
      case FrameType.LEASE:
        if (conn.lease.onLeaseFrame(frame)) {
          // Last: dependents of ready() run right here and may send requests under this lease.
          conn.ready().complete(null);
        }
        return;
      case FrameType.SETUP: // a second SETUP (server) or any SETUP (client) is ignored
      case FrameType.RESUME_OK:
      case FrameType.EXT:
      case FrameType.CANCEL: // CANCEL, PAYLOAD and REQUEST_N on stream 0 are ignored (spec)
      case FrameType.PAYLOAD:
      case FrameType.REQUEST_N:
        countIgnored();
        return;
      case FrameType.RESUME:
        closing(ConnectionStats.CloseCause.PROTOCOL_ERROR);
        conn.connectionError(ErrorCode.REJECTED_RESUME, "resumption is not supported", null);
        return;
      default:
        closing(ConnectionStats.CloseCause.PROTOCOL_ERROR);
        conn.connectionError(
            ErrorCode.CONNECTION_ERROR, Frames.describe(frame) + " is not valid on stream 0", null);
    }
  }

  /**
   * A METADATA_PUSH, on stream 0 or not (see {@link #onStreamFrame}), with or without the M flag
   * (some clients leave it off; rsocket-java reads it anyway).
   */
  private void onMetadataPush(ByteBuf frame) {
    if (overBudget(METADATA_PUSHES, "METADATA_PUSH frames")) {
      return;
    }
    ByteBuf md = Frames.metadataPushContent(frame);
    if (md.readableBytes() > conn.options.maxMetadataPushSize()) {
      limitHit(ConnectionStats.Limit.MAX_METADATA_PUSH_SIZE);
      conn.connectionError(
          ErrorCode.CONNECTION_ERROR,
          "METADATA_PUSH larger than " + conn.options.maxMetadataPushSize() + " bytes",
          null);
      return;
    }
    Message m = Message.of(md.retain(), Unpooled.EMPTY_BUFFER);
    try {
      conn.responder.metadataPush(m);
    } catch (Throwable t) {
      logger.warn("Responder.metadataPush threw", t);
    }
  }

  private void onConnectionErrorFrame(ByteBuf frame) {
    int code = Frames.errorCode(frame);
    String message = Frames.errorMessage(frame);
    if (counters != null) {
      counters.errorIn(code);
    }
    if (code == ErrorCode.CONNECTION_CLOSE) {
      if (conn.state == SluiceConnection.ESTABLISHED) {
        closing(ConnectionStats.CloseCause.PEER_CLOSE);
        conn.graceful.startDraining(conn.options.drainTimeout().toMillis());
      }
      return;
    }
    if (!conn.client && code >= ErrorCode.INVALID_SETUP && code <= ErrorCode.REJECTED_RESUME) {
      return; // a server ignores setup-class errors (spec)
    }
    closing(ConnectionStats.CloseCause.PEER_ERROR);
    conn.closeNow(SluiceException.from(code, message));
  }

  private void onStreamFrame(int streamId, ByteBuf frame) {
    int type = Frames.type(frame);
    if (FrameType.isConnectionScoped(type)) {
      if (type == FrameType.METADATA_PUSH) {
        // The spec says to ignore it; rsocket-rust sends every push on its next stream id, and
        // rsocket-java takes it as a push: so does Sluice (docs/conformance.md, rule 43), when
        // the id is one the peer could open (its parity), as rsocket-java's responder does. The
        // id is not a stream and is not remembered; on one of our own ids it is ignored (spec).
        if (streams.hasPeerParity(streamId)) {
          onMetadataPush(frame);
        } else {
          countIgnored();
        }
        return;
      }
      closing(ConnectionStats.CloseCause.PROTOCOL_ERROR);
      conn.connectionError(
          ErrorCode.CONNECTION_ERROR, Frames.describe(frame) + " is only valid on stream 0", null);
      return;
    }
    StreamState s = streams.get(streamId);
    if (s == null) {
      if (FrameType.isRequest(type)) {
        onNewRequest(streamId, type, frame);
      } else if (streams.neverUsed(streamId)) {
        // REQUEST_N, CANCEL, PAYLOAD, ERROR and EXT on unknown ids are ignored (spec). Only ids
        // that were never opened count against the budget: frames for a stream that ended are
        // normal races (PAYLOADs in flight after our CANCEL, a REQUEST_N after our COMPLETE), and
        // dropping them costs one table lookup.
        countIgnored();
      }
      return;
    }
    switch (type) {
      case FrameType.PAYLOAD:
        onPayload(s, frame);
        return;
      case FrameType.REQUEST_N:
        {
          if (overBudget(REQUEST_NS, "REQUEST_N frames")) {
            return;
          }
          int n = Frames.requestN(frame);
          if (n <= 0) {
            streamViolation(s, "REQUEST_N must be positive");
            return;
          }
          if (!s.requester || s.kind == FrameType.REQUEST_CHANNEL) {
            s.onPeerRequest(n);
          }
          return;
        }
      case FrameType.CANCEL:
        if (overBudget(CANCELS, "CANCEL frames")) {
          return;
        }
        onCancelFrame(s);
        return;
      case FrameType.ERROR:
        {
          if (overBudget(STREAM_ERRORS, "stream ERROR frames")) {
            return;
          }
          int code = Frames.errorCode(frame);
          if (counters != null) {
            counters.errorIn(code);
          }
          SluiceException e = SluiceException.from(code, Frames.errorMessage(frame));
          boolean notify = !s.terminated;
          s.ending(StreamState.ERROR);
          s.terminate();
          if (notify) {
            s.notifyError(e);
          }
          return;
        }
      case FrameType.REQUEST_RESPONSE:
      case FrameType.REQUEST_FNF:
      case FrameType.REQUEST_STREAM:
      case FrameType.REQUEST_CHANNEL:
        countIgnored();
        return; // a request on an id in use is ignored (spec)
      default:
        countIgnored();
        return; // EXT
    }
  }

  private void onCancelFrame(StreamState s) {
    if (s.requester) {
      // Only a channel requester has an outbound half the responder can cancel.
      if (s.kind == FrameType.REQUEST_CHANNEL && !s.outboundDone) {
        s.outboundDone = true;
        s.notifyCancel();
        if (s.inboundDone) {
          s.ending(StreamState.CANCELED);
          s.terminate();
        }
      }
      return;
    }
    boolean notify = !s.terminated;
    s.endStats(RequestStats.Outcome.CANCELED);
    s.ending(StreamState.CANCELED);
    s.terminate();
    if (notify) {
      s.notifyCancel();
    }
  }

  private void onNewRequest(int streamId, int type, ByteBuf frame) {
    if (!streams.notePeerRequest(streamId)) {
      closing(ConnectionStats.CloseCause.PROTOCOL_ERROR);
      conn.connectionError(
          ErrorCode.CONNECTION_ERROR,
          "request on stream " + streamId + " which has this side's parity",
          null);
      return;
    }
    if (conn.state == SluiceConnection.DRAINING) {
      refuse(streamId, type, "connection is closing");
      return;
    }
    if (!conn.lease.admitPeerRequest()) { // beyond the leases we granted: REJECTED unprocessed
      refuse(streamId, type, "no lease");
      return;
    }
    long arrival = stats != null ? conn.ticker.nanoTime() : 0;
    // FOLLOWS together with COMPLETE: FOLLOWS is ignored (spec).
    boolean follows =
        Frames.hasFlag(frame, Frames.FLAG_FOLLOWS) && !Frames.hasFlag(frame, Frames.FLAG_COMPLETE);
    if (type == FrameType.REQUEST_FNF && !follows) {
      deliverFireAndForget(messageOf(frame), arrival);
      return;
    }
    if (streams.activeResponder >= conn.options.maxActiveStreams()) {
      limitHit(ConnectionStats.Limit.MAX_ACTIVE_STREAMS);
      refuse(streamId, type, "too many live streams (" + conn.options.maxActiveStreams() + ")");
      return;
    }
    int initialN = 0;
    if (type == FrameType.REQUEST_STREAM || type == FrameType.REQUEST_CHANNEL) {
      initialN = Frames.initialRequestN(frame);
      if (initialN <= 0) {
        out.sendError(streamId, ErrorCode.INVALID, "initial request N must be positive");
        return;
      }
    }
    int kind = type == FrameType.REQUEST_FNF ? FrameType.REQUEST_RESPONSE : type;
    StreamState s = new StreamState(conn, kind, false, null);
    s.id = streamId;
    if (stats != null) {
      s.timing = new RequestStatsTap.Timing(arrival);
    }
    streams.register(s);
    if (follows) {
      s.startFragments(conn.alloc, type, Frames.flags(frame), initialN);
      appendFragmentOrFail(s, frame);
      return;
    }
    startResponder(s, type, Frames.flags(frame), initialN, messageOf(frame));
  }

  /** Refuses a new request before the responder sees it: REJECTED (a fire-and-forget: dropped). */
  private void refuse(int streamId, int type, String why) {
    if (counters != null) {
      counters.streamRefused(type);
    }
    refuseFrame(streamId, type, why);
  }

  /** As {@link #refuse}, for a stream already counted (its end is counted as it terminates). */
  private void refuseFrame(int streamId, int type, String why) {
    if (type != FrameType.REQUEST_FNF) {
      out.sendError(streamId, ErrorCode.REJECTED, why);
    }
    if (stats != null) {
      RequestStatsTap.rejected(stats, type);
    }
  }

  /**
   * The lease policy's last word on a complete request its grant covers: false when it refused
   * (the request is released and refused, the stream if any ended).
   */
  private boolean admitted(StreamState s, int streamId, int type, Message request) {
    if (conn.lease.admit(request)) {
      return true;
    }
    request.release();
    if (s != null) {
      s.ending(StreamState.REJECTED);
      s.terminate();
      refuseFrame(streamId, type, "refused by the lease policy");
      return false;
    }
    refuse(streamId, type, "refused by the lease policy");
    return false;
  }

  private void deliverFireAndForget(Message m, long arrival) {
    if (!admitted(null, 0, FrameType.REQUEST_FNF, m)) {
      return;
    }
    RequestStats st = stats;
    if (st != null) {
      RequestStatsTap.start(st, FrameType.REQUEST_FNF);
    }
    if (counters != null) {
      counters.streamStarted(FrameType.REQUEST_FNF);
      counters.streamEnded(FrameType.REQUEST_FNF, ConnectionStats.Outcome.COMPLETE);
    }
    RequestStats.Outcome outcome = RequestStats.Outcome.COMPLETE;
    try {
      conn.responder.fireAndForget(m);
    } catch (Throwable t) {
      outcome = RequestStats.Outcome.ERROR;
      logger.warn("Responder.fireAndForget threw", t);
    }
    if (st != null) {
      RequestStatsTap.end(
          st, FrameType.REQUEST_FNF, conn.ticker.nanoTime() - arrival, outcome);
    }
  }

  private void startResponder(StreamState s, int type, int flags, int initialN, Message request) {
    if (type == FrameType.REQUEST_FNF) {
      s.terminate();
      deliverFireAndForget(request, s.timing != null ? s.timing.arrivalNanos : 0);
      return;
    }
    if (!admitted(s, s.id, type, request)) {
      return;
    }
    if (stats != null) {
      s.startStats(stats);
    }
    StreamListener l;
    try {
      switch (type) {
        case FrameType.REQUEST_RESPONSE:
          l = conn.responder.requestResponse(request, s);
          break;
        case FrameType.REQUEST_STREAM:
          l = conn.responder.requestStream(request, s);
          break;
        default:
          boolean complete = (flags & Frames.FLAG_COMPLETE) != 0;
          if (complete) {
            s.inboundDone = true;
          }
          l = conn.responder.requestChannel(request, complete, s);
          break;
      }
    } catch (Throwable t) {
      s.listener = null;
      s.doError(t);
      return;
    }
    if (l == null) {
      s.doError(new IllegalStateException("responder returned no StreamListener"));
      return;
    }
    s.listener = l;
    if (s.terminated) {
      Throwable failed = s.errorBeforeListener;
      if (failed != null) {
        s.errorBeforeListener = null;
        s.notifyError(failed); // the listener must learn its stream failed, or it waits forever
      }
      return;
    }
    s.onPeerRequest(type == FrameType.REQUEST_RESPONSE ? 1 : initialN);
  }

  private void onPayload(StreamState s, ByteBuf frame) {
    int flags = Frames.flags(frame);
    if (s.reassembling()) {
      if (!appendFragmentOrFail(s, frame)) {
        return;
      }
      if ((flags & Frames.FLAG_FOLLOWS) != 0 && (flags & Frames.FLAG_COMPLETE) == 0) {
        return;
      }
      int completeFlag = flags & Frames.FLAG_COMPLETE;
      int firstType = s.fragType();
      int firstFlags = s.fragFlags();
      int firstInitialN = s.fragInitialN();
      Message m = s.takeFragments();
      if (firstType != FrameType.PAYLOAD && !s.requester && s.listener == null) {
        startResponder(s, firstType, firstFlags | completeFlag, firstInitialN, m);
        return;
      }
      deliverPayload(s, Frames.FLAG_NEXT | completeFlag, m);
      return;
    }
    if ((flags & Frames.FLAG_FOLLOWS) != 0 && (flags & Frames.FLAG_COMPLETE) == 0) {
      s.startFragments(conn.alloc, FrameType.PAYLOAD, flags, 0);
      appendFragmentOrFail(s, frame);
      return;
    }
    boolean next = (flags & Frames.FLAG_NEXT) != 0;
    deliverPayload(s, flags, next ? messageOf(frame) : null);
  }

  private boolean appendFragmentOrFail(StreamState s, ByteBuf frame) {
    ByteBuf metadata = Frames.metadata(frame);
    ByteBuf data = Frames.data(frame);
    boolean follows =
        Frames.hasFlag(frame, Frames.FLAG_FOLLOWS) && !Frames.hasFlag(frame, Frames.FLAG_COMPLETE);
    if (follows && data.readableBytes() == 0 && (metadata == null || !metadata.isReadable())) {
      limitHit(ConnectionStats.Limit.EMPTY_FRAGMENT);
      streamViolation(s, "empty fragment");
      return false;
    }
    if (s.fragCount() >= conn.options.maxFragmentsPerMessage()) {
      limitHit(ConnectionStats.Limit.MAX_FRAGMENTS_PER_MESSAGE);
      streamViolation(
          s, "fragmented message in more than " + conn.options.maxFragmentsPerMessage() + " fragments");
      return false;
    }
    int add = (metadata == null ? 0 : metadata.readableBytes()) + data.readableBytes();
    if (reassemblyBytes + add > conn.options.maxReassemblyBytes()) {
      limitHit(ConnectionStats.Limit.MAX_REASSEMBLY_BYTES);
      conn.connectionError(
          ErrorCode.CONNECTION_ERROR,
          "fragmented messages in progress hold more than "
              + conn.options.maxReassemblyBytes()
              + " bytes",
          null);
      return false;
    }
    if (!s.appendFragment(conn.alloc, metadata, data, conn.options.maxReassembledSize())) {
      limitHit(ConnectionStats.Limit.MAX_REASSEMBLED_SIZE);
      streamViolation(
          s, "fragmented message larger than " + conn.options.maxReassembledSize() + " bytes");
      return false;
    }
    reassemblyBytes += add;
    return true;
  }

  /** Delivers an inbound PAYLOAD's signals; {@code m} is null when there is no N flag. */
  private void deliverPayload(StreamState s, int flags, Message m) {
    boolean next = (flags & Frames.FLAG_NEXT) != 0;
    boolean complete = (flags & Frames.FLAG_COMPLETE) != 0;
    if (s.inboundDone || s.terminated || (!s.requester && s.kind != FrameType.REQUEST_CHANNEL)) {
      if (m != null) {
        m.release(); // no inbound half here (or it ended): ignore
      }
      countIgnored();
      return;
    }
    if (!next && !complete) {
      streamViolation(s, "PAYLOAD with neither NEXT nor COMPLETE");
      return;
    }
    if (next) {
      if (s.kind == FrameType.REQUEST_RESPONSE) {
        // Any PAYLOAD answering a request-response completes it (spec).
        s.terminate();
        s.notifyNext(m);
        s.notifyComplete();
        return;
      }
      if (s.inboundCredit != StreamState.UNBOUNDED) {
        if (s.inboundCredit <= 0) {
          m.release();
          limitHit(ConnectionStats.Limit.REQUEST_N_CREDIT);
          streamViolation(s, "peer sent more messages than it was granted");
          return;
        }
        s.inboundCredit--;
      }
      s.notifyNext(m);
    }
    if (complete && !s.terminated) {
      s.inboundDone = true;
      if (s.outboundDone) {
        s.terminate();
      }
      s.notifyComplete();
    }
  }

  /** The peer broke a stream-level rule: end the stream, tell both sides. */
  private void streamViolation(StreamState s, String what) {
    boolean notify = !s.terminated && s.listener != null;
    if (s.requester) {
      out.sendCancel(s.id);
    } else {
      out.sendError(s.id, ErrorCode.INVALID, what);
    }
    s.ending(StreamState.ERROR);
    s.terminate();
    if (notify) {
      s.notifyError(StreamState.invalid(what));
    }
    countIgnored();
  }

  private Message messageOf(ByteBuf frame) {
    int ri = frame.readerIndex();
    // The header's type and flags in one read: every read of a pooled buffer checks its indexes
    // and reference count, and the general accessors below read them three to five times.
    int typeAndFlags = frame.getUnsignedShort(ri + 4);
    int type = typeAndFlags >>> 10;
    if (type == FrameType.SETUP || !FrameType.hasMetadataLength(type)) {
      ByteBuf md = Frames.metadata(frame);
      ByteBuf data = Frames.data(frame);
      return Message.of(md == null ? null : md.retain(), data.retain());
    }
    int start = ri + Frames.payloadOffset(type);
    ByteBuf md = null;
    if ((typeAndFlags & Frames.FLAG_METADATA) != 0) {
      int length = Frames.getU24(frame, start); // the validator checked that it fits
      start += Frames.METADATA_LENGTH_SIZE;
      md = frame.slice(start, length).retain();
      start += length;
    }
    // slice().retain(), not retainedSlice(): the message shares the frame's reference count, as
    // every other message of the engine does.
    return Message.of(md, frame.slice(start, frame.writerIndex() - start).retain());
  }

  /**
   * Counts one frame of a rate-limited kind; on a breach sends ERROR[CONNECTION_ERROR], closes,
   * and returns true (the caller drops the frame).
   */
  private boolean overBudget(int kind, String what) {
    RateBudget budget = budgets[kind];
    if (budget == null) {
      budget = budgets[kind] = new RateBudget(limit(kind), conn.ticker);
    }
    if (budget.take()) {
      return false;
    }
    limitHit(BUDGET_LIMITS[kind]);
    conn.connectionError(
        ErrorCode.CONNECTION_ERROR,
        "more than " + budget.limit() + " " + what + " per second",
        null);
    return true;
  }

  private static final ConnectionStats.Limit[] BUDGET_LIMITS = {
    ConnectionStats.Limit.MAX_KEEPALIVES_PER_SECOND,
    ConnectionStats.Limit.MAX_METADATA_PUSHES_PER_SECOND,
    ConnectionStats.Limit.MAX_REQUEST_N_PER_SECOND,
    ConnectionStats.Limit.MAX_CANCELS_PER_SECOND,
    ConnectionStats.Limit.MAX_STREAM_ERRORS_PER_SECOND,
    ConnectionStats.Limit.MAX_IGNORED_FRAMES_PER_SECOND
  };

  /** Counts a limit that refused or cut something (nothing without an observer). */
  void limitHit(ConnectionStats.Limit limit) {
    if (counters != null) {
      counters.limitHit(limit);
    }
  }

  /** Notes why the connection is about to close (the first reason given wins). */
  void closing(ConnectionStats.CloseCause cause) {
    if (counters != null) {
      counters.closing(cause, null);
    }
  }

  /**
   * The transport failed (an inbound frame over {@code maxFrameSize} among others): a connection
   * error.
   */
  void onTransportError(Throwable cause) {
    if (cause instanceof io.sluice.transport.FrameTooLargeException) {
      limitHit(ConnectionStats.Limit.MAX_FRAME_SIZE);
    }
    conn.connectionError(ErrorCode.CONNECTION_ERROR, Errors.message(cause), cause);
  }

  /** The connection has closed and reported it: the observer folds the counts (once). */
  void connectionClosed() {
    if (counters != null) {
      counters.close();
    }
  }

  private int limit(int kind) {
    ConnectionOptions o = conn.options;
    switch (kind) {
      case KEEPALIVES:
        return o.maxKeepAlivesPerSecond();
      case METADATA_PUSHES:
        return o.maxMetadataPushesPerSecond();
      case REQUEST_NS:
        return o.maxRequestNPerSecond();
      case CANCELS:
        return o.maxCancelsPerSecond();
      case STREAM_ERRORS:
        return o.maxStreamErrorsPerSecond();
      default:
        return o.maxIgnoredFramesPerSecond();
    }
  }

  /**
   * Counts a frame the spec lets us ignore, or one that broke a stream-level rule: harmless one by
   * one, but a peer sending floods of them is cut off.
   */
  private void countIgnored() {
    overBudget(IGNORED, "ignored or invalid frames");
  }

  /** Reassembly gave back {@code bytes} (message complete or dropped). */
  void reassemblyReleased(int bytes) {
    reassemblyBytes -= bytes;
  }

  /** Bytes held by fragmented messages still being reassembled, for tests. Call on the loop. */
  long reassemblyBytes() {
    return reassemblyBytes;
  }
}
