package io.sluice.balancer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * Ports for a server that a test stops and starts again on the same port while a balancer keeps
 * connecting to it. An ephemeral port would do for the first start, but while the server is down
 * a connecting socket may be given that just-freed port as its own, connect to itself (TCP
 * self-connect) and hold it, and the restart then fails with "address already in use" (seen in
 * clean-clone CI runs). The kernel never hands out a port outside its ephemeral range that way.
 */
final class Ports {
  private Ports() {}

  /** A free loopback port below the kernel's ephemeral range (Linux: ip_local_port_range). */
  static int outsideEphemeralRange() throws IOException {
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
