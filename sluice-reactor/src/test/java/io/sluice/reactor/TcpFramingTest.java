package io.sluice.reactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.ErrorCode;
import io.sluice.test.FrameBuilder;
import io.sluice.test.RawPeer;
import io.sluice.test.WireFrame;
import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;

/**
 * The TCP transport's u24 length framing against a byte stream cut anywhere: frames dribbled a
 * byte at a time, many frames in one write, a length prefix split across writes.
 */
class TcpFramingTest {

  /** The frame with its u24 length prefix, as it goes on a byte stream. */
  private static byte[] prefixed(FrameBuilder.Builder<?> frame) {
    return FrameBuilder.lengthPrefixed(frame.toBytes());
  }

  @Test
  void framesDribbledOneByteAtATime() {
    try (Harness h = Harness.builder(TestTransport.TCP).responder(new EchoResponder("server")).noClient().start();
        RawPeer peer = h.raw()) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      bytes.writeBytes(prefixed(FrameBuilder.setup()));
      bytes.writeBytes(prefixed(FrameBuilder.requestResponse(1).data("slowly")));
      for (byte b : bytes.toByteArray()) {
        peer.sendRaw(new byte[] {b});
      }
      WireFrame p = peer.next(WireFrame.PAYLOAD);
      assertThat(p.streamId()).isEqualTo(1);
      assertThat(p.dataUtf8()).isEqualTo("server:slowly");
      assertThat(p.has(WireFrame.C)).isTrue();
    }
  }

  @Test
  void manyFramesInOneWrite() {
    try (Harness h = Harness.builder(TestTransport.TCP).responder(new EchoResponder("server")).noClient().start();
        RawPeer peer = h.raw()) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      bytes.writeBytes(prefixed(FrameBuilder.setup()));
      int n = 500;
      for (int i = 0; i < n; i++) {
        bytes.writeBytes(prefixed(FrameBuilder.requestResponse(2 * i + 1).data("r" + i)));
      }
      peer.sendRaw(bytes.toByteArray());
      java.util.Set<String> answers = new java.util.HashSet<>();
      for (int i = 0; i < n; i++) {
        WireFrame p = peer.next(WireFrame.PAYLOAD);
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
      peer.send(FrameBuilder.setup());
      peer.sendRaw(new byte[] {0x00});
      peer.sendRaw(new byte[] {0x08}); // 0x0008xx: > 1024
      peer.sendRaw(new byte[] {0x01});
      WireFrame e = peer.next(WireFrame.ERROR);
      assertThat(e.streamId()).isZero();
      assertThat(e.errorCode()).isEqualTo(ErrorCode.CONNECTION_ERROR);
      peer.assertClosed();
    }
  }
}
