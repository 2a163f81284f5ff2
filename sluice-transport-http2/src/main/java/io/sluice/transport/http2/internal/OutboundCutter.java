package io.sluice.transport.http2.internal;

import io.netty.buffer.ByteBuf;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;

/**
 * The outbound half of the stream mapping's byte handling: cuts the engine's batches ({@code
 * LENGTH_PREFIXED}) at frame boundaries without copying. Consecutive frames of one stream that
 * travel as DATA go to HTTP/2 as one write (a <i>run</i>: one slice, one promise); a frame whose
 * payload continues in the engine's next batches (a <i>tail</i>) keeps its stream and what follows
 * its last byte. What each frame means (a new HTTP/2 stream, DATA, trailers, a reset) is the
 * mapping's: {@link StreamMapping#outboundFrame}. Runs on the channel's event loop.
 */
final class OutboundCutter {
  static final int LENGTH_SIZE = 3;

  private final StreamMapping mapping;
  /** Whether the mapping is a server's (see {@link #continuesRun}). */
  private final boolean server;

  // Frames of one stream, back to back in the batch being written, not yet handed to HTTP/2.
  private MappedStream runStream;
  private int runStart;
  private int runEnd;

  // The frame of the engine's last batch whose payload follows in later writes.
  private MappedStream tailStream;
  private int tailRemaining;
  private int tailAfter;

  OutboundCutter(StreamMapping mapping, boolean server) {
    this.mapping = mapping;
    this.server = server;
  }

  /** Cuts {@code batch} (not released here) into the mapping's writes. */
  void cut(ByteBuf batch) {
    if (tailRemaining > 0) {
      int n = Math.min(tailRemaining, batch.readableBytes());
      tailRemaining -= n;
      mapping.writePiece(
          tailStream,
          batch.retainedSlice(batch.readerIndex(), n),
          tailRemaining == 0 ? tailAfter : StreamRules.AFTER_NOTHING);
      batch.skipBytes(n);
      if (tailRemaining == 0) {
        tailStream = null;
      }
    }
    while (batch.readableBytes() >= LENGTH_SIZE + Frames.HEADER_SIZE) {
      int start = batch.readerIndex();
      int length = batch.getUnsignedMedium(start);
      int have = Math.min(batch.readableBytes(), LENGTH_SIZE + length);
      int header = start + LENGTH_SIZE;
      int streamId = batch.getInt(header) & Frames.MAX_STREAM_ID;
      int typeAndFlags = batch.getUnsignedShort(header + 4);
      int type = typeAndFlags >>> 10;
      if (runStream != null && runStream.rsocketId == streamId && have == LENGTH_SIZE + length
          && continuesRun(type, typeAndFlags & Frames.FLAGS_MASK)) {
        runEnd = start + have;
        batch.readerIndex(start + have);
        continue;
      }
      if (runStream != null && (runStream.rsocketId != streamId || !joinsARun(type))) {
        endRun(batch, StreamRules.AFTER_NOTHING); // what this frame does must follow the run's bytes
      }
      frame(batch, start, have, length, streamId, type, typeAndFlags & Frames.FLAGS_MASK);
      batch.readerIndex(start + have);
    }
    endRun(batch, StreamRules.AFTER_NOTHING);
  }

  /** Forgets a tail still expected (the connection closed). */
  void clear() {
    tailStream = null;
    tailRemaining = 0;
    runStream = null;
  }

  /**
   * Whether a whole frame of {@code type} and {@code flags} on the stream of the current run means
   * nothing to the mapping but more DATA: on a server, a PAYLOAD that does not complete the stream
   * (its stream is open, its headers are on their way, and such a frame changes none of its
   * state: {@link StreamMapping#outboundFrame} would return the run's stream, nothing to follow).
   * A client's payloads may end its request, so they always go through the mapping.
   */
  private boolean continuesRun(int type, int flags) {
    return server && type == FrameType.PAYLOAD && (flags & Frames.FLAG_COMPLETE) == 0;
  }

  /** Frames that only ever travel as DATA, so they may join a run of their stream's frames. */
  private static boolean joinsARun(int type) {
    return type == FrameType.PAYLOAD || type == FrameType.REQUEST_N;
  }

  /** Writes the run of frames gathered so far as one DATA write, then {@code after}. */
  private void endRun(ByteBuf batch, int after) {
    MappedStream st = runStream;
    if (st != null) {
      runStream = null;
      mapping.writePiece(st, batch.retainedSlice(runStart, runEnd - runStart), after);
    }
  }

  /** One outbound frame of {@code length} bytes whose first {@code have} bytes (u24 too) are here. */
  private void frame(ByteBuf batch, int start, int have, int length, int streamId, int type, int flags) {
    int missing = LENGTH_SIZE + length - have;
    MappedStream st =
        mapping.outboundFrame(batch, start + LENGTH_SIZE, have - LENGTH_SIZE, streamId, type, flags, missing == 0);
    int after = st == null ? StreamRules.AFTER_NOTHING : st.after;
    if (st != null) {
      // Consecutive frames of one stream go to HTTP/2 as one write: one slice, one promise.
      if (runStream == null) {
        runStream = st;
        runStart = start;
      }
      runEnd = start + have;
      if (missing > 0 || after != StreamRules.AFTER_NOTHING) {
        endRun(batch, missing == 0 ? after : StreamRules.AFTER_NOTHING);
      }
    }
    if (missing > 0) {
      tailStream = st;
      tailRemaining = missing;
      tailAfter = after;
    }
  }
}
