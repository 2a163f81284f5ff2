package io.sluice.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.ServerTransport;
import java.io.IOException;
import java.net.BindException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The socket file rules of {@link UnixServerTransport}, on the default engine. */
class UnixServerTransportTest {
  private static final long WAIT = Interactions.WAIT_SECONDS;

  @TempDir Path dir;

  private static ServerTransport.Bound bind(UnixServerTransport t) throws Exception {
    return t.bind(c -> c.executor().execute(c::close)).get(WAIT, TimeUnit.SECONDS);
  }

  private static Throwable bindFailure(UnixServerTransport t) {
    ExecutionException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ExecutionException.class, () -> t.bind(c -> {}).get(WAIT, TimeUnit.SECONDS));
    return e.getCause();
  }

  private static void close(ServerTransport.Bound b) throws Exception {
    b.close();
    b.onClose().get(WAIT, TimeUnit.SECONDS);
  }

  @Test
  void aPathOverTheOsLimitIsRefusedNamingTheLimit() {
    Path p = dir.resolve("x".repeat(120) + ".sock");
    for (Runnable create :
        List.<Runnable>of(() -> UnixServerTransport.create(p), () -> UnixClientTransport.create(p))) {
      assertThatThrownBy(create::run)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("sun_path holds 108 bytes including the terminating NUL");
    }
    // 107 bytes fit exactly; 108 do not.
    assertThat(UnixSocketFiles.checkPath(Path.of("a".repeat(107)), 108)).isNotNull();
    assertThatThrownBy(() -> UnixSocketFiles.checkPath(Path.of("a".repeat(108)), 108))
        .hasMessageContaining("is 108 bytes");
    assertThat(UnixSocketFiles.sunPathBytes("Mac OS X")).isEqualTo(104);
    assertThat(UnixSocketFiles.sunPathBytes("Linux")).isEqualTo(108);
  }

  @Test
  void aFileThatIsNotASocketIsNeverReplaced() throws Exception {
    Path file = Files.writeString(dir.resolve("data.sock"), "precious");
    assertThat(bindFailure(UnixServerTransport.create(file)))
        .isInstanceOf(FileAlreadyExistsException.class)
        .hasMessageContaining("not a unix socket; refusing to replace it");
    assertThat(file).hasContent("precious");

    Path directory = Files.createDirectory(dir.resolve("d.sock"));
    assertThat(bindFailure(UnixServerTransport.create(directory)))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(directory).isDirectory();
  }

  @Test
  void aStaleSocketNobodyListensOnIsReplaced() throws Exception {
    Path socket = dir.resolve("stale.sock");
    try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      dead.bind(UnixDomainSocketAddress.of(socket)); // the JDK leaves the file behind on close
    }
    assertThat(UnixSocketFiles.isSocket(socket)).isTrue();
    ServerTransport.Bound b = bind(UnixServerTransport.create(socket));
    try {
      try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
        assertThat(c.isConnected()).isTrue();
      }
    } finally {
      close(b);
    }
  }

  /**
   * Two servers that start at once on the same stale socket: one binds, the other is refused.
   * Replacing a stale socket is check-then-delete, and the later delete could remove the socket
   * the other server had just bound: both then reported success, one of them unreachable.
   */
  @Test
  void twoServersStartingAtOnceOnAStaleSocketNeverBothBind() throws Exception {
    java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      for (int i = 0; i < 200; i++) {
        Path socket = dir.resolve("race" + i + ".sock");
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
          dead.bind(UnixDomainSocketAddress.of(socket));
        }
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2);
        List<java.util.concurrent.Future<ServerTransport.Bound>> binds = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
          binds.add(
              threads.submit(
                  () -> {
                    start.await(WAIT, TimeUnit.SECONDS);
                    return UnixServerTransport.create(socket)
                        .bind(c -> c.executor().execute(c::close))
                        .get(WAIT, TimeUnit.SECONDS);
                  }));
        }
        List<ServerTransport.Bound> bound = new ArrayList<>();
        for (java.util.concurrent.Future<ServerTransport.Bound> f : binds) {
          try {
            bound.add(f.get(WAIT, TimeUnit.SECONDS));
          } catch (ExecutionException refused) {
            // the other one won
          }
        }
        try {
          assertThat(bound).as("servers bound to %s in round %d", socket, i).hasSize(1);
          try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            assertThat(c.isConnected()).isTrue();
          }
        } finally {
          for (ServerTransport.Bound b : bound) {
            close(b);
          }
        }
      }
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void aSocketSomeoneListensOnIsAddressInUse() throws Exception {
    Path socket = dir.resolve("live.sock");
    try (ServerSocketChannel live = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      live.bind(UnixDomainSocketAddress.of(socket));
      assertThat(bindFailure(UnixServerTransport.create(socket)))
          .isInstanceOf(BindException.class)
          .hasMessageContaining("address in use: a server is listening on " + socket);
      assertThat(UnixSocketFiles.isSocket(socket)).as("the live socket is left alone").isTrue();
      try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
        assertThat(c.isConnected()).isTrue();
      }
    }
  }

  @Test
  void theSocketIsOwnerOnlyUnlessConfiguredAndIsRemovedOnClose() throws Exception {
    Path socket = dir.resolve("perm.sock");
    ServerTransport.Bound b = bind(UnixServerTransport.create(socket));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket))).isEqualTo("rw-------");
    close(b);
    assertThat(socket).doesNotExist();

    b = bind(UnixServerTransport.create(socket).withPermissions("rw-rw----"));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket))).isEqualTo("rw-rw----");
    close(b);
    assertThat(socket).doesNotExist();
    assertThatThrownBy(() -> UnixServerTransport.create(socket).withPermissions("rw"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void connectingToNothingFailsClearly() {
    Path missing = dir.resolve("none.sock");
    ExecutionException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ExecutionException.class,
            () -> UnixClientTransport.create(missing).connect().get(WAIT, TimeUnit.SECONDS));
    assertThat(e.getCause()).isInstanceOf(IOException.class);
  }

  @Test
  void connectionsOverTheCapAreClosedOnAccept() throws Exception {
    Path socket = dir.resolve("cap.sock");
    ConcurrentLinkedQueue<DuplexTransport> accepted = new ConcurrentLinkedQueue<>();
    ServerTransport.Bound b =
        UnixServerTransport.create(socket).withMaxConnections(1).bind(accepted::add).get(WAIT, TimeUnit.SECONDS);
    List<SocketChannel> clients = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        clients.add(SocketChannel.open(UnixDomainSocketAddress.of(socket)));
      }
      // One of the two is closed by the server without a byte: its read sees EOF.
      int eofs = 0;
      for (SocketChannel c : clients) {
        c.configureBlocking(false);
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT);
      ByteBuffer buf = ByteBuffer.allocate(1);
      while (eofs == 0 && System.nanoTime() < deadline) {
        for (SocketChannel c : clients) {
          if (c.read(buf) == -1) {
            eofs++;
          }
        }
        Thread.onSpinWait();
      }
      assertThat(eofs).as("connections closed over the cap").isEqualTo(1);
      // The accepted one reaches the callback on its own event loop, which may run after the
      // other one's close was seen here: wait for it (bounded) before counting.
      while (accepted.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      assertThat(accepted).hasSize(1);
      assertThatThrownBy(() -> UnixServerTransport.create(socket).withMaxConnections(0))
          .isInstanceOf(IllegalArgumentException.class);
    } finally {
      for (SocketChannel c : clients) {
        c.close();
      }
      for (DuplexTransport t : accepted) {
        t.executor().execute(t::close);
      }
      close(b);
    }
  }

  @Test
  void tlsRunsOverAUnixSocket() throws Exception {
    X509Bundle cert = new CertificateBuilder()
            .subject("CN=sluice-test")
            .addSanDnsName("sluice-test")
            .setIsCertificateAuthority(true)
            .buildSelfSigned();
    SslContext server = SslContextBuilder.forServer(cert.toKeyManagerFactory()).build();
    SslContext client = SslContextBuilder.forClient().trustManager(cert.toTrustManagerFactory()).build();
    Path socket = dir.resolve("tls.sock");
    Interactions.runAll(
        UnixServerTransport.create(socket).withSsl(server),
        a -> UnixClientTransport.create(socket).withSsl(client, "sluice-test"));

    // A client that does not trust the server's certificate never gets a connection.
    SslContext stranger =
        SslContextBuilder.forClient()
            .trustManager(new CertificateBuilder().subject("CN=other").setIsCertificateAuthority(true).buildSelfSigned().toTrustManagerFactory())
            .build();
    ConcurrentLinkedQueue<DuplexTransport> accepted = new ConcurrentLinkedQueue<>();
    // Each accepted connection starts reading at once, as a Sluice server's does: the TLS handshake
    // needs the server to read the ClientHello. A connection only queued here is never read, and
    // the stranger's connect then failed by its own 10 s handshake timeout (an SSLException too),
    // before its certificate check had anything to check.
    ServerTransport.Bound b =
        UnixServerTransport.create(socket)
            .withSsl(server)
            .bind(t -> {
              accepted.add(t);
              t.executor().execute(() -> t.start(new Discarding()));
            })
            .get(WAIT, TimeUnit.SECONDS);
    try {
      ExecutionException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              ExecutionException.class,
              () -> UnixClientTransport.create(socket).withSsl(stranger, "sluice-test").connect().get(WAIT, TimeUnit.SECONDS));
      // The handshake fails (SSLException), or the server, failing its side first, closes the
      // connection before the client's alert: either way no connection is handed out. Not by the
      // handshake timeout: the server answered and the client refused its certificate.
      assertThat(e.getCause())
          .isInstanceOfAny(javax.net.ssl.SSLException.class, java.nio.channels.ClosedChannelException.class)
          .isNotInstanceOf(io.netty.handler.ssl.SslHandshakeTimeoutException.class);
    } finally {
      for (DuplexTransport t : accepted) {
        t.executor().execute(t::close);
      }
      close(b);
    }
  }

  /** Reads and drops every frame: a server connection that reads, for the TLS handshake's sake. */
  private static final class Discarding implements io.sluice.transport.FrameReceiver {
    @Override
    public int maxFrameSize() {
      return 1 << 24;
    }

    @Override
    public int maxQueuedOutboundBytes() {
      return 1 << 16;
    }

    @Override
    public void onFrame(io.netty.buffer.ByteBuf frame) {}

    @Override
    public void onReadComplete() {}

    @Override
    public void onWritabilityChanged(boolean writable) {}

    @Override
    public void onTransportError(Throwable cause) {}

    @Override
    public void onClosed() {}
  }
}
