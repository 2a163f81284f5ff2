package io.sluice.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.sluice.internal.frame.FrameType;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The raw TCP peer itself: a connection that ends at a frame boundary is a close, one that ends
 * inside a frame (or delivers a frame it cannot decode) is an error that fails the test.
 */
class RawPeerTest {

  /** Connects a raw peer to a plain socket, writes {@code bytes} to it from there, and closes it. */
  private static RawPeer.Tcp peerReceiving(byte[] bytes) throws IOException {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      server.setSoTimeout(10_000);
      RawPeer.Tcp peer =
          new RawPeer.Tcp(new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort()));
      try (Socket other = server.accept()) {
        OutputStream out = other.getOutputStream();
        out.write(bytes);
        out.flush();
      }
      return peer;
    }
  }

  /** A KEEPALIVE with 5 bytes of data, u24 length prefix included. */
  private static byte[] keepAliveFrame() {
    ByteBuf f = RawPeer.keepAlive(false, "hello");
    try {
      byte[] frame = ByteBufUtil.getBytes(f);
      byte[] prefixed = new byte[3 + frame.length];
      prefixed[2] = (byte) frame.length;
      System.arraycopy(frame, 0, prefixed, 3, frame.length);
      return prefixed;
    } finally {
      f.release();
    }
  }

  @Test
  void aConnectionEndingBetweenFramesIsAClose() throws Exception {
    try (RawPeer.Tcp peer = peerReceiving(keepAliveFrame())) {
      assertThat(peer.next(FrameType.KEEPALIVE).dataUtf8()).isEqualTo("hello");
      peer.assertClosed();
      assertThat(peer.failure()).isNull();
    }
  }

  @Test
  void aConnectionEndingInsideAFrameIsAnError() throws Exception {
    byte[] whole = keepAliveFrame();
    RawPeer.Tcp peer = peerReceiving(Arrays.copyOf(whole, whole.length - 2));
    assertThatThrownBy(peer::assertClosed)
        .hasMessageContaining(
            "the connection ended inside a frame: after " + (whole.length - 5) + " of "
                + (whole.length - 3) + " bytes");
    assertThatThrownBy(peer::next).hasMessageContaining("the connection broke");
    // A test that never looks again fails when it closes the peer.
    assertThatThrownBy(peer::close).hasMessageContaining("the connection broke");
  }

  @Test
  void aConnectionEndingInsideALengthPrefixIsAnError() throws Exception {
    RawPeer.Tcp peer = peerReceiving(new byte[] {0});
    assertThatThrownBy(peer::assertClosed).hasMessageContaining("after 1 of the 3 length-prefix bytes");
    assertThatThrownBy(peer::close).hasMessageContaining("the connection broke");
  }

  @Test
  void aFrameShorterThanItsHeaderIsAnError() throws Exception {
    RawPeer.Tcp peer = peerReceiving(new byte[] {0, 0, 2, 0, 0});
    assertThatThrownBy(peer::next).hasMessageContaining("undecodable frame of 2 bytes");
    assertThatThrownBy(peer::close).hasMessageContaining("the connection broke");
  }
}
