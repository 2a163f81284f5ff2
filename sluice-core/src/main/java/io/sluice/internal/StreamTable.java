package io.sluice.internal;

import io.netty.util.collection.IntObjectHashMap;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The live streams of a connection, both directions: the id table (a primitive int map), the live
 * counts each direction is limited by, stream id allocation with its wrap-around past 2^31-1, what
 * the peer's ids have reached, and the streams that wait for the transport to become writable.
 * Confined to the connection's event loop.
 */
final class StreamTable {
  private final SluiceConnection conn;
  private final boolean client;
  private final IntObjectHashMap<StreamState> streams = new IntObjectHashMap<>();
  int activeRequester;
  int activeResponder;
  private int nextStreamId;
  /** Highest stream id the peer has opened (or tried to); ids above it were never used. */
  private int maxPeerStreamId;
  /** This side's stream ids wrapped past 2^31-1: every id of ours may have been used. */
  private boolean ownIdsWrapped;

  /** Streams whose producer may send more once the transport is writable again. */
  private final ArrayDeque<StreamState> blocked = new ArrayDeque<>();
  /** Streams in {@link #blocked} that ended there (removed in bulk, see {@link #endedBlocked}). */
  private int endedWhileBlocked;
  /**
   * The connection's counts when an observer is set ({@link
   * io.sluice.core.ConnectionOptions#observer()}), else null; made here, the first part built, and
   * shared by the others.
   */
  final ConnectionCounters counters;

  StreamTable(SluiceConnection conn) {
    this.conn = conn;
    this.client = conn.client;
    this.nextStreamId = client ? 1 : 2;
    io.sluice.core.ConnectionObserver observer = conn.options.observer();
    this.counters =
        observer == null ? null : new ConnectionCounters(observer, conn.transport.name(), client);
  }

  StreamState get(int id) {
    return streams.get(id);
  }

  boolean isEmpty() {
    return streams.isEmpty();
  }

  int size() {
    return streams.size();
  }

  /** The next free id of this side. */
  int allocateId() {
    // Ids step by 2 from 1 (client) or 2 (server); past 2^31-1 they wrap, skipping live ids.
    for (; ; ) {
      int id = nextStreamId;
      nextStreamId += 2;
      if (nextStreamId <= 0) {
        nextStreamId = client ? 1 : 2;
        ownIdsWrapped = true;
      }
      if (!streams.containsKey(id)) {
        return id;
      }
    }
  }

  void register(StreamState s) {
    streams.put(s.id, s);
    s.registered = true;
    if (counters != null) {
      counters.streamStarted(s.kind);
    }
    if (s.requester) {
      activeRequester++;
    } else {
      activeResponder++;
    }
  }

  void unregister(StreamState s) {
    if (!s.registered) {
      return;
    }
    s.registered = false;
    streams.remove(s.id);
    if (counters != null) {
      counters.streamEnded(s.kind, s.outcome());
    }
    if (s.requester) {
      activeRequester--;
    } else {
      activeResponder--;
    }
    if (conn.state == SluiceConnection.DRAINING && streams.isEmpty()) {
      // Not right here: a stream is unregistered before its last signals reach its listener (the
      // final message, onComplete), and the connection must close after those, not before.
      conn.loop.execute(conn.graceful::closeIfDrained);
    }
  }

  /**
   * Notes a request the peer opened on {@code streamId}; false if the id has this side's parity
   * (a connection error).
   */
  boolean notePeerRequest(int streamId) {
    if (!hasPeerParity(streamId)) {
      return false;
    }
    if (streamId > maxPeerStreamId) {
      maxPeerStreamId = streamId;
    }
    return true;
  }

  /** True if no stream was ever opened with {@code streamId} on this connection. */
  boolean neverUsed(int streamId) {
    if (hasPeerParity(streamId)) {
      return streamId > maxPeerStreamId;
    }
    return !ownIdsWrapped && streamId >= nextStreamId;
  }

  /** True if {@code streamId} is one the peer opens (odd for a client's, even for a server's). */
  boolean hasPeerParity(int streamId) {
    return client ? (streamId & 1) == 0 : (streamId & 1) == 1;
  }

  /** Ends every stream, telling the listeners of those still live {@code cause}. */
  void failAll(Throwable cause) {
    if (streams.isEmpty()) {
      return;
    }
    List<StreamState> live = new ArrayList<>(streams.values());
    for (StreamState s : live) {
      boolean notify = !s.terminated;
      s.ending(StreamState.CONNECTION_CLOSED);
      s.terminate();
      if (notify) {
        s.notifyError(cause);
      }
    }
  }

  // ---- waiting for writability -----------------------------------------------------------------

  void block(StreamState s) {
    if (!s.blocked) {
      s.blocked = true;
      blocked.add(s);
    }
  }

  /**
   * A stream waiting in {@link #blocked} ended. Removing it there would be a scan per stream, so
   * ended streams are counted and dropped all at once when they make half of the list: it holds at
   * most about twice the live streams, whatever a peer that opens and ends streams while it reads
   * slowly does.
   */
  void endedBlocked() {
    if (++endedWhileBlocked >= 16 && endedWhileBlocked * 2 >= blocked.size()) {
      blocked.removeIf(st -> st.terminated);
      endedWhileBlocked = 0;
    }
  }

  /** Gives the streams that waited for writability their turn, while the transport stays so. */
  void pumpBlocked() {
    int n = blocked.size();
    for (int i = 0; i < n && conn.transport.isWritable(); i++) {
      StreamState s = blocked.poll();
      if (s == null || conn.state == SluiceConnection.CLOSED) {
        break; // a pump's producer closed the connection (its close cleared the queue)
      }
      s.blocked = false;
      if (s.terminated) {
        endedWhileBlocked--;
        continue;
      }
      s.pump();
    }
    conn.out.requestFlush();
  }

  /** The connection closed: nothing waits any more. */
  void clearBlocked() {
    blocked.clear();
    endedWhileBlocked = 0;
  }

  int blockedCount() {
    return blocked.size();
  }

  /**
   * Test hook: makes {@code id} the next stream id this side tries, so tests can reach the
   * wrap-around at 2^31-1 without opening a billion streams. It must have this side's parity
   * (odd for a client, even for a server).
   */
  void nextIdForTest(int id) {
    if (id <= 0 || (id & 1) != (client ? 1 : 0)) {
      throw new IllegalArgumentException("not a " + (client ? "client" : "server") + " id: " + id);
    }
    nextStreamId = id;
  }
}
