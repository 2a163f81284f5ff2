package io.sluice.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.transport.ServerTransport;
import io.sluice.test.Ports;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * When a server's {@code onClose()} completes, its port is free: a server restarted in the same
 * process on the same port (a rolling restart, a test) binds at once. With NIO the JDK closes a
 * listening socket that a selector still holds only at that selector's next select, after netty
 * has completed the channel's close; the bind below runs on the loop thread as {@code onClose()}
 * completes, before that select, and found the port still listening.
 */
class PortReleasedOnCloseTest {

  @ParameterizedTest
  @EnumSource(value = IoMode.class, names = {"NIO", "EPOLL", "IO_URING"})
  void aClosedServersPortBindsAsSoonAsOnCloseCompletes(IoMode mode) throws Exception {
    if (Boolean.getBoolean("sluice.test.requireNative")) {
      assertThat(mode.unavailabilityCause()).as(mode + " must load under -Pnative-io").isNull();
    }
    Assumptions.assumeTrue(mode.isAvailable(), () -> mode + " cannot load here");
    for (int round = 0; round < 20; round++) {
      int port = Ports.outsideEphemeralRange();
      ServerTransport.Bound bound =
          TcpServerTransport.create("127.0.0.1", port).withIo(mode).bind(t -> t.close()).get(10, TimeUnit.SECONDS);
      AtomicReference<Throwable> rebind = new AtomicReference<>();
      var rebound =
          bound
              .onClose()
              .thenRun( // registered before the close: runs on the thread that completes it
                  () -> {
                    try (ServerSocket again = new ServerSocket()) {
                      again.setReuseAddress(true);
                      again.bind(new InetSocketAddress("127.0.0.1", port));
                    } catch (Exception e) {
                      rebind.set(e);
                    }
                  });
      bound.close();
      rebound.get(10, TimeUnit.SECONDS);
      assertThat(rebind.get())
          .as("round %d: binding port %d again as onClose() completed; its sockets:%n%s",
              round, port, Ports.holders(port))
          .isNull();
    }
  }
}
