package io.sluice.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.unix.DomainSocketAddress;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.tck.TransportTestKit;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.io.TempDir;

/** Unix domain sockets (the JDK's under NIO, epoll's or io_uring's when they load) run the kit. */
class UnixTransportKitTest extends TransportTestKit {
  @TempDir Path dir;
  private final AtomicInteger sockets = new AtomicInteger();

  @Override
  protected ServerTransport serverTransport() {
    return UnixServerTransport.create(dir.resolve("kit-" + sockets.incrementAndGet() + ".sock"));
  }

  @Override
  protected ClientTransport clientTransport(ServerTransport.Bound server) {
    return UnixClientTransport.create(path(server.address()));
  }

  /**
   * Nothing listens when the socket file is gone: a {@link java.net.ConnectException} naming the
   * file, on every engine (the native ones report it with no message of their own).
   */
  @Override
  protected void assertConnectFailure(Throwable error) {
    assertThat(error)
        .isInstanceOf(java.net.ConnectException.class)
        .hasMessageContaining("cannot connect to the unix socket " + dir);
  }

  static Path path(SocketAddress address) {
    if (address instanceof UnixDomainSocketAddress) {
      return ((UnixDomainSocketAddress) address).getPath();
    }
    return Path.of(((DomainSocketAddress) address).path());
  }
}
