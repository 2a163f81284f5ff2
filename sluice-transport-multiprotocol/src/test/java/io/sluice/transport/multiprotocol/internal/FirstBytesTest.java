package io.sluice.transport.multiprotocol.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.transport.multiprotocol.internal.FirstBytes.Protocol;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The first-bytes classifier: each protocol is decided by its own prefix, every shorter prefix
 * of it is undecided, bytes that fit none are unknown as soon as they fit none, and nothing needs
 * more than {@link FirstBytes#MAX_BYTES} bytes.
 */
class FirstBytesTest {
  /** SETUP: length 28, stream id 0, type 0x01 (flags 0), version 1.0, ... */
  private static final byte[] SETUP = bytes(0, 0, 28, 0, 0, 0, 0, 0x04, 0x00, 0, 1, 0, 0);
  /** RESUME: type 0x0D, so the type byte is 0x0D << 2. */
  private static final byte[] RESUME = bytes(0, 0, 40, 0, 0, 0, 0, 0x0D << 2, 0x00, 0, 1);
  /** A TLS record header (handshake, TLS 1.0 record version, length 0x0200), then ClientHello. */
  private static final byte[] CLIENT_HELLO = bytes(0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC);
  private static final byte[] PREFACE = ascii("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

  private static byte[] bytes(int... values) {
    byte[] b = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      b[i] = (byte) values[i];
    }
    return b;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  private static Protocol detect(byte[] b, int length, boolean tls) {
    ByteBuf buf = Unpooled.wrappedBuffer(b, 0, length);
    int readerIndex = buf.readerIndex();
    Protocol p = FirstBytes.detect(buf, tls);
    assertThat(buf.readerIndex()).as("nothing consumed").isEqualTo(readerIndex);
    return p;
  }

  /** {@code sample} is undecided up to {@code decidedAt - 1} bytes and {@code expected} from there. */
  private static void decides(byte[] sample, int decidedAt, Protocol expected) {
    for (int n = 0; n < decidedAt; n++) {
      assertThat(detect(sample, n, true)).as("%d bytes of %s", n, expected).isEqualTo(Protocol.UNDECIDED);
    }
    for (int n = decidedAt; n <= sample.length; n++) {
      assertThat(detect(sample, n, true)).as("%d bytes of %s", n, expected).isEqualTo(expected);
    }
  }

  @Test
  void eachProtocolIsDecidedByItsPrefix() {
    decides(SETUP, 8, Protocol.RSOCKET);
    decides(RESUME, 8, Protocol.RSOCKET);
    decides(CLIENT_HELLO, 6, Protocol.TLS);
    decides(PREFACE, 24, Protocol.HTTP2);
    decides(ascii("GET /rsocket HTTP/1.1\r\n"), 4, Protocol.HTTP1);
    decides(ascii("OPTIONS * HTTP/1.1\r\n"), 8, Protocol.HTTP1);
    decides(ascii("POST /x HTTP/1.1\r\n"), 5, Protocol.HTTP1);
    decides(ascii("PUT /x HTTP/1.1\r\n"), 4, Protocol.HTTP1);
  }

  @Test
  void bytesThatFitNoProtocolAreUnknownAtOnce() {
    // A request frame (type 0x04) on stream 0, a SETUP on stream 1, a length shorter than a header.
    assertThat(detect(bytes(0, 0, 28, 0, 0, 0, 0, 0x04 << 2), 8, true)).isEqualTo(Protocol.UNKNOWN);
    assertThat(detect(bytes(0, 0, 28, 0, 0, 0, 1), 7, true)).isEqualTo(Protocol.UNKNOWN);
    assertThat(detect(bytes(0, 0, 5), 3, true)).isEqualTo(Protocol.UNKNOWN);
    // A TLS alert record, and a TLS version that does not exist.
    assertThat(detect(bytes(0x15, 0x03, 0x03, 0x00, 0x02), 5, true)).isEqualTo(Protocol.UNKNOWN);
    assertThat(detect(bytes(0x16, 0x03, 0x09, 0x00, 0x40), 5, true)).isEqualTo(Protocol.UNKNOWN);
    // Text that is no request line, lower-case methods, a preface that turns into HTTP/1.1.
    // (Up to 3 bytes anything may be an RSocket frame's length: bytes 4 to 7 decide that.)
    assertThat(detect(ascii("HELLO"), 5, true)).isEqualTo(Protocol.UNKNOWN);
    assertThat(detect(ascii("get / HTTP/1.1"), 4, true)).isEqualTo(Protocol.UNKNOWN);
    assertThat(detect(ascii("PRI * HTTP/1.1\r\n"), 14, true)).isEqualTo(Protocol.UNKNOWN);
    assertThat(detect(ascii("GETS"), 4, true)).isEqualTo(Protocol.UNKNOWN);
  }

  @Test
  void tlsInsideTlsIsGarbage() {
    assertThat(detect(CLIENT_HELLO, CLIENT_HELLO.length, false)).isEqualTo(Protocol.UNKNOWN);
    assertThat(detect(SETUP, SETUP.length, false)).isEqualTo(Protocol.RSOCKET);
    assertThat(detect(PREFACE, PREFACE.length, false)).isEqualTo(Protocol.HTTP2);
  }

  /** Whatever the bytes, {@link FirstBytes#MAX_BYTES} of them decide (seeded, bounded). */
  @Test
  void noInputNeedsMoreThanTheLimit() {
    Random random = new Random(21);
    byte[][] starts = {SETUP, RESUME, CLIENT_HELLO, PREFACE, ascii("DELETE "), ascii("CONNECT ")};
    for (int i = 0; i < 20_000; i++) {
      byte[] b = new byte[FirstBytes.MAX_BYTES];
      random.nextBytes(b);
      // Keep a random-length prefix of a real start, so the deep branches are reached too.
      byte[] start = starts[random.nextInt(starts.length)];
      System.arraycopy(start, 0, b, 0, random.nextInt(Math.min(start.length, b.length) + 1));
      assertThat(detect(b, b.length, true)).isNotEqualTo(Protocol.UNDECIDED);
      assertThat(detect(b, b.length, false)).isNotEqualTo(Protocol.UNDECIDED);
    }
  }
}
