package io.sluice.transport.http2;

import static io.sluice.transport.http2.RawH2Peer.data;
import static io.sluice.transport.http2.RawH2Peer.streamRequestHeaders;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.Http2Error;
import io.sluice.Responder;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.ServerTransport;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The stream mapping's unfinished frames (an RSocket frame whose rest is in DATA still to come) are
 * charged to the connection's read budget, the one its other protocols' reads share: where the
 * connection's window is a stream window per stream (WebSocket over HTTP/2 serving the mapping, the
 * one port), the windows alone let a peer hold 256 MiB per connection in frames it never finishes.
 * A stream that would pass the budget is reset; the connection and its other streams go on.
 */
class MappingReadBudgetTest {
  private static final int CHUNK = 16_000; // under the default SETTINGS_MAX_FRAME_SIZE
  private static final int CHUNKS_PER_STREAM = 60; // 960,000 bytes: under the 1 MiB stream window

  private ServerTransport.Bound bound;

  @AfterEach
  void close() {
    if (bound != null) {
      bound.close();
    }
  }

  private int serve() throws Exception {
    bound =
        Connections.serve(
                WebSocketOverHttp2ServerTransport.create("127.0.0.1", 0).withStreamMapping(true),
                ConnectionOptions.defaults(),
                (setup, requester) -> new Responder() {})
            .get(20, TimeUnit.SECONDS);
    return ((InetSocketAddress) bound.address()).getPort();
  }

  /** The first DATA of a stream: a frame declaring 1,000,000 bytes, and the first bytes of it. */
  private static byte[] frameStart(int streamId) {
    byte[] b = new byte[CHUNK];
    b[0] = (byte) (1_000_000 >>> 16);
    b[1] = (byte) (1_000_000 >>> 8);
    b[2] = (byte) 1_000_000;
    return data(streamId, false, b);
  }

  @Test
  void aStreamWhoseUnfinishedFramePassesTheBudgetIsResetAndTheConnectionGoesOn() throws Exception {
    int port = serve();
    try (RawH2Peer p = RawH2Peer.handshake(port)) {
      // 12 streams x 960,000 bytes of frames never finished, sent one stream after the other:
      // 11.5 MB, beyond the budget (8 MiB with the engine's 1 MiB max frame size: max(8 MiB,
      // twice it)) but within the windows (256 x 1 MiB). Bytes the server drops after a reset are
      // given back to the connection window.
      for (int s = 0; s < 12; s++) {
        int id = 1 + 2 * s;
        p.send(streamRequestHeaders(id));
        p.send(frameStart(id));
        for (int c = 1; c < CHUNKS_PER_STREAM; c++) {
          p.send(data(id, false, new byte[CHUNK]));
        }
      }
      assertThat(p.pingFence(3)).as("the connection still answers").isTrue();
      assertThat(p.goAway).as("no GOAWAY: only streams fail").isNull();
      assertThat(p.resets).as("the streams past the budget are reset").isNotEmpty();
      assertThat(p.resets.values()).containsOnly(Http2Error.ENHANCE_YOUR_CALM.code());
      assertThat(p.resets.keySet()).as("the first eight fit: 7.7 MB").doesNotContain(1, 3, 5, 7, 9, 11, 13, 15);
    }
  }

  @Test
  void unfinishedFramesWithinTheBudgetKeepTheConnection() throws Exception {
    int port = serve();
    try (RawH2Peer p = RawH2Peer.handshake(port)) {
      // 8 streams x 960,000 bytes: 7.68 MB, within the budget of 8 MiB.
      for (int s = 0; s < 8; s++) {
        int id = 1 + 2 * s;
        p.send(streamRequestHeaders(id));
        p.send(frameStart(id));
        for (int c = 1; c < CHUNKS_PER_STREAM; c++) {
          p.send(data(id, false, new byte[CHUNK]));
        }
      }
      assertThat(p.pingFence(7)).as("the connection still answers").isTrue();
      assertThat(p.goAway).as("no GOAWAY").isNull();
    }
  }
}
