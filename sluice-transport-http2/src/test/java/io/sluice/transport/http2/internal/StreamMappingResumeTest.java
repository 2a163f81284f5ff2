package io.sluice.transport.http2.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FrameReceiver;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * While the server's engine cannot keep up it stops reading, and the stream mapping keeps the DATA
 * it was handed charged to the HTTP/2 windows; when the engine reads again the mapping gives those
 * bytes back. The WINDOW_UPDATEs that gives must leave at once: a resume comes when the engine's
 * output drained, outside any read whose end would flush them, and a client that used up its
 * window sends nothing more that could cause one.
 */
class StreamMappingResumeTest {
  private static final int STREAM_WINDOW = 65_535;
  private static final int REQUEST_CHANNEL = 0x07;
  private static final int PAYLOAD = 0x0A;
  private static final int FLAG_NEXT = 0x20;

  @Test
  void theWindowGivenBackOnResumeIsSentWithoutWaitingForAnotherRead() {
    List<DuplexTransport> connections = new ArrayList<>();
    EmbeddedChannel server =
        new EmbeddedChannel(
            H2Handler.build(
                true, Http2Options.limits(16, STREAM_WINDOW, 8192, false), new ServerStreams(connections::add, true)));
    H2Handler clientH2 = H2Handler.build(false, Http2Options.limits(0, STREAM_WINDOW, 8192, false), null);
    EmbeddedChannel client = new EmbeddedChannel(clientH2);
    Engine engine = new Engine();
    try {
      carry(client, server); // preface and SETTINGS
      carry(server, client);
      carry(client, server);
      assertThat(connections).hasSize(1);
      DuplexTransport mapping = connections.get(0);
      mapping.start(engine);
      carry(server, client);
      drain(server);

      mapping.setReadEnabled(false); // the engine's output is stuck
      Http2Headers request =
          new DefaultHttp2Headers()
              .method("POST")
              .scheme("http")
              .authority("test")
              .path("/rsocket/channel")
              .set("content-type", "application/rsocket+http2");
      clientH2.encoder().writeHeaders(clientH2.ctx(), 3, request, 0, false, clientH2.newPromise());
      ByteBuf data = Unpooled.buffer();
      frame(data, REQUEST_CHANNEL, 0, 4).writeInt(Integer.MAX_VALUE);
      int payloads = 0;
      while (data.readableBytes() < STREAM_WINDOW * 3 / 4) {
        frame(data, PAYLOAD, FLAG_NEXT, 4000).writeZero(4000);
        payloads++;
      }
      clientH2.encoder().writeData(clientH2.ctx(), 3, data, 0, false, clientH2.newPromise());
      clientH2.flushNow();
      carry(client, server);
      assertThat(engine.frames).as("the implied SETUP, then what arrived: the engine still gets it").isEqualTo(2 + payloads);
      drain(server); // what that read's end flushed (nothing owed may be among it)

      mapping.setReadEnabled(true); // outside any read, as when the engine's output drains

      List<Integer> sent = frameTypes(server);
      assertThat(sent).as("HTTP/2 frame types the server sent on resume, unflushed ones not counted").contains(0x08);
    } finally {
      client.finishAndReleaseAll();
      server.finishAndReleaseAll();
    }
  }

  /** Writes an RSocket frame's length prefix and header; the caller writes its {@code body} bytes. */
  private static ByteBuf frame(ByteBuf out, int type, int flags, int body) {
    return out.writeMedium(6 + body).writeInt(1).writeShort(type << 10 | flags);
  }

  /** Moves what {@code from} flushed into {@code to} as one read. */
  private static void carry(EmbeddedChannel from, EmbeddedChannel to) {
    List<Object> out = new ArrayList<>();
    for (Object o; (o = from.readOutbound()) != null; ) {
      out.add(o);
    }
    if (!out.isEmpty()) {
      to.writeInbound(out.toArray());
    }
  }

  private static void drain(EmbeddedChannel ch) {
    for (Object o; (o = ch.readOutbound()) != null; ) {
      ((ByteBuf) o).release();
    }
  }

  /** The types of the HTTP/2 frames {@code ch} flushed (its unflushed writes are not readable). */
  private static List<Integer> frameTypes(EmbeddedChannel ch) {
    return WrittenFrames.drain(ch).stream().map(WrittenFrames.Frame::type).toList();
  }

  /** An engine that takes every frame and, with small frames, leaves the windows as configured. */
  private static final class Engine implements FrameReceiver {
    int frames;

    @Override
    public int maxFrameSize() {
      return 16_384;
    }

    @Override
    public int maxQueuedOutboundBytes() {
      return 1 << 20;
    }

    @Override
    public void onFrame(ByteBuf frame) {
      frames++;
    }

    @Override
    public void onReadComplete() {}

    @Override
    public void onWritabilityChanged(boolean writable) {}

    @Override
    public void onTransportError(Throwable cause) {
      throw new AssertionError("transport error", cause);
    }

    @Override
    public void onClosed() {}
  }
}
