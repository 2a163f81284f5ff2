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
}
