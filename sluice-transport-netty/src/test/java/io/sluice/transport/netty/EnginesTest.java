package io.sluice.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import io.sluice.transport.netty.internal.EventLoops;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every engine that loads here carries the four interactions over TCP and over unix sockets, on
 * its own group; groups and channels of different engines never meet. The native engines need
 * netty's native jars: the default build has none and skips them, {@code -Pnative-io} has both
 * and sets {@code sluice.test.requireNative}, which turns a skip into a failure.
 */
class EnginesTest {
  @TempDir Path dir;

  private static void assumeAvailable(IoMode mode) {
    if (Boolean.getBoolean("sluice.test.requireNative")) {
      assertThat(mode.unavailabilityCause()).as(mode + " must load under -Pnative-io").isNull();
    }
    Assumptions.assumeTrue(
        mode.isAvailable(), () -> mode + " cannot load here: " + mode.unavailabilityCause());
  }

  @ParameterizedTest
  @EnumSource(value = IoMode.class, names = {"NIO", "EPOLL", "IO_URING"})
  void tcpCarriesEveryInteraction(IoMode mode) throws Exception {
    assumeAvailable(mode);
    Interactions.runAll(
        TcpServerTransport.create("127.0.0.1", 0).withIo(mode), a -> TcpClientTransport.create((InetSocketAddress) a).withIo(mode));
  }

  @ParameterizedTest
  @EnumSource(value = IoMode.class, names = {"NIO", "EPOLL", "IO_URING"})
  void unixSocketCarriesEveryInteraction(IoMode mode) throws Exception {
    assumeAvailable(mode);
    Path socket = dir.resolve("s.sock");
    Interactions.runAll(
        UnixServerTransport.create(socket).withIo(mode), a -> UnixClientTransport.create(socket).withIo(mode));
    assertThat(socket).as("removed on close").doesNotExist();
  }

  @ParameterizedTest
  @EnumSource(value = IoMode.class, names = {"NIO", "EPOLL", "IO_URING"})
  void aGroupDecidesTheChannelType(IoMode mode) throws Exception {
    assumeAvailable(mode);
    EventLoopGroup server = EventLoops.newGroup(1, "engines-server", mode);
    EventLoopGroup client = EventLoops.newGroup(1, "engines-client", mode);
    try {
      assertThat(EventLoops.modeOf(server)).isEqualTo(mode);
      Path socket = dir.resolve("g.sock");
      Interactions.runAll(
          UnixServerTransport.create(socket).withEventLoopGroup(server),
          a -> UnixClientTransport.create(socket).withEventLoopGroup(client));
      Interactions.runAll(
          TcpServerTransport.create("127.0.0.1", 0).withEventLoopGroup(server),
          a -> TcpClientTransport.create((InetSocketAddress) a).withEventLoopGroup(client));
    } finally {
      server.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
      client.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Test
  void aGroupOfAnotherEngineThanAskedIsRefused() {
    EventLoopGroup nio = EventLoops.newGroup(1, "engines-nio", IoMode.NIO);
    try {
      for (IoMode other : new IoMode[] {IoMode.EPOLL, IoMode.IO_URING}) {
        if (!other.isAvailable()) {
          continue; // withIo(other) alone fails first: covered below
        }
        assertThatThrownBy(() -> TcpServerTransport.create("127.0.0.1", 0).withIo(other).withEventLoopGroup(nio))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("runs nio I/O but withIo asked for " + other.label());
        assertThatThrownBy(() -> UnixClientTransport.create(Path.of("x.sock")).withEventLoopGroup(nio).withIo(other))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("runs nio I/O but withIo asked for " + other.label());
      }
      // The same engine, or AUTO, goes with it.
      TcpClientTransport.create("127.0.0.1", 1).withEventLoopGroup(nio).withIo(IoMode.NIO).withIo(IoMode.AUTO);
    } finally {
      nio.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Test
  void aGroupOfNoKnownEngineIsRefused() {
    EventLoopGroup plain = new DefaultEventLoopGroup(1);
    try {
      assertThatThrownBy(() -> TcpServerTransport.create("127.0.0.1", 0).withEventLoopGroup(plain))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("runs neither NIO, epoll nor io_uring");
      assertThatThrownBy(() -> UnixServerTransport.create(Path.of("x.sock")).withEventLoopGroup(plain))
          .isInstanceOf(IllegalArgumentException.class);
    } finally {
      plain.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @ParameterizedTest
  @EnumSource(value = IoMode.class, names = {"EPOLL", "IO_URING"})
  void anExplicitEngineThatCannotLoadIsAClearError(IoMode mode) {
    Assumptions.assumeFalse(mode.isAvailable(), mode + " loads here");
    assertThatThrownBy(() -> TcpClientTransport.create("127.0.0.1", 1).withIo(mode))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(mode.label() + " I/O was asked for but cannot run here")
        .hasMessageContaining("netty-transport-native-" + mode.label());
    assertThatThrownBy(() -> EventLoops.newGroup(1, "x", mode)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void theSharedGroupsMatchTheirEngines() {
    assertThat(EventLoops.modeOf(EventLoops.shared())).isEqualTo(EventLoops.defaultMode());
    assertThat(EventLoops.modeOf(EventLoops.shared(IoMode.NIO))).isEqualTo(IoMode.NIO);
    assertThat(EventLoops.defaultMode()).isNotEqualTo(IoMode.AUTO);
  }
}
