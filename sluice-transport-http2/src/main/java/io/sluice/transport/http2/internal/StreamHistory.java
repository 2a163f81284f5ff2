package io.sluice.transport.http2.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * What a connection remembers of stream ids it no longer has, to tell a late frame from a violation
 * (RFC 9113 5.1, 5.1.1): the newest streams this side reset and the newest the peer reset (a frame
 * on either is a race, or a stream error), and on a server the highest client stream id opened with
 * the first 64 gaps the client skipped below it (ids in later gaps are taken for closed streams).
 * Confined to the connection's event loop.
 */
final class StreamHistory {
  /** How many of the stream ids each side reset are remembered (see {@link ResetIds}). */
  static final int RESET_IDS_KEPT = 1024;
  private static final int GAPS_KEPT = 64;

  private final ResetIds resetIds = new ResetIds(RESET_IDS_KEPT);
  private final ResetIds peerResetIds = new ResetIds(RESET_IDS_KEPT);
  private int lastOpened = -1;
  private final List<int[]> skipped = new ArrayList<>();

  /** Server: a client stream was opened (ids grow); the ids it skipped to get there are a gap. */
  void opened(int id) {
    int first = lastOpened < 0 ? 1 : lastOpened + 2;
    if (id > first && skipped.size() < GAPS_KEPT) {
      skipped.add(new int[] {first, id - 2});
    }
    lastOpened = id;
  }

  /** The highest client stream id opened, or -1. */
  int lastOpened() {
    return lastOpened;
  }

  /**
   * A client stream id (the caller checked it is one) below the highest it opened that it skipped,
   * as far as the gaps kept tell; false for an id in a gap beyond them.
   */
  boolean neverOpened(int id) {
    if (lastOpened < 0 || id > lastOpened) {
      return false;
    }
    for (int[] gap : skipped) {
      if (id >= gap[0] && id <= gap[1]) {
        return true;
      }
    }
    return false;
  }

  /** This side sent RST_STREAM on {@code id}. */
  void onReset(int id) {
    resetIds.add(id);
  }

  /** The peer sent RST_STREAM on {@code id}, a stream that was open. */
  void onPeerReset(int id) {
    peerResetIds.add(id);
  }

  /** Whether this side reset {@code id} (among the newest kept). */
  boolean weReset(int id) {
    return resetIds.contains(id);
  }

  /** Whether the peer reset {@code id} (among the newest kept). */
  boolean peerReset(int id) {
    return peerResetIds.contains(id);
  }
}
