package io.sluice.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The raw TCP peer itself: a connection that ends at a frame boundary is a close, one that ends
 * inside a frame (or delivers a frame it cannot decode) is an error that fails the test, also when
 * the test only closes the peer.
 */
class RawPeerTest {

  /** Connects a raw peer to a plain socket, writes {@code bytes} to it from there, and closes it. */
  private static RawPeer.Tcp peerReceiving(byte[] bytes) throws IOException {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      server.setSoTimeout(10_000);
      RawPeer.Tcp peer = RawPeer.Tcp.connect(server.getLocalPort());
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
    byte[] data = "hello".getBytes(StandardCharsets.UTF_8);
    return FrameBuilder.lengthPrefixed(FrameBuilder.keepAlive(false, 0, data).toBytes());
  }

  @Test
  void aConnectionEndingBetweenFramesIsAClose() throws Exception {
    try (RawPeer.Tcp peer = peerReceiving(keepAliveFrame())) {
      WireFrame k = peer.next(WireFrame.KEEPALIVE);
      assertThat(new String(k.keepAliveData(), StandardCharsets.UTF_8)).isEqualTo("hello");
      peer.assertClosed();
      assertThat(peer.failure()).isNull();
      assertThat(peer.receivedBytes()).isEqualTo(keepAliveFrame().length - 3);
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
    assertThat(peer.failure()).isNotNull();
    // A test that never looks again fails when it closes the peer.
    assertThatThrownBy(peer::close).hasMessageContaining("the connection broke");
  }

  @Test
  void aConnectionEndingInsideALengthPrefixIsAnError() throws Exception {
    for (int got = 1; got <= 2; got++) {
      RawPeer.Tcp peer = peerReceiving(new byte[got]);
      assertThatThrownBy(peer::assertClosed)
          .hasMessageContaining("after " + got + " of the 3 length-prefix bytes");
      assertThatThrownBy(peer::close).hasMessageContaining("the connection broke");
    }
  }

  @Test
  void aFrameShorterThanItsHeaderIsAnError() throws Exception {
    RawPeer.Tcp peer = peerReceiving(new byte[] {0, 0, 2, 0, 0});
    assertThatThrownBy(peer::next).hasMessageContaining("undecodable frame of 2 bytes");
    assertThat(peer.failure()).isNotNull();
    assertThatThrownBy(peer::close).hasMessageContaining("the connection broke");
  }

  @Test
  void framesGoOutLengthPrefixedAndRawBytesAsTheyAre() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      server.setSoTimeout(10_000);
      try (RawPeer.Tcp peer = RawPeer.Tcp.connect(server.getLocalPort());
          Socket other = server.accept()) {
        byte[] cancel = FrameBuilder.cancel(3).toBytes();
        peer.send(FrameBuilder.cancel(3));
        peer.sendRaw(new byte[] {1, 2});
        InputStream in = other.getInputStream();
        byte[] expected = new byte[3 + cancel.length + 2];
        System.arraycopy(FrameBuilder.lengthPrefixed(cancel), 0, expected, 0, 3 + cancel.length);
        expected[expected.length - 2] = 1;
        expected[expected.length - 1] = 2;
        assertThat(in.readNBytes(expected.length)).isEqualTo(expected);
      }
    }
  }
}
