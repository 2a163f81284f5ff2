package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.sluice.transport.http2.internal.HttpServerConnections;
import io.sluice.transport.grpc.internal.web.WebRoute;
import io.sluice.transport.http2.internal.Http2Options;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The time a cleartext connection has for the head of its first HTTP/1.1 request is the preface
 * timeout from its accept, as for HTTP/2's preface, whenever its first bytes came (a connection
 * whose first bytes came late used to get the whole timeout again from then). On a channel whose
 * clock the test moves.
 */
class FirstRequestHeadTimeoutTest {
  @Test
  void theFirstRequestHeadIsTimedFromTheAccept() {
    GrpcServices services = GrpcServices.of(new EchoService().registry());
    GrpcServer server = GrpcServer.create("127.0.0.1", 0).withServices(services).withPrefaceTimeout(Duration.ofSeconds(10));
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.freezeTime();
    server
        .childSetup(
            new WebRoute(services),
            Http2Options.limits(GrpcServer.DEFAULT_MAX_CONCURRENT_STREAMS, Http2Options.DEFAULT_STREAM_WINDOW,
                Http2Options.DEFAULT_MAX_HEADER_LIST, false),
            new HttpServerConnections(c -> true))
        .init(ch);
    ch.advanceTimeBy(9, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    // The first bytes, 9 s after the accept: HTTP/1.1, a head begun and never finished.
    ch.writeInbound(Unpooled.copiedBuffer("POST /x HTTP/1.1\r\nHost: a\r\n", StandardCharsets.US_ASCII));
    assertThat(ch.isOpen()).as("open while its time lasts").isTrue();
    ch.advanceTimeBy(2, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    assertThat(ch.isOpen()).as("closed 10 s after the accept, 1 s after its first bytes").isFalse();
    ch.finishAndReleaseAll();
  }

  @Test
  void aFirstHeadInTimeIsServed() {
    GrpcServices services = GrpcServices.of(new EchoService().registry());
    GrpcServer server = GrpcServer.create("127.0.0.1", 0).withServices(services).withPrefaceTimeout(Duration.ofSeconds(10));
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.freezeTime();
    server
        .childSetup(
            new WebRoute(services),
            Http2Options.limits(GrpcServer.DEFAULT_MAX_CONCURRENT_STREAMS, Http2Options.DEFAULT_STREAM_WINDOW,
                Http2Options.DEFAULT_MAX_HEADER_LIST, false),
            new HttpServerConnections(c -> true))
        .init(ch);
    ch.advanceTimeBy(9, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    // A whole request with an unknown content type: answered 415, and the connection kept.
    ch.writeInbound(
        Unpooled.copiedBuffer(
            "POST /x HTTP/1.1\r\nHost: a\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n\r\n", StandardCharsets.US_ASCII));
    ch.advanceTimeBy(2, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    assertThat(ch.isOpen()).as("open: its first request came in time").isTrue();
    Object out = ch.readOutbound();
    try {
      assertThat(out).as("the answer").isNotNull();
    } finally {
      ReferenceCountUtil.release(out);
    }
    ch.finishAndReleaseAll();
  }
}
