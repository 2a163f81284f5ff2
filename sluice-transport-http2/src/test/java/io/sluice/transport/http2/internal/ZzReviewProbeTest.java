package io.sluice.transport.http2.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.sluice.test.FrameBuilder;
import io.sluice.transport.http2.internal.StreamMappingInboundTest.ClientSide;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ZzReviewProbeTest {
  private static ClientSide client() {
    return new ClientSide(ByteBufAllocator.DEFAULT, (h, stream) -> {
      h.encoder().writeHeaders(h.ctx(), stream.id(), new DefaultHttp2Headers().status("200").add("content-type", MappingWire.CONTENT_TYPE), 0, false, h.newPromise());
      h.flushNow();
    });
  }

  private static byte[] cat(byte[]... parts) {
    java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
    for (byte[] p : parts) o.writeBytes(FrameBuilder.lengthPrefixed(p));
    return o.toByteArray();
  }

  private static List<String> sendAll(ClientSide c) {
    List<ByteBuf> out = new ArrayList<>();
    for (Object o; (o = c.client.readOutbound()) != null; ) out.add((ByteBuf) o);
    List<WrittenFrames.Frame> frames = WrittenFrames.parse(out);
    if (!out.isEmpty()) c.server.writeInbound(out.toArray());
    StreamMappingInboundTest.carry(c.server, c.client);
    List<String> s = new ArrayList<>();
    for (WrittenFrames.Frame f : frames) s.add(f.type() + "/" + f.stream() + "/" + f.flags() + "/" + f.payload().length);
    return s;
  }

  @Test
  void manyRequestsInOneBatch() {
    try (ClientSide c = client()) {
      for (int round = 0; round < 3; round++) {
        int b = round * 10;
        byte[] batch = cat(
            FrameBuilder.requestStream(b + 1, 8).data("s").toBytes(),
            FrameBuilder.requestN(b + 1, 4).toBytes(),
            FrameBuilder.requestResponse(b + 3).data("r").toBytes(),
            FrameBuilder.requestChannel(b + 5, 8).data("c").toBytes(),
            FrameBuilder.payload(b + 5).data("p").toBytes(),
            FrameBuilder.cancel(b + 1).toBytes(),
            FrameBuilder.requestFnf(b + 7).data("f").toBytes());
        c.mapping.write(Unpooled.wrappedBuffer(batch));
        c.mapping.flush();
        List<String> s = sendAll(c);
        System.out.println("ROUND " + round + " " + s);
      }
      System.out.println("server goaway sent: " + c.server.isActive() + " client errors " + c.engine.errors);
      assertThat(c.engine.errors).isEmpty();
      assertThat(c.server.isActive()).isTrue();
    }
  }

  @Test
  void cancelAfterFastPathStillResets() {
    try (ClientSide c = client()) {
      for (int i = 0; i < 4; i++) {
        int id = 2 * i + 1;
        c.mapping.write(Unpooled.wrappedBuffer(cat(FrameBuilder.requestStream(id, 8).data("s").toBytes())));
        c.mapping.flush();
        System.out.println("REQ " + sendAll(c));
        c.mapping.write(Unpooled.wrappedBuffer(cat(FrameBuilder.cancel(id).toBytes())));
        c.mapping.flush();
        List<String> s = sendAll(c);
        System.out.println("CANCEL " + s);
        assertThat(s).anyMatch(x -> x.startsWith("3/" + id + "/"));
      }
    }
  }

  @Test
  void windowsCharged() {
    try (ClientSide c = client()) {
      var flow = c.clientH2.connection().remote().flowController();
      var conn = c.clientH2.connection().connectionStream();
      int before = flow.windowSize(conn);
      int sent = 0;
      for (int i = 0; i < 4; i++) {
        int id = 2 * i + 1;
        byte[] req = cat(FrameBuilder.requestStream(id, 8).data("s".repeat(300 * i + 1)).toBytes());
        c.mapping.write(Unpooled.wrappedBuffer(req));
        sent += req.length;
        assertThat(flow.windowSize(c.clientH2.connection().stream(id))).isEqualTo(flow.initialWindowSize() - req.length);
        assertThat(flow.windowSize(conn)).isEqualTo(before - sent);
        c.mapping.flush();
        c.client.readOutbound();
        for (Object o; (o = c.client.readOutbound()) != null; ) ((ByteBuf) o).release();
      }
    }
  }

  @Test
  void splitRequestAcrossBatches() {
    try (ClientSide c = client()) {
      byte[] r1 = cat(FrameBuilder.requestResponse(1).data("a".repeat(100)).toBytes());
      byte[] r3 = cat(FrameBuilder.requestResponse(3).data("b").toBytes());
      byte[] all = new byte[r1.length + r3.length];
      System.arraycopy(r1, 0, all, 0, r1.length);
      System.arraycopy(r3, 0, all, r1.length, r3.length);
      c.mapping.write(Unpooled.wrappedBuffer(all, 0, 20));
      c.mapping.write(Unpooled.wrappedBuffer(all, 20, all.length - 20));
      c.mapping.flush();
      List<String> s = sendAll(c);
      System.out.println("SPLIT " + s);
      assertThat(c.server.isActive()).isTrue();
      assertThat(c.answered).isEqualTo(2);
    }
  }
}
