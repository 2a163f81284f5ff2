package io.sluice.hostile;

import static io.sluice.ErrorCode.CONNECTION_ERROR;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.test.FrameBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Attacks on the WebSocket layer itself: a frame declaring 2^62 bytes, endless continuation
 * frames (large and empty), a slow upgrade request (slowloris), unmasked client frames, a text
 * message, and a ping flood from a peer that never reads. (A server that masks its frames toward
 * a client is refused by the client: WebSocketClientProtocolTest in sluice-transport-websocket.)
 */
class WebSocketAttacksTest extends HostileTestBase {
  private static final Duration FLOOD = Duration.ofSeconds(20);

  @Override
  boolean webSocket() {
    return true;
  }

  private static String closed(Attacker a, int code) {
    assertThat(a.closeCode).as("WebSocket close code").isEqualTo(code);
    return ", close " + code;
  }

  @Test
  void aFrameDeclaring2To62Bytes() throws Exception {
    scenario(
        "WS frame declaring 2^62 bytes",
        port -> {
          try (Attacker a = Attacker.connect(port).setup()) {
            byte[] header = new byte[14];
            header[0] = (byte) 0x82;
            header[1] = (byte) (0x80 | 127);
            ByteBuffer.wrap(header, 2, 8).putLong(1L << 62);
            a.sendWire(header);
            a.flood(Duration.ofSeconds(2), true, round -> new byte[0]);
            return expectConnectionError(a, CONNECTION_ERROR, "exceeds the limit") + closed(a, 1009);
          }
        });
  }

  @Test
  void endlessContinuationFrames() throws Exception {
    byte[] kib = new byte[1024];
    byte[] first = WebSocketWire.frame(0x02, kib, true);
    scenario(
        "WS endless continuation frames (1 KiB each)",
        port -> {
          try (Attacker a = Attacker.connect(port).setup()) {
            a.sendWire(first);
            List<byte[]> batch = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
              batch.add(WebSocketWire.frame(0x00, kib, true));
            }
            byte[] b = Attacker.concat(batch);
            floodWire(a, b);
            return expectConnectionError(a, CONNECTION_ERROR, "exceeds the limit") + closed(a, 1009);
          }
        });
    scenario(
        "WS endless empty continuation frames",
        port -> {
          try (Attacker a = Attacker.connect(port).setup()) {
            a.sendWire(WebSocketWire.frame(0x02, new byte[] {1}, true));
            List<byte[]> batch = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
              batch.add(WebSocketWire.frame(0x00, new byte[0], true));
            }
            floodWire(a, Attacker.concat(batch));
            return expectConnectionError(a, CONNECTION_ERROR, "fragments") + closed(a, 1008);
          }
        });
  }

  /** Floods raw WebSocket bytes (reading what comes back) until closed or {@link #FLOOD}. */
  private static void floodWire(Attacker a, byte[] wire) throws IOException {
    long end = System.nanoTime() + FLOOD.toNanos();
    ByteBuffer pending = ByteBuffer.wrap(wire);
    while (System.nanoTime() < end && !a.closed && !a.writeFailed) {
      if (!pending.hasRemaining()) {
        pending = ByteBuffer.wrap(wire);
      }
      try {
        if (a.ch.write(pending) == 0) {
          Attacker.sleep(1);
        }
      } catch (IOException e) {
        a.writeFailed = true;
      }
      a.readAvailable();
    }
  }

  @Test
  void slowUpgradeRequests() throws Exception {
    byte[] request = WebSocketWire.request("/").getBytes(StandardCharsets.US_ASCII);
    scenario(
        "WS slowloris: 200 upgrade requests sent a byte every 50 ms",
        port -> {
          List<SocketChannel> slow = new ArrayList<>();
          try {
            for (int i = 0; i < 200; i++) {
              SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
              ch.configureBlocking(false);
              slow.add(ch);
            }
            int[] sent = new int[slow.size()];
            boolean[] cut = new boolean[slow.size()];
            int cutCount = 0;
            ByteBuffer in = ByteBuffer.allocate(256);
            long end = System.nanoTime() + Duration.ofSeconds(30).toNanos(); // hang guard
            while (cutCount < slow.size() && System.nanoTime() < end) {
              for (int i = 0; i < slow.size(); i++) {
                if (cut[i]) {
                  continue;
                }
                SocketChannel ch = slow.get(i);
                in.clear();
                int n;
                try {
                  n = ch.read(in);
                  if (n == 0 && sent[i] < request.length - 1) { // never the last byte
                    ch.write(ByteBuffer.wrap(request, sent[i], 1));
                    sent[i]++;
                  }
                } catch (IOException e) {
                  n = -1;
                }
                assertThat(n).as("the server answered a request it never got in full").isLessThanOrEqualTo(0);
                if (n < 0) {
                  cut[i] = true;
                  cutCount++;
                }
              }
              Attacker.sleep(50);
            }
            assertThat(cutCount).as("slow connections cut off").isEqualTo(slow.size());
            return cutCount + "/" + slow.size() + " closed without an answer at the upgrade deadline (2 s)";
          } finally {
            for (SocketChannel ch : slow) {
              ch.close();
            }
          }
        });
  }

  @Test
  void unmaskedClientFrames() throws Exception {
    byte[] rr = FrameBuilder.requestResponse(1).data("unmasked").toBytes();
    scenario(
        "WS unmasked client frames",
        port -> {
          try (Attacker a = Attacker.connect(port).setup()) {
            a.sendWire(WebSocketWire.frame(0x82, rr, false));
            return expectConnectionError(a, CONNECTION_ERROR, "unmasked") + closed(a, 1002);
          }
        });
  }

  @Test
  void aTextMessage() throws Exception {
    scenario(
        "WS text message",
        port -> {
          try (Attacker a = Attacker.connect(port).setup()) {
            a.sendWire(WebSocketWire.frame(0x81, "hello".getBytes(StandardCharsets.UTF_8), true));
            return expectConnectionError(a, CONNECTION_ERROR, "text message") + closed(a, 1003);
          }
        });
  }

  @Test
  void pingFloodWithoutReading() throws Exception {
    byte[] ping = WebSocketWire.frame(0x89, new byte[125], true);
    List<byte[]> batch = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      batch.add(ping);
    }
    byte[] b = Attacker.concat(batch);
    scenario(
        "WS ping flood (125 B), never reads",
        port -> {
          try (Attacker a = Attacker.connect(port, 8 * 1024).setup()) {
            long end = System.nanoTime() + FLOOD.toNanos();
            ByteBuffer pending = ByteBuffer.wrap(b);
            while (System.nanoTime() < end && server.closeCause(a.localPort) == null && !a.writeFailed) {
              if (!pending.hasRemaining()) {
                pending = ByteBuffer.wrap(b);
              }
              try {
                if (a.ch.write(pending) == 0) {
                  Attacker.sleep(1);
                }
              } catch (IOException e) {
                a.writeFailed = true;
              }
            }
            String cause = server.awaitCloseCause(a.localPort);
            assertThat(cause).as("server's close cause").isNotNull().contains("write stall");
            assertThat(a.awaitClosed(Duration.ofSeconds(60))).isTrue();
            return "pongs dropped while unwritable; server: " + cause.replace("ConnectionErrorException ", "");
          }
        });
  }
}
