package io.sluice.internal;

import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.ErrorCode;
import io.sluice.core.ConnectionOptions;
import java.util.concurrent.TimeUnit;

/**
 * What the connection does while the transport cannot take more output: producers are paused
 * (they wait in {@link StreamTable}'s list and are pumped once it is writable again), reading stops
 * once the peer made us queue too much it does not pay for with credit, at most one keepalive echo
 * waits, and a peer that reads nothing for {@link ConnectionOptions#writeStallTimeout()} is cut
 * off. Confined to the connection's event loop.
 */
final class Writability {
  private final SluiceConnection conn;

  /** Unpaid bytes written since the transport became unwritable (see {@link #noteUnpaid}). */
  private long unpaidWhileUnwritable;
  private boolean readPaused;
  private boolean pumpBlockedScheduled;
  private final Runnable pumpBlockedTask = this::pumpBlockedLater;
  /**
   * Checks for a write stall; at most one is scheduled, and writability changes neither schedule
   * nor cancel one each time (a busy stream flips writability often): the check reschedules itself
   * while the transport is unwritable and lets go when it is writable.
   */
  private ScheduledFuture<?> writeStallTask;
  /** When the transport last became unwritable (valid while it is unwritable). */
  private long unwritableSinceNanos;
  /** The transport's outbound progress when the stall clock last (re)started; -1 if unknown. */
  private long progressAtStallMark;
  /** A keepalive echo was queued since the transport became unwritable: drop further ones. */
  private boolean echoQueuedWhileUnwritable;

  Writability(SluiceConnection conn) {
    this.conn = conn;
  }

  /**
   * Counts an outbound frame a peer can make us write without paying for it with REQUEST_N
   * credit: ERRORs and rejections, CANCELs, keepalive echoes, request-response answers. While the
   * transport is unwritable, more than {@link ConnectionOptions#maxQueuedOutboundBytes()} of
   * those stops reading until it is writable again: a peer that floods requests (or keepalives)
   * and never reads the answers is paused instead of growing our outbound buffer.
   */
  void noteUnpaid(int bytes) {
    if (conn.transport.isWritable()) {
      return;
    }
    unpaidWhileUnwritable += bytes;
    if (!readPaused && unpaidWhileUnwritable > conn.options.maxQueuedOutboundBytes()) {
      readPaused = true;
      conn.transport.setReadEnabled(false);
    }
  }

  void onWritabilityChanged(boolean writable) {
    if (conn.state == SluiceConnection.CLOSED) {
      return;
    }
    // Unwritable alone does not stop reading: flow-controlled output is already paused by the
    // pump, and two peers streaming both ways would each wait for the other to read, forever.
    // Reading stops only once the peer made us queue too much it does not pay for with credit
    // (see noteUnpaid).
    if (!writable) {
      unwritableSinceNanos = conn.ticker.nanoTime();
      progressAtStallMark = conn.transport.outboundProgress();
      if (writeStallTask == null) {
        writeStallTask =
            conn.loop.schedule(
                this::checkWriteStall,
                conn.options.writeStallTimeout().toNanos(),
                TimeUnit.NANOSECONDS);
      }
      return;
    }
    echoQueuedWhileUnwritable = false;
    unpaidWhileUnwritable = 0;
    if (readPaused) {
      readPaused = false;
      conn.transport.setReadEnabled(true);
    }
    if (conn.out.flushingMidFrame) {
      // Reported from inside the flush of a full batch, while a frame (or one of the fragments
      // of a message) is being encoded: a producer pumped now would write its stream's next
      // frame ahead of the rest of that message. Pump once the encoding is over.
      if (!pumpBlockedScheduled) {
        pumpBlockedScheduled = true;
        conn.loop.execute(pumpBlockedTask);
      }
      return;
    }
    conn.streams.pumpBlocked();
  }

  private void pumpBlockedLater() {
    pumpBlockedScheduled = false;
    if (conn.state != SluiceConnection.CLOSED && conn.transport.isWritable()) {
      conn.streams.pumpBlocked();
    }
  }

  private void checkWriteStall() {
    writeStallTask = null;
    if (conn.state == SluiceConnection.CLOSED || conn.transport.isWritable()) {
      return;
    }
    long now = conn.ticker.nanoTime();
    long timeout = conn.options.writeStallTimeout().toNanos();
    long progress = conn.transport.outboundProgress();
    if (progress > progressAtStallMark) {
      // A slow reader, not a stalled one: the peer took some of our output. Start over.
      progressAtStallMark = progress;
      unwritableSinceNanos = now;
    }
    long stalled = now - unwritableSinceNanos;
    if (stalled < timeout) {
      writeStallTask =
          conn.loop.schedule(this::checkWriteStall, timeout - stalled, TimeUnit.NANOSECONDS);
      return;
    }
    conn.in.limitHit(io.sluice.core.ConnectionStats.Limit.WRITE_STALL_TIMEOUT);
    conn.connectionError(
        ErrorCode.CONNECTION_ERROR,
        "the peer read nothing for "
            + TimeUnit.NANOSECONDS.toMillis(stalled)
            + " ms while our output was queued (write stall timeout)",
        null);
  }

  /**
   * May a KEEPALIVE echo be queued now? While the transport is unwritable, at most one echo waits
   * for a peer that does not read: the rest are dropped.
   */
  boolean admitEcho() {
    if (conn.transport.isWritable()) {
      return true;
    }
    if (echoQueuedWhileUnwritable) {
      return false;
    }
    echoQueuedWhileUnwritable = true;
    return true;
  }

  void cancelTimer() {
    SluiceConnection.cancel(writeStallTask);
  }
}
