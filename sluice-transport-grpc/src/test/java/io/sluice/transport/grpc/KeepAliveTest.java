package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.transport.grpc.internal.web.WebRoute;
import io.sluice.transport.http2.internal.HttpServerConnections;
import io.sluice.transport.http2.internal.Http2Options;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * gRPC connections are kept alive by PINGs (they have no RSocket KEEPALIVE): a client silent for
 * the keepalive time gets a PING, and one that then stays silent for the timeout is closed; one
 * that answers stays. On a channel whose clock the test moves, so no real time passes.
 */
class KeepAliveTest {
  private static final byte PING = 0x6;
  private static final byte ACK = 0x1;

  /** A gRPC server's connection on an embedded channel, after the client's preface. */
  private static EmbeddedChannel connection(GrpcServer server, GrpcServices services) {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.freezeTime();
    server
        .childSetup(
            new WebRoute(services),
            Http2Options.limits(GrpcServer.DEFAULT_MAX_CONCURRENT_STREAMS, Http2Options.DEFAULT_STREAM_WINDOW,
                Http2Options.DEFAULT_MAX_HEADER_LIST, false),
            new HttpServerConnections(c -> true))
        .init(ch);
    ByteBuf preface = Unpooled.buffer();
    preface.writeBytes("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    frameHeader(preface, 0, 0x4, 0, 0); // SETTINGS, empty
    ch.writeInbound(preface);
    ch.runPendingTasks();
    return ch;
  }

  private static void frameHeader(ByteBuf b, int length, int type, int flags, int stream) {
    b.writeMedium(length).writeByte(type).writeByte(flags).writeInt(stream);
  }

  /** The PINGs (not acks) among the frames the server wrote since the last call: their data. */
  private static List<Long> pingsWritten(EmbeddedChannel ch) {
    List<Long> pings = new ArrayList<>();
    ByteBuf all = Unpooled.buffer();
    for (Object o; (o = ch.readOutbound()) != null; ) {
      ByteBuf b = (ByteBuf) o;
      all.writeBytes(b);
      b.release();
    }
    // The server's own preface is frames only (no magic), so the bytes are whole frames.
    while (all.readableBytes() >= 9) {
      int length = all.readUnsignedMedium();
      int type = all.readByte();
      int flags = all.readByte();
      all.readInt();
      if (type == PING && (flags & ACK) == 0) {
        pings.add(all.getLong(all.readerIndex()));
      }
      all.skipBytes(length);
    }
    all.release();
    return pings;
  }

  private static void pingAck(EmbeddedChannel ch, long data) {
    ByteBuf b = Unpooled.buffer();
    frameHeader(b, 8, PING, ACK, 0);
    b.writeLong(data);
    ch.writeInbound(b);
  }

  private static void advance(EmbeddedChannel ch, int seconds) {
    ch.advanceTimeBy(seconds, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    ch.runPendingTasks();
  }

  @Test
  void aSilentClientIsPingedThenClosed() {
    GrpcServices services = GrpcServices.of(new EchoService().registry());
    GrpcServer server =
        GrpcServer.create("127.0.0.1", 0).withServices(services).withKeepAlive(Duration.ofSeconds(10), Duration.ofSeconds(3));
    EmbeddedChannel ch = connection(server, services);
    pingsWritten(ch); // the server's SETTINGS and ack
    int pings = 0;
    int pingedAt = -1;
    int second = 0;
    // Silence: a PING between 10 and 20 s after the last read, the close 3 s after it. Bounded at 60 s.
    while (ch.isOpen() && second < 60) {
      advance(ch, 1);
      second++;
      int now = pingsWritten(ch).size();
      if (now > 0 && pingedAt < 0) {
        pingedAt = second;
        assertThat(ch.isOpen()).as("open when pinged").isTrue();
      }
      pings += now;
    }
    assertThat(pings).as("one PING before the close").isEqualTo(1);
    assertThat(pingedAt).as("pinged after 10 s of silence at the earliest").isGreaterThanOrEqualTo(10);
    assertThat(ch.isOpen()).as("closed: nothing read after the PING").isFalse();
    assertThat(second - pingedAt).as("closed the timeout after the PING").isEqualTo(3);
    ch.finishAndReleaseAll();
  }

  @Test
  void aClientThatAnswersThePingsStaysOpen() {
    GrpcServices services = GrpcServices.of(new EchoService().registry());
    GrpcServer server =
        GrpcServer.create("127.0.0.1", 0).withServices(services).withKeepAlive(Duration.ofSeconds(10), Duration.ofSeconds(3));
    EmbeddedChannel ch = connection(server, services);
    pingsWritten(ch);
    int pings = 0;
    for (int second = 0; second < 120; second++) {
      advance(ch, 1);
      for (long data : pingsWritten(ch)) {
        pings++;
        pingAck(ch, data);
      }
    }
    assertThat(pings).as("pinged again after each silence").isGreaterThanOrEqualTo(4);
    assertThat(ch.isOpen()).as("open: every PING answered").isTrue();
    ch.finishAndReleaseAll();
  }

  @Test
  void theDefaultPingsAfterTwoHoursOfSilenceNotBefore() {
    GrpcServices services = GrpcServices.of(new EchoService().registry());
    GrpcServer server = GrpcServer.create("127.0.0.1", 0).withServices(services);
    EmbeddedChannel ch = connection(server, services);
    pingsWritten(ch);
    for (int minute = 0; minute < 60; minute++) {
      advance(ch, 60);
    }
    assertThat(pingsWritten(ch)).as("no PING within an hour of silence (the default time is 2 h)").isEmpty();
    assertThat(ch.isOpen()).isTrue();
    int pings = 0;
    for (int minute = 60; minute < 4 * 60 && pings == 0; minute++) {
      advance(ch, 60);
      pings = pingsWritten(ch).size();
    }
    assertThat(pings).as("a PING within 4 h of silence (2 h to twice that)").isEqualTo(1);
    ch.finishAndReleaseAll();
  }

  @Test
  void keepAliveArgumentsAreChecked() {
    GrpcServer server = GrpcServer.create("127.0.0.1", 0);
    assertThatThrownBy(() -> server.withKeepAlive(Duration.ZERO, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keepalive time must be at least 1 s");
    assertThatThrownBy(() -> server.withKeepAlive(Duration.ofMillis(999), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keepalive time must be at least 1 s");
    assertThatThrownBy(() -> server.withKeepAlive(Duration.ofSeconds(1), Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keepalive timeout must be positive");
    assertThatThrownBy(() -> server.withKeepAlive(null, Duration.ofSeconds(1))).isInstanceOf(NullPointerException.class);
  }
}
