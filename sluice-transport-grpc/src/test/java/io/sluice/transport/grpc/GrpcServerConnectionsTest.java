package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Socket;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/** {@code GrpcServer.Running.connections()}: the connections open now, whatever their protocol. */
class GrpcServerConnectionsTest {
  @Test
  void countsEachOpenConnectionUntilItCloses() throws Exception {
    GrpcServer.Running server = GrpcServer.create("127.0.0.1", 0).withServices(new EchoService().registry()).start();
    try {
      assertThat(server.connections()).as("before any client").isZero();
      try (Socket first = new Socket("127.0.0.1", server.port());
          Socket second = new Socket("127.0.0.1", server.port())) {
        // Not a byte sent yet: their protocol is not known, and they count.
        assertThat(awaitValue(server::connections, 2)).as("two connected").isEqualTo(2);
        first.close();
        assertThat(awaitValue(server::connections, 1)).as("one closed").isEqualTo(1);
      }
      assertThat(awaitValue(server::connections, 0)).as("both closed").isZero();
    } finally {
      server.stop(java.time.Duration.ZERO).get(10, java.util.concurrent.TimeUnit.SECONDS);
    }
  }

  /** {@code value}'s reading once it is {@code expected}, or its last after 10 s (a hang guard). */
  private static int awaitValue(IntSupplier value, int expected) throws InterruptedException {
    long end = System.nanoTime() + 10_000_000_000L;
    int v = value.getAsInt();
    while (v != expected && System.nanoTime() - end < 0) {
      Thread.sleep(10);
      v = value.getAsInt();
    }
    return v;
  }
}
