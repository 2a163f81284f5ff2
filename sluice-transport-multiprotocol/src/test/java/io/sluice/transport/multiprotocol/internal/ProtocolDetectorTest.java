package io.sluice.transport.multiprotocol.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.http2.internal.H2Handler;
import io.sluice.transport.netty.internal.NettyDuplexTransport;
import io.sluice.transport.websocket.internal.ServerUpgradeHandler;
import io.sluice.transport.websocket.internal.UpgradeSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The detector in a pipeline: it keeps what it has read until the protocol is known, then puts
 * that protocol's handlers behind itself, leaves, and hands them every byte; garbage closes the
 * connection; the deadline closes one that has not decided (run by hand, no waiting).
 */
class ProtocolDetectorTest {
  private final List<DuplexTransport> connections = new ArrayList<>();
  private final Routes routes =
      new Routes(
          null,
          UpgradeSettings.defaults("/rsocket"),
          new H2Handler.Limits(256, 1 << 20, 4 << 20, 8192, 16384, false),
          Duration.ofSeconds(10),
          connections::add);

  private EmbeddedChannel channel() {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.config().setOption(ChannelOption.AUTO_READ, false);
    routes.init(ch);
    return ch;
  }

  private static ByteBuf bytes(int... values) {
    ByteBuf b = PooledByteBufAllocator.DEFAULT.buffer(values.length);
    for (int v : values) {
      b.writeByte(v);
    }
    return b;
  }

  private static ByteBuf ascii(String s) {
    ByteBuf b = PooledByteBufAllocator.DEFAULT.buffer();
    b.writeCharSequence(s, StandardCharsets.US_ASCII);
    return b;
  }

  @Test
  void anRSocketSetupSplitOverReadsGoesWholeToTheTcpTransport() {
    EmbeddedChannel ch = channel();
    // A SETUP frame of 20 bytes behind its length, in three reads: 2, 5 and the rest.
    ch.writeInbound(bytes(0, 0));
    ch.writeInbound(bytes(20, 0, 0, 0, 0));
    assertThat(ch.pipeline().get(ProtocolDetector.class)).as("undecided: still there").isNotNull();
    assertThat(ch.isOpen()).isTrue();
    ch.writeInbound(bytes(0x04, 0, 0, 1, 0, 0, 0, 0, 0x4E, 0x20, 0, 0, 0x4E, 0x20, 0, 0, 0, 0));
    assertThat(ch.pipeline().get(ProtocolDetector.class)).isNull();
    NettyDuplexTransport t = ch.pipeline().get(NettyDuplexTransport.class);
    assertThat(t).isNotNull();
    assertThat(connections).containsExactly(t);
    assertThat(ch.isOpen()).isTrue();
    ch.finishAndReleaseAll();
  }

  @Test
  void anHttpRequestGoesToTheWebSocketUpgrade() {
    EmbeddedChannel ch = channel();
    ch.writeInbound(ascii("GET /other HTTP/1.1\r\nHost: x\r\n\r\n"));
    assertThat(ch.pipeline().get(ProtocolDetector.class)).isNull();
    assertThat(ch.pipeline().get(HttpRequestDecoder.class)).isNull(); // the answer closed it
    ByteBuf answer = ch.readOutbound();
    assertThat(answer.toString(StandardCharsets.US_ASCII)).startsWith("HTTP/1.1 404 ");
    answer.release();
    assertThat(ch.isOpen()).isFalse();
    assertThat(connections).isEmpty();
    ch.finishAndReleaseAll();
  }

  @Test
  void anHttpRequestLineThatIsNotCompleteYetWaitsInTheUpgradeHandler() {
    EmbeddedChannel ch = channel();
    ch.writeInbound(ascii("GET /rsocket HT"));
    assertThat(ch.pipeline().get(ProtocolDetector.class)).isNull();
    assertThat(ch.pipeline().get(ServerUpgradeHandler.class)).isNotNull();
    assertThat(ch.isOpen()).isTrue();
    ch.finishAndReleaseAll();
  }

  @Test
  void theHttp2PrefaceGoesToTheHttp2Handler() {
    EmbeddedChannel ch = channel();
    ch.writeInbound(ascii("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"));
    assertThat(ch.pipeline().get(ProtocolDetector.class)).isNull();
    assertThat(ch.pipeline().get(H2Handler.class)).isNotNull();
    assertThat(ch.isOpen()).isTrue();
    assertThat(connections).as("no RSocket connection before a mapped stream").isEmpty();
    ch.finishAndReleaseAll();
  }

  @Test
  void garbageClosesAtOnce() {
    EmbeddedChannel ch = channel();
    ch.writeInbound(ascii("HELLO"));
    assertThat(ch.isOpen()).isFalse();
    assertThat(connections).isEmpty();
    ch.finishAndReleaseAll();
  }

  @Test
  void tlsWithoutAContextIsGarbage() {
    EmbeddedChannel ch = channel();
    ch.writeInbound(bytes(0x16, 0x03, 0x01, 0x02, 0x00, 0x01));
    assertThat(ch.isOpen()).isFalse();
    ch.finishAndReleaseAll();
  }

  @Test
  void theDeadlineClosesAnUndecidedConnectionAndSparesADecidedOne() {
    EmbeddedChannel undecided = channel();
    undecided.writeInbound(ascii("PRI * HTTP"));
    EmbeddedChannel decided = channel();
    decided.writeInbound(bytes(0, 0, 20, 0, 0, 0, 0, 0x04));
    assertThat(undecided.isOpen()).isTrue();
    // EmbeddedChannel's scheduled tasks run when asked, at a time given: the deadline's is 10 s.
    undecided.advanceTimeBy(Duration.ofSeconds(11).toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
    undecided.runScheduledPendingTasks();
    decided.advanceTimeBy(Duration.ofSeconds(11).toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
    decided.runScheduledPendingTasks();
    assertThat(undecided.isOpen()).isFalse();
    assertThat(decided.isOpen()).isTrue();
    undecided.finishAndReleaseAll();
    decided.finishAndReleaseAll();
  }
}
