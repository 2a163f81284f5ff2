package io.sluice.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.ErrorCode;
import io.sluice.exceptions.ConnectionErrorException;
import io.sluice.exceptions.SluiceException;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.FrameValidator;
import io.sluice.internal.frame.Frames;
import io.sluice.transport.DuplexTransport;
import java.util.concurrent.TimeUnit;

/**
 * The cuts and resumes of one {@link ResumableSession}: a lost transport (the session's timeout
 * runs while none is attached), the server's answer to a RESUME, the client's RESUME and its wait
 * for RESUME_OK, and the attach that replays what the peer lacks. Not on the path of a frame.
 * Confined to the session's event loop.
 */
final class ResumeHandshake {
  /** Time a client waits for RESUME_OK on a new transport before it tries another. */
  private static final long RESUME_HANDSHAKE_MILLIS = 10_000;
  private static final long DETACHED_TICK_MILLIS = 200;

  private final ResumableSession s;
  private final long sessionTimeoutNanos;
  private ScheduledFuture<?> detachedTask;
  private long detachedDeadline;
  /** Times the session resumed. */
  int resumes;

  ResumeHandshake(ResumableSession s, long sessionTimeoutNanos) {
    this.s = s;
    this.sessionTimeoutNanos = sessionTimeoutNanos;
  }

  void linkLost(SessionLink l, Throwable cause) {
    if (s.closing || drainedAwaitingPeerClose()) {
      s.finish();
      return;
    }
    boolean wasAttached = s.attached;
    s.attached = false;
    s.ackAsked = false; // the question, or its answer, may have been lost with the link
    if (s.outBatch != null) {
      s.outBatch.release();
      s.outBatch = null;
    }
    if (detachedTask == null) {
      detachedDeadline = s.loop.ticker().nanoTime() + sessionTimeoutNanos;
      detachedTask =
          s.loop.scheduleAtFixedRate(
              this::detachedTick, DETACHED_TICK_MILLIS, DETACHED_TICK_MILLIS, TimeUnit.MILLISECONDS);
    }
    s.updateWritability();
    s.owner.detached(cause, wasAttached);
  }

  /**
   * The engine drains and its streams have ended: all it waits for is the peer's close (a server's
   * drain, see {@link GracefulClose}), so the lost transport is that close, not a cut. The engine
   * hears of it as it would without resumption; left detached, the session would wait for a RESUME
   * (a stopping server accepts none) until the drain's deadline or its own timeout.
   */
  private boolean drainedAwaitingPeerClose() {
    SluiceConnection c = s.conn;
    return c != null
        && c.state == SluiceConnection.DRAINING
        && c.graceful.awaitsPeerClose()
        && c.streams.isEmpty();
  }

  void detachedTick() {
    if (s.attached || s.closing) {
      stopDetachedTimer();
      return;
    }
    s.conn.keepAlive.heard = true; // the session's timeout governs while no transport is attached
    if (drainedAwaitingPeerClose()) {
      // Detached when a drain found no stream left: a stopping server refuses every RESUME
      // (ResumeSessions.stopping), and the peer has nothing left to finish.
      s.finish();
      return;
    }
    if (s.loop.ticker().nanoTime() - detachedDeadline > 0) {
      failResume(
          new ConnectionErrorException(
              "the session was not resumed within "
                  + TimeUnit.NANOSECONDS.toMillis(sessionTimeoutNanos)
                  + " ms (Resumption.sessionTimeout)"));
    }
  }

  /** Ends a session that cannot be resumed: its streams fail with {@code cause}. */
  void failResume(Throwable cause) {
    if (s.closing) {
      return;
    }
    s.owner.resumeFailed(cause);
    s.conn.closeNow(cause);
  }

  /** Attaches {@code l} (the current link) once the handshake is done, replaying what the peer lacks. */
  void attach(SessionLink l, long peerReceived) {
    s.store.trimTo(peerReceived);
    s.attached = true;
    stopDetachedTimer();
    if (!s.readEnabled) {
      l.phys.setReadEnabled(false);
    }
    s.store.replayFrom(peerReceived, f -> s.sendFrame(l, f));
    s.ackedToPeer = s.received;
    s.flushOutBatch(l);
    l.phys.flush();
    resumes++;
    s.conn.keepAlive.heard = true;
    s.updateWritability();
    if (s.storeFull) {
      // Still half full after the peer's position: ask on the new link (updateWritability asks
      // only when the store becomes full, and a question from before the cut went with it).
      s.askForAck();
      l.phys.flush();
    }
    s.owner.resumed(resumes);
  }

