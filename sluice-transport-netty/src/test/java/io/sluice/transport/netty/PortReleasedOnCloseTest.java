package io.sluice.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.sluice.test.Ports;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.internal.EventLoops;
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
 * listening socket that a selector still holds only at that selector's next select, and io_uring
 * closes it with an operation on the ring, both after netty has completed the channel's close;
 * the bind below runs on the loop thread as {@code onClose()} completes, and found the port still
 * listening with both.
 */
class PortReleasedOnCloseTest {

  private static void assumeAvailable(IoMode mode) {
    if (Boolean.getBoolean("sluice.test.requireNative")) {
      assertThat(mode.unavailabilityCause()).as(mode + " must load under -Pnative-io").isNull();
    }
    Assumptions.assumeTrue(mode.isAvailable(), () -> mode + " cannot load here");
  }

  /** Binds {@code port} on loopback and closes it at once; null, or why it could not. */
  private static String bindAgain(int port) {
    try (ServerSocket again = new ServerSocket()) {
      again.setReuseAddress(true);
      again.bind(new InetSocketAddress("127.0.0.1", port));
      return null;
    } catch (Exception e) {
      return e + "; the port's sockets:\n" + Ports.holders(port);
    }
  }

  @ParameterizedTest
  @EnumSource(value = IoMode.class, names = {"NIO", "EPOLL", "IO_URING"})
  void aClosedServersPortBindsAsSoonAsOnCloseCompletes(IoMode mode) throws Exception {
    assumeAvailable(mode);
    for (int round = 0; round < 20; round++) {
      int port = Ports.outsideEphemeralRange();
      ServerTransport.Bound bound =
          TcpServerTransport.create("127.0.0.1", port).withIo(mode).bind(t -> t.close()).get(10, TimeUnit.SECONDS);
      AtomicReference<String> rebind = new AtomicReference<>();
      var rebound =
          bound
              .onClose()
              .thenRun(() -> rebind.set(bindAgain(port))); // registered before the close: on its thread
      bound.close();
      rebound.get(10, TimeUnit.SECONDS);
      assertThat(rebind.get()).as("round %d: binding port %d again as onClose() completed", round, port).isNull();
    }
  }

  /**
   * io_uring too: the ring's close is submitted as the loop shuts down, and a group of {@link
   * EventLoops#newGroup} takes one more turn before it ends (see the next test).
   */
  @ParameterizedTest
  @EnumSource(value = IoMode.class, names = {"NIO", "EPOLL", "IO_URING"})
  void aServerClosedAsItsLoopShutsDownCompletesOnCloseWithItsPortFree(IoMode mode) throws Exception {
    assumeAvailable(mode);
    EventLoopGroup group = EventLoops.newGroup(1, "release-shutdown", mode);
    int port = Ports.outsideEphemeralRange();
    ServerTransport.Bound bound;
    try {
      bound =
          TcpServerTransport.create("127.0.0.1", port)
              .withEventLoopGroup(group)
              .bind(t -> t.close())
              .get(10, TimeUnit.SECONDS);
      group
          .submit(
              () -> { // on the loop: it is shutting down when the listener's close completes
                group.shutdownGracefully(0, 5, TimeUnit.SECONDS);
                bound.close();
              })
          .get(10, TimeUnit.SECONDS);
    } finally {
      group.shutdownGracefully(0, 5, TimeUnit.SECONDS);
    }
    bound.onClose().get(30, TimeUnit.SECONDS);
    assertThat(bindAgain(port)).isNull();
    assertThat(group.terminationFuture().await(30, TimeUnit.SECONDS)).isTrue();
  }

  /**
   * A loop shut down without a quiet period from one of its own tasks: netty 4.2's loop ended
   * then without closing its channels (it closes them only in a turn that begins after the
   * shutdown), so the listener kept its port after the group had terminated and its close future
   * never completed. A group made by {@link EventLoops#newGroup} closes them all the same.
   */
  @ParameterizedTest
  @EnumSource(value = IoMode.class, names = {"NIO", "EPOLL", "IO_URING"})
  void aLoopShutDownFromItsOwnTaskClosesItsListener(IoMode mode) throws Exception {
    assumeAvailable(mode);
    EventLoopGroup group = EventLoops.newGroup(1, "shutdown-closes", mode);
    int port = Ports.outsideEphemeralRange();
    ServerTransport.Bound bound;
    try {
      bound =
          TcpServerTransport.create("127.0.0.1", port)
              .withEventLoopGroup(group)
              .bind(t -> t.close())
              .get(10, TimeUnit.SECONDS);
      group.submit(() -> group.shutdownGracefully(0, 5, TimeUnit.SECONDS)).get(10, TimeUnit.SECONDS);
    } finally {
      group.shutdownGracefully(0, 5, TimeUnit.SECONDS);
    }
    assertThat(group.terminationFuture().await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(bindAgain(port)).as("the port after the group ended").isNull();
    bound.onClose().get(30, TimeUnit.SECONDS);
  }
}
