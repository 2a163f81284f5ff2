package io.sluice.transport.http2.internal;

import java.util.ArrayList;

/**
 * The WebSocket over HTTP/2 streams of one HTTP/2 connection, as far as the connection's events
 * concern them: each stream that read something in a read batch is told of the batch's end (its
 * engine flushes then), so a batch costs the streams it touched, not all of them.
 *
 * <p><b>Threads.</b> The connection's event loop only.
 */
public final class WebSocketStreams implements H2Handler.ConnectionListener {
  private final ArrayList<WebSocketStream> readThisBatch = new ArrayList<>();
  private int live;

  /** Listens to {@code h2}'s events. */
  public WebSocketStreams(H2Handler h2) {
    h2.addListener(this);
  }

  /** Live streams of this connection. */
  public int live() {
    return live;
  }

  void add() {
    live++;
  }

  void remove(WebSocketStream s) {
    live--;
  }

  void readThisBatch(WebSocketStream s) {
    readThisBatch.add(s);
  }

  @Override
  public void onReadComplete() {
    if (readThisBatch.isEmpty()) {
      return;
    }
    WebSocketStream[] streams = readThisBatch.toArray(new WebSocketStream[0]);
    readThisBatch.clear();
    for (WebSocketStream s : streams) {
      if (s.inBatch) {
        s.readComplete();
      }
    }
  }
}