  /**
   * Server: a RESUME for this session came on {@code phys} (on this loop, bridged if need be).
   * Returns null once resumed (RESUME_OK sent, frames replayed) or when {@code phys} had already
   * closed (nothing attached, nothing taken over), or why it was refused: the caller
   * answers ERROR[REJECTED_RESUME] on {@code phys}; a session refused for its positions is ended
   * (its client will not try again).
   */
  String resume(DuplexTransport phys, long lastReceivedServerPos, long firstAvailableClientPos) {
    if (s.closing || s.storeBroken) {
      return "the session has ended";
    }
    if (lastReceivedServerPos < s.store.firstPosition()) {
      // The client has acknowledged more than this: a RESUME that was delayed on its way (a
      // connection the client gave up on). Refused; the session goes on.
      return "stale RESUME: the client already acknowledged server frames up to position "
          + s.store.firstPosition()
          + ", this RESUME asks from "
          + lastReceivedServerPos;
    }
    String refusal = null;
    if (!s.store.canReplayFrom(lastReceivedServerPos)) {
      refusal =
          "the client asks for server frames from position "
              + lastReceivedServerPos
              + ", the server holds "
              + heldRange()
              + " (a position beyond what was sent, or inside a frame)";
    } else if (firstAvailableClientPos > s.received) {
      refusal =
          "the server needs client frames from position "
              + s.received
              + ", the client holds them from "
              + firstAvailableClientPos;
    }
    if (refusal != null) {
      failResume(new io.sluice.exceptions.RejectedResumeException(refusal));
      return refusal;
    }
    SessionLink l = new SessionLink(s, phys);
    phys.start(l); // not the current link yet: a close it reports now only marks it dead
    if (l.dead) {
      // The RESUME's connection closed before this loop took it (its client gave up on it):
      // nothing to answer, nothing taken over, the session stays as it was.
      return null;
    }
    SessionLink old = s.link;
    if (old != null && !old.dead) {
      // Still connected as far as we know (a half-open transport): the new one takes over.
      old.dead = true;
      s.attached = false;
      if (s.outBatch != null) {
        s.outBatch.release();
        s.outBatch = null;
      }
      old.phys.close();
    }
    s.link = l;
    ByteBuf ok = s.alloc.buffer(Frames.HEADER_SIZE + 8);
    Frames.writeResumeOk(ok, s.received);
    s.sendFrame(l, ok);
    attach(l, lastReceivedServerPos);
    return null;
  }

  /** Client: sends RESUME on a new transport (on this loop, bridged if need be). */
  void beginResume(DuplexTransport phys) {
    SessionLink l = new SessionLink(s, phys);
    l.awaitingResumeOk = true;
    s.link = l;
    phys.start(l);
    if (l.dead) {
      return;
    }
    ByteBuf f = s.alloc.buffer(Frames.HEADER_SIZE + 22 + s.token.length);
    Frames.writeResume(f, Unpooled.wrappedBuffer(s.token), s.received, s.store.firstPosition());
    s.sendFrame(l, f);
    s.flushOutBatch(l);
    phys.flush();
    long wait =
        Math.min(RESUME_HANDSHAKE_MILLIS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(sessionTimeoutNanos)));
    s.loop.schedule(
        () -> {
          if (l == s.link && l.awaitingResumeOk && !l.dead) {
            l.phys.close();
            if (!l.dead && l == s.link) {
              // A transport that does not report its close (or not yet): try another one anyway.
              l.dead = true;
              linkLost(l, new ConnectionErrorException("no RESUME_OK within " + wait + " ms"));
            }
          }
        },
        wait,
        TimeUnit.MILLISECONDS);
  }

  /** The positions the store can replay from, as the refusals state them: "[first, end]". */
  private String heldRange() {
    return "[" + s.store.firstPosition() + ", " + s.store.endPosition() + "]";
  }

  void onResumeAnswer(SessionLink l, ByteBuf frame) {
    String bad = FrameValidator.validate(frame);
    int type = bad == null ? Frames.type(frame) : -1;
    if (type == FrameType.RESUME_OK && Frames.streamId(frame) == 0) {
      long pos = Frames.resumeOkLastReceivedClientPosition(frame);
      if (!s.store.canReplayFrom(pos)) {
        String m =
            "RESUME_OK asks for client frames from position "
                + pos
                + ", the client holds "
                + heldRange();
        ByteBuf err = s.alloc.buffer(Frames.HEADER_SIZE + Frames.errorSize(m));
        Frames.writeError(err, 0, ErrorCode.CONNECTION_ERROR, m);
        s.sendFrame(l, err);
        s.flushOutBatch(l);
        l.phys.flush();
        failResume(new ConnectionErrorException(m));
        return;
      }
      l.awaitingResumeOk = false;
      attach(l, pos);
      return;
    }
    if (type == FrameType.ERROR
        && Frames.streamId(frame) == 0
        && Frames.errorCode(frame) == ErrorCode.REJECTED_RESUME
        && ResumeGate.TRY_AGAIN.equals(Frames.errorMessage(frame))) {
      l.phys.close(); // the server's failed-attempt bound, not a verdict: a lost link, tried again
      return;
    }
    if (type == FrameType.ERROR && Frames.streamId(frame) == 0) {
      failResume(
          SluiceException.from(
              Frames.errorCode(frame), "resume refused: " + Frames.errorMessage(frame)));
      return;
    }
    failResume(
        new ConnectionErrorException(
            "expected RESUME_OK or ERROR after RESUME, got "
                + (bad != null ? bad : Frames.describe(frame))));
  }

  /** The session ended: no more timeout checks. */
  void stopDetachedTimer() {
    SluiceConnection.cancel(detachedTask);
    detachedTask = null;
  }
}
