package io.sluice.transport.http2;

import static io.sluice.transport.http2.RawH2Peer.concat;
import static io.sluice.transport.http2.RawH2Peer.headers;
import static io.sluice.transport.http2.RawH2Peer.repeat;
import static io.sluice.transport.http2.RawH2Peer.requestBlock;
import static io.sluice.transport.http2.RawH2Peer.rsocketData;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.SluiceServer;
import io.sluice.test.FrameBuilder;
import io.sluice.transport.ServerTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A peer that floods request-responses of the stream mapping and never reads (a small receive
 * buffer, nothing of the server's ever read) is cut on both RSocket servers over HTTP/2, as on
 * {@code GrpcServer} (issue 33: a never-reading peer is cut on every HTTP/2 server). These two put
 * no write-stall guard on the socket: what cuts it here is the bound on open streams (the server
 * has not answered the first 256 when more arrive) and netty's bound on the resets it sends for
 * the streams it refuses; the RSocket engine's write-stall check covers the DATA it queued.
 *
 * <p>The peer opens its flow-control windows all the way, so that only the socket holds the
 * answers back, and each answer is {@value #ANSWER} bytes. While the socket takes the answers the
 * server keeps up (it flushes part-way through a read batch, and each answered stream closes), so
 * the cut comes once the kernel's buffers between the two are full: with 1 KiB answers within a
 * second; with the few bytes of an error answer, about 4 MiB of them took 28 s at this pace.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS) // hang guard only
class NeverReadingPeerTest {
  /** The flood's bound (hang guard): far longer than the server takes to cut it. */
  private static final Duration FLOOD = Duration.ofSeconds(60);
  /** Requests per batch, a batch each {@link #PACE_MILLIS}. */
  private static final int BATCH = 50;
  private static final long PACE_MILLIS = 5;
  /** Bytes of each answer. */
  private static final int ANSWER = 1024;

  enum Kind {
    STREAM_MAPPING(() -> Http2ServerTransport.create("127.0.0.1", 0)),
    WEBSOCKET_OVER_HTTP2_WITH_THE_MAPPING(
        () -> WebSocketOverHttp2ServerTransport.create("127.0.0.1", 0)
            .withStreamMapping(true));

    final Supplier<ServerTransport> server;

    Kind(Supplier<ServerTransport> server) {
      this.server = server;
    }
  }

  /** A request-response of the mapping on HTTP/2 stream {@code id}, ended. */
  private static byte[] requestResponse(int id) {
    return concat(
        headers(id, false, requestBlock("/rsocket/response")),
        rsocketData(id, true, FrameBuilder.requestResponse(1).data("x").toBytes()));
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aPeerThatFloodsRequestsAndNeverReadsIsCut(Kind kind) throws Exception {
    SluiceServer server =
        Connections.start(kind.server.get(), ConnectionOptions.defaults(),
        (setup, requester) -> new Responder() {
              @Override
              public StreamListener requestResponse(Message request, StreamHandle response) {
                request.release();
                response.nextAndComplete(Message.utf8(ByteBufAllocator.DEFAULT, "a".repeat(ANSWER)));
                return StreamListener.DISCARDING;
              }
            })
            .get(30, TimeUnit.SECONDS);
    try {
      int port = ((InetSocketAddress) server.address()).getPort();
      try (RawH2Peer p = RawH2Peer.connect(port, 8 * 1024)) {
        p.send(concat(
            RawH2Peer.PREFACE,
            RawH2Peer.settings(RawH2Peer.SETTINGS_INITIAL_WINDOW_SIZE, Integer.MAX_VALUE),
            RawH2Peer.settingsAck(),
            RawH2Peer.windowUpdate(0, Integer.MAX_VALUE - 65_535)));
        int[] next = {1};
        p.flood(FLOOD, false, round -> {
          RawH2Peer.sleep(PACE_MILLIS);
          return repeat(BATCH, i -> {
            int id = next[0];
            next[0] += 2;
            return requestResponse(id);
          });
        });
        assertThat(p.writeFailed || p.closed)
            .as("the server cut the peer that never reads (%s requests sent)", next[0] / 2)
            .isTrue();
      }
    } finally {
      server.stop(Duration.ZERO).get(30, TimeUnit.SECONDS);
    }
  }
}
