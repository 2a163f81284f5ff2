package io.sluice.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.test.FrameBuilder;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
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
      Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
      RawPeer.Tcp peer = new RawPeer.Tcp(client);
      try (Socket other = server.accept()) {
        OutputStream out = other.getOutputStream();
        out.write(bytes);
        out.flush();
      }
      return peer;
    }
  }

  private static byte[] keepAliveFrame() {
    return FrameBuilder.lengthPrefixed(FrameBuilder.keepAlive(false, 0, new byte[] {7}).toBytes());
  }

  @Test
  void aConnectionEndingBetweenFramesIsAClose() throws Exception {
    try (RawPeer.Tcp peer = peerReceiving(keepAliveFrame())) {
      assertThat(peer.next().type()).isEqualTo(WireFrame.KEEPALIVE);
      peer.assertClosed();
      assertThat(peer.failure()).isNull();
    }
  }

  @Test
  void aConnectionEndingInsideAFrameIsAnError() throws Exception {
    byte[] whole = keepAliveFrame();
    byte[] truncated = java.util.Arrays.copyOf(whole, whole.length - 3);
    try (RawPeer.Tcp peer = peerReceiving(truncated)) {
      assertThatThrownBy(peer::assertClosed)
          .hasMessageContaining("the connection ended inside a frame: after " + (whole.length - 6)
              + " of " + (whole.length - 3) + " bytes");
      assertThatThrownBy(peer::next).hasMessageContaining("the connection broke");
      assertThat(peer.failure()).isNotNull();
    }
  }

  @Test
  void aConnectionEndingInsideALengthPrefixIsAnError() throws Exception {
    try (RawPeer.Tcp peer = peerReceiving(new byte[] {0, 0})) {
      assertThatThrownBy(peer::assertClosed)
          .hasMessageContaining("after 2 of the 3 length-prefix bytes");
    }
  }

  @Test
  void aFrameShorterThanItsHeaderIsAnError() throws Exception {
    try (RawPeer.Tcp peer = peerReceiving(new byte[] {0, 0, 2, 0, 0})) {
      assertThatThrownBy(peer::next).hasMessageContaining("undecodable frame of 2 bytes");
      assertThat(peer.failure()).isNotNull();
    }
  }
}
