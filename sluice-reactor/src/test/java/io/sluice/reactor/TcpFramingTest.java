package io.sluice.reactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.sluice.ErrorCode;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import org.junit.jupiter.api.Test;

/**
 * The TCP transport's u24 length framing against a byte stream cut anywhere: frames dribbled a
 * byte at a time, many frames in one write, a length prefix split across writes.
 */
class TcpFramingTest {

  /** The frame with its u24 length prefix, as it goes on a byte stream. */
  private static ByteBuf prefixed(ByteBuf frame) {
    ByteBuf out = RawPeer.ALLOC.buffer(frame.readableBytes() + 3);
    out.writeMedium(frame.readableBytes());
    out.writeBytes(frame);
    frame.release();
    return out;
  }

  @Test
  void framesDribbledOneByteAtATime() {
    try (Harness h = Harness.builder(TestTransport.TCP).responder(new EchoResponder("server")).noClient().start();
        RawPeer peer = h.raw()) {
      ByteBuf bytes = RawPeer.ALLOC.buffer();
      ByteBuf setup = prefixed(RawPeer.setup());
      ByteBuf request = prefixed(RawPeer.request(1, FrameType.REQUEST_RESPONSE, 0, "slowly"));
      bytes.writeBytes(setup).writeBytes(request);
      setup.release();
      request.release();
      while (bytes.isReadable()) {
        peer.sendRaw(bytes.readRetainedSlice(1));
      }
      bytes.release();
      RawPeer.Frame p = peer.next(FrameType.PAYLOAD);
      assertThat(p.streamId()).isEqualTo(1);
      assertThat(p.dataUtf8()).isEqualTo("server:slowly");
      assertThat(p.has(Frames.FLAG_COMPLETE)).isTrue();
    }
  }

  @Test
  void manyFramesInOneWrite() {
    try (Harness h = Harness.builder(TestTransport.TCP).responder(new EchoResponder("server")).noClient().start();
        RawPeer peer = h.raw()) {
      ByteBuf bytes = RawPeer.ALLOC.buffer();
      ByteBuf setup = prefixed(RawPeer.setup());
      bytes.writeBytes(setup);
      setup.release();
      int n = 500;
      for (int i = 0; i < n; i++) {
        ByteBuf r = prefixed(RawPeer.request(2 * i + 1, FrameType.REQUEST_RESPONSE, 0, "r" + i));
        bytes.writeBytes(r);
        r.release();
      }
      peer.sendRaw(bytes);
      java.util.Set<String> answers = new java.util.HashSet<>();
      for (int i = 0; i < n; i++) {
        RawPeer.Frame p = peer.next(FrameType.PAYLOAD);
        answers.add(p.streamId() + "=" + p.dataUtf8());
      }
      for (int i = 0; i < n; i++) {
        assertThat(answers).contains((2 * i + 1) + "=server:r" + i);
      }
    }
  }

  @Test
  void oversizedLengthPrefixSplitAcrossWrites() {
    io.sluice.core.ConnectionOptions o =
        io.sluice.core.ConnectionOptions.builder().maxFrameSize(1024).build();
    try (Harness h = Harness.builder(TestTransport.TCP).serverOptions(o).responder(new EchoResponder("server")).noClient().start();
        RawPeer peer = h.raw()) {
      peer.send(RawPeer.setup());
      peer.sendRaw(RawPeer.ALLOC.buffer().writeByte(0x00));
      peer.sendRaw(RawPeer.ALLOC.buffer().writeByte(0x08)); // 0x0008xx: > 1024
      peer.sendRaw(RawPeer.ALLOC.buffer().writeByte(0x01));
      RawPeer.Frame e = peer.next(FrameType.ERROR);
      assertThat(e.streamId()).isZero();
      assertThat(e.errorCode()).isEqualTo(ErrorCode.CONNECTION_ERROR);
      peer.assertClosed();
    }
  }
}
