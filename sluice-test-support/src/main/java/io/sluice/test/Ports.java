package io.sluice.test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * Ports a test must know before its server binds: for a server that a test stops and starts again
 * on the same port while clients keep connecting to it, or one in another process or framework
 * that cannot report the port it bound (port 0). An ephemeral port found free and bound later
 * races with every socket the machine opens meanwhile: the kernel may hand the same port to a
 * connecting socket (which may even connect to itself, TCP self-connect, while a server is down)
 * and the bind then fails with "address already in use" (seen in clean-clone CI runs). The kernel
 * never hands out a port outside its ephemeral range that way; only another test picking the
 * same one at random can take it.
 */
public final class Ports {
  private Ports() {}

  /** A free loopback port below the kernel's ephemeral range (Linux: ip_local_port_range). */
  public static int outsideEphemeralRange() throws IOException {
    int low = 32768;
    Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    if (Files.isReadable(range)) {
      // readAllLines, not readString: a /proc file reports size 0, and readString read "3" of it.
      low = Integer.parseInt(Files.readAllLines(range).get(0).trim().split("\\s+")[0]);
    }
    Random random = new Random();
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = low > 2048 ? low - 1 - random.nextInt(Math.min(10_000, low - 2048)) : 0;
      try (ServerSocket probe = new ServerSocket()) {
        probe.bind(new InetSocketAddress("127.0.0.1", port));
        return probe.getLocalPort(); // port 0 (no room below the range): an ephemeral one
      } catch (IOException taken) {
        // in use: try another
      }
    }
    throw new IOException("no free port found below " + low);
  }

  /** TCP states as /proc/net/tcp numbers them (1 to 11). */
  private static final String[] STATES = {
    "?", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT", "CLOSE",
    "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING"
  };

  /**
   * The sockets of this host bound to local TCP {@code port}, as /proc/net/tcp and tcp6 list them
   * (local and remote address, state, owner's uid and inode), for a test's failure message when a
   * bind finds the port taken; "none listed" if no socket has it, or what could not be read.
   */
  public static String holders(int port) {
    String hexPort = String.format(java.util.Locale.ROOT, ":%04X", port);
    StringBuilder out = new StringBuilder();
    for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
      try {
        for (String line : Files.readAllLines(Path.of(table)).stream().skip(1).toList()) { // past the heading
          String[] f = line.trim().split("\\s+");
          if (f.length > 9 && f[1].endsWith(hexPort)) {
            int state = Integer.parseInt(f[3], 16);
            out.append(table).append(' ').append(f[1]).append(" -> ").append(f[2]).append(' ')
                .append(state < STATES.length ? STATES[state] : f[3]).append(" uid ").append(f[7])
                .append(" inode ").append(f[9]).append('\n');
          }
        }
      } catch (IOException | RuntimeException e) {
        out.append(table).append(": not read (").append(e).append(")\n");
      }
    }
    return out.length() == 0 ? "none listed" : out.toString();
  }
}
