package io.sluice.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.ErrorCode;
import io.sluice.test.FrameBuilder;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Attacks on session resumption against a server process that offers it ({@code resume}: {@link
 * HostileServerMain} with {@code Resumption}'s defaults but at most {@link #MAX_SESSIONS}
 * sessions): guessed tokens, RESUME with positions beyond what was sent, RESUME floods, thousands
 * of abandoned sessions, and a RESUME of a session that is still connected. Each runs while a
 * well-behaved client does its calls; the base class checks memory and leaks. The exact answers
 * (which refusal, rate bounds, the budget) are checked in-process by sluice-core's {@code
 * ResumeHostileTest}; here the server must answer each attack on the wire, stay up, and stay small.
 * The abandoned sessions run last: they fill the server's sessions for its session timeout.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ResumeAttacksTest extends HostileTestBase {
  static final int MAX_SESSIONS = 1_000;
  private static final String TRY_AGAIN = "too many failed RESUME attempts; try again later";

  @Override
  String[] serverOptions() {
    return new String[] {
      "setupTimeoutMs=2000", WRITE_STALL_TIMEOUT, "resumeMaxSessions=" + MAX_SESSIONS
    };
  }

  /** A raw client: writes length-prefixed frames, reads what comes back until the server closes. */
  private static final class Raw implements AutoCloseable {
    final Socket socket;
    final List<String> got = new ArrayList<>();
    private final DataInputStream in;
    private final OutputStream out;

    Raw(int port) throws IOException {
      socket = new Socket(InetAddress.getLoopbackAddress(), port);
      socket.setSoTimeout(30_000);
      in = new DataInputStream(socket.getInputStream());
      out = socket.getOutputStream();
    }

    Raw send(byte[] frame) throws IOException {
      out.write(FrameBuilder.lengthPrefixed(frame));
      out.flush();
      return this;
    }

    /** Reads one frame as "TYPE" or "ERROR code message"; null at the end of the stream. */
    String next() throws IOException {
      int len;
      try {
        len = in.readUnsignedByte() << 16 | in.readUnsignedByte() << 8 | in.readUnsignedByte();
      } catch (EOFException e) {
        return null;
      }
      byte[] f = new byte[len];
      in.readFully(f);
      int type = (f[4] & 0xFF) >>> 2;
      String s =
          type == FrameBuilder.TYPE_ERROR
              ? "ERROR 0x" + Integer.toHexString(
                      (f[6] & 0xFF) << 24 | (f[7] & 0xFF) << 16 | (f[8] & 0xFF) << 8 | (f[9] & 0xFF))
                  + " " + new String(f, 10, len - 10, StandardCharsets.UTF_8)
              : type == FrameBuilder.TYPE_RESUME_OK ? "RESUME_OK" : "type " + type;
      got.add(s);
      return s;
    }

    /** Reads until the server closes (bounded: 30 s of silence fails). */
    List<String> untilClosed() throws IOException {
      try {
        while (next() != null) {
          // collected in got
        }
      } catch (SocketTimeoutException e) {
        throw new AssertionError("the server neither answered nor closed within 30 s: " + got, e);
      } catch (IOException e) {
        // reset by the server: closed
      }
      return got;
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  private static byte[] token() {
    byte[] t = new byte[16];
    ThreadLocalRandom.current().nextBytes(t);
    return t;
  }

  /**
   * Makes a session with {@code token} on a new connection and waits for the answer to a
   * request-response on it, so that the session surely exists before another connection names it.
   */
  private static Raw session(int port, byte[] token) throws IOException {
    for (int attempt = 0; ; attempt++) {
      Raw owner = new Raw(port);
      owner.send(resumableSetup(token));
      owner.send(FrameBuilder.requestResponse(1).data("hello").toBytes());
      String answer = owner.next();
      if (answer != null && answer.contains("no more resumable sessions") && attempt < 5) {
        // Failed RESUMEs from this address (the attacks') also bound its resumable SETUPs for the
        // rest of the second: try in the next one.
        owner.close();
        Attacker.sleep(1_100);
        continue;
      }
      assertThat(answer).as("the answer to the owner's request").isEqualTo("type 10");
      return owner;
    }
  }

  private static byte[] resumableSetup(byte[] token) {
    return FrameBuilder.setup().keepAlive(20_000).lifetime(90_000).resumeToken(token).toBytes();
  }

  private static String rejectedResume() {
    return "ERROR 0x" + Integer.toHexString(ErrorCode.REJECTED_RESUME) + " ";
  }

  @Test
  @Order(1)
  void guessedTokens() throws Exception {
    String outcome =
        scenario(
            "resume: guessed tokens",
            port -> {
              try (Raw r = new Raw(port)) {
                List<String> got = r.send(FrameBuilder.resume(token(), 0, 0).toBytes()).untilClosed();
                assertThat(got).hasSize(1);
                assertThat(got.get(0))
                    .startsWith(rejectedResume())
                    .matches(".*(no session for this resume token|" + TRY_AGAIN + ")");
                return got.get(0);
              }
            });
    assertThat(outcome).startsWith(rejectedResume());
  }

  @Test
  @Order(2)
  void resumeWithPositionsBeyondWhatWasSent() throws Exception {
    scenario(
        "resume: RESUME with positions beyond what was sent",
        port -> {
          byte[] t = token();
          try (Raw owner = session(port, t)) {
            try (Raw r = new Raw(port)) {
              List<String> got = r.send(FrameBuilder.resume(t, 1_000_000, 0).toBytes()).untilClosed();
              assertThat(got).hasSize(1);
              assertThat(got.get(0))
                  .startsWith(rejectedResume())
                  .matches(".*(from position 1000000.*|" + TRY_AGAIN + ")");
              if (got.get(0).contains("from position")) {
                // The session is ended: its own transport is closed too (after the answer it had).
                assertThat(owner.untilClosed()).first().isEqualTo("type 10");
              }
              return got.get(0);
            }
          }
        });
  }

  @Test
  @Order(3)
  void resumeFlood() throws Exception {
    scenario(
        "resume: RESUME flood (20 connections x 50 RESUMEs)",
        port -> {
          List<Raw> raws = new ArrayList<>();
          try {
            for (int i = 0; i < 20; i++) {
              Raw r = new Raw(port);
              raws.add(r);
              byte[] one = FrameBuilder.lengthPrefixed(FrameBuilder.resume(token(), 0, 0).toBytes());
              byte[] burst = new byte[one.length * 50];
              for (int k = 0; k < 50; k++) {
                System.arraycopy(one, 0, burst, k * one.length, one.length);
              }
              try {
                r.socket.getOutputStream().write(burst);
              } catch (IOException e) {
                // closed by the server mid-burst: fine
              }
            }
            int refused = 0;
            for (Raw r : raws) {
              List<String> got = r.untilClosed();
              assertThat(got.size()).as("one answer per connection: %s", got).isLessThanOrEqualTo(1);
              if (!got.isEmpty()) {
                assertThat(got.get(0)).startsWith(rejectedResume());
                refused++;
              }
            }
            return refused + " of 20 connections refused, all closed";
          } finally {
            for (Raw r : raws) {
              r.close();
            }
          }
        });
  }

  @Test
  @Order(5)
  void abandonedSessionsAreBounded() throws Exception {
    int[] made = new int[1];
    scenario(
        "resume: abandoned resumable sessions (1,200 per run, at most " + MAX_SESSIONS + " kept)",
        port -> {
          for (int i = 0; i < 1_200; i++) {
            try (Raw r = new Raw(port)) {
              r.send(resumableSetup(token())); // then gone: the server keeps the session or refuses
            }
            made[0]++;
          }
          return made[0] + " resumable SETUPs abandoned so far";
        });
    assertThat(made[0]).isGreaterThan(MAX_SESSIONS);
    // Sessions are kept for the session timeout (60 s), each one an open connection: bounded.
    ServerProcess.Stats stats = server.stats();
    assertThat(stats.connections()).isLessThanOrEqualTo(MAX_SESSIONS + 5);
    // One more is refused now, with the one refusal a resumable SETUP gets.
    try (Raw r = new Raw(port())) {
      r.send(resumableSetup(token()));
      String answer = r.next();
      assertThat(answer)
          .startsWith("ERROR 0x" + Integer.toHexString(ErrorCode.REJECTED_SETUP) + " ")
          .contains("no more resumable sessions");
    }
  }

  private int port() {
    return server.port;
  }

  @Test
  @Order(4)
  void resumeOfASessionStillConnected() throws Exception {
    scenario(
        "resume: RESUME of a session still connected",
        port -> {
          byte[] t = token();
          try (Raw owner = session(port, t)) {
            for (int attempt = 0; ; attempt++) {
              try (Raw r = new Raw(port)) {
                r.send(FrameBuilder.resume(t, 0, 0).toBytes());
                String answer = r.next();
                if (answer != null && answer.endsWith(TRY_AGAIN) && attempt < 5) {
                  Attacker.sleep(1_100); // the failed-attempt bound of other scenarios: next second
                  continue;
                }
                assertThat(answer).isEqualTo("RESUME_OK");
                // The new transport took the session over: the old one is closed.
                assertThat(owner.untilClosed()).containsExactly("type 10");
                return answer + ", the first transport closed";
              }
            }
          }
        });
  }
}
