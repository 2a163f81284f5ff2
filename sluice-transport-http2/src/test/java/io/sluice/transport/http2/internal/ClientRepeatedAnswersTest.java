package io.sluice.transport.http2.internal;

import static io.sluice.transport.http2.RawH2Peer.concat;
import static io.sluice.transport.http2.RawH2Peer.data;
import static io.sluice.transport.http2.RawH2Peer.headers;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2FrameTypes;
import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.transport.http2.RawH2Peer;
import io.sluice.transport.http2.RawH2Peer.Hpack;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A client connection receiving one answer header block byte for byte on every stream, as a
 * server's settled encoder sends it, with {@code content-length}: netty's decoder writes that field
 * back into the headers it is handed, so such headers must never be the read-only ones {@link
 * RepeatedHeaderBlocks} shares (the server's side is Http2ServerConformanceTest's).
 */
class ClientRepeatedAnswersTest {
  @Test
  void theSameAnswerBlockWithAContentLengthIsTakenEveryTime() {
    H2Handler h2 = H2Handler.build(false, Http2Options.limits(0, 1 << 20, 8192, false), null);
    EmbeddedChannel ch = new EmbeddedChannel(h2);
    try {
      ch.writeInbound(Unpooled.wrappedBuffer(RawH2Peer.settings()));
      for (Object o; (o = ch.readOutbound()) != null; ) {
        ((ByteBuf) o).release(); // the client's preface, SETTINGS and acknowledgement
      }
      byte[] body = "hello".getBytes(StandardCharsets.US_ASCII);
      byte[] block = Hpack.block(":status", "200", "content-type", "text/plain", "content-length", "5");
      Http2Headers request =
          new DefaultHttp2Headers().method("GET").scheme("http").authority("127.0.0.1").path("/answer");
      for (int i = 0; i < 6; i++) {
        RawH2Client.Response r = new RawH2Client.Response();
        int id = h2.connection().local().incrementAndGetNextStreamId();
        h2.encoder().writeHeaders(h2.ctx(), id, request, 0, true, h2.newPromise());
        h2.attach(h2.connection().stream(id), r);
        h2.flushNow();
        ch.writeInbound(Unpooled.wrappedBuffer(concat(headers(id, false, block), data(id, true, body))));
        assertThat(WrittenFrames.drain(ch))
            .as("frames the client wrote up to answer %d", i + 1)
            .noneMatch(f -> f.type() == Http2FrameTypes.GO_AWAY || f.type() == Http2FrameTypes.RST_STREAM);
        assertThat(r.headers).as("headers of answer %d", i + 1).isCompleted();
        Http2Headers got = r.headers.join();
        assertThat(got.status()).hasToString("200");
        assertThat(got.get("content-length")).hasToString("5");
        assertThat(r.closed).as("answer %d ended", i + 1).isDone();
        assertThat(r.closed.join()).as("body of answer %d", i + 1).isEqualTo(body);
      }
    } finally {
      ch.finishAndReleaseAll();
    }
  }
}
