package io.sluice.benchmarks.scale;

/**
 * The loopback addresses a scale run spreads its connections over: 127.0.0.1, 127.0.0.2, ... (all
 * of 127/8 is loopback on Linux, no setup needed). Each destination address has its own range of
 * ephemeral ports, so more addresses hold more connections than one port range.
 */
public final class ScaleAddresses {
  private ScaleAddresses() {}

  /** Connections per destination address, well inside the usual 28,000-port ephemeral range. */
  public static final int CONNECTIONS_PER_ADDRESS = 16_000;

  /** How many addresses {@code connections} need. */
  public static int needed(int connections) {
    return Math.max(1, (connections + CONNECTIONS_PER_ADDRESS - 1) / CONNECTIONS_PER_ADDRESS);
  }

  /** The {@code index}-th address (0-based): 127.0.0.{index + 1}. */
  public static String host(int index) {
    if (index < 0 || index > 249) {
      throw new IllegalArgumentException("address index " + index);
    }
    return "127.0.0." + (index + 1);
  }
}
