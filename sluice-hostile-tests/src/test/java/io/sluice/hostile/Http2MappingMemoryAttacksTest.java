package io.sluice.hostile;

import static io.sluice.transport.http2.RawH2Peer.concat;
import static io.sluice.transport.http2.RawH2Peer.data;
import static io.sluice.transport.http2.RawH2Peer.repeat;
import static io.sluice.transport.http2.RawH2Peer.streamRequestHeaders;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.transport.ClientTransport;
import io.sluice.transport.http2.Http2ClientTransport;
import io.sluice.transport.http2.Http2ServerTransport;
import io.sluice.transport.http2.RawH2Peer;
import org.junit.jupiter.api.Test;

/**
 * Memory a peer of the HTTP/2 stream mapping declares but never sends, against {@link
 * Http2ServerTransport} (h2c) in the suite's child JVM, under {@link HostileTestBase}'s checks
 * (bounded memory, no leak, a well-behaved {@link Http2ClientTransport} client served during the
 * attack).
 */
class Http2MappingMemoryAttacksTest extends HostileTestBase {
  static final int STREAMS = Http2ServerTransport.DEFAULT_MAX_CONCURRENT_STREAMS;
  /** Direct memory the server may hold while the attack holds its streams (its 64 MiB maximum would fit 60 declared frames). */
  static final long HELD_BOUND = 16L << 20;

  @Override
  String[] serverOptions() {
    return new String[] {"transport=h2", WRITE_STALL_TIMEOUT, PREFACE_TIMEOUT};
  }

  @Override
  ClientTransport wellBehavedTransport(int port) {
    return Http2ClientTransport.create("127.0.0.1", port);
  }

  @Override
  String rowPrefix() {
    return "h2: ";
  }

  @Test
  void declaredLengthsThatNeverArrive() throws Exception {
    // On each stream a request HEADERS, then DATA holding only an RSocket frame's u24 length:
    // 0x0fffff, 1 MiB - 1 bytes that never follow.
    byte[] attack =
        repeat(STREAMS, i -> concat(streamRequestHeaders(2 * i + 1), data(2 * i + 1, false, new byte[] {0x0f, (byte) 0xff, (byte) 0xff})));
    scenario(
        "two connections x 256 streams, each stream's DATA only a u24 length of 1 MiB - 1, never more",
        port -> {
          try (RawH2Peer a = RawH2Peer.handshake(port); RawH2Peer b = RawH2Peer.handshake(port)) {
            a.send(attack);
            b.send(attack);
            // A PING's ACK comes after the server read every stream sent before it.
            assertThat(a.pingFence(1)).as("the server answers the first connection's PING").isTrue();
            assertThat(b.pingFence(2)).as("the server answers the second connection's PING").isTrue();
            ServerProcess.Stats held = server.stats();
            assertThat(held.direct())
                .as("direct memory while %d streams each declared 1 MiB and sent 3 bytes", 2 * STREAMS)
                .isLessThan(HELD_BOUND);
            assertThat(a.resets.size() + b.resets.size()).as("streams reset").isZero();
            assertThat(a.goAway == null && b.goAway == null).as("no GOAWAY").isTrue();
            return String.format(
                "%.1f MiB direct while the %d streams are held (%d bytes sent); no reset, no GOAWAY",
                held.direct() / 1048576.0, 2 * STREAMS, 2 * attack.length);
          }
        });
  }
}
