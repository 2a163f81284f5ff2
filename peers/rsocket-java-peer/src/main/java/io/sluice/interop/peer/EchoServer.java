package io.sluice.interop.peer;

import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketServer;
import io.rsocket.core.Resume;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.ServerTransport;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.rsocket.transport.netty.server.WebsocketServerTransport;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.time.Duration;
import reactor.core.publisher.Mono;

/**
 * The {@code server} mode: an rsocket-java TCP server implementing the echo contract of {@link
 * EchoResponder}, accepting SETUP with any MIME types and with or without the lease flag.
 */
final class EchoServer {

  private static final Duration BIND_TIMEOUT = Duration.ofSeconds(30);

  /** Serve rsocket-java's WebSocket transport (path /) instead of TCP. */
  private final boolean webSocket;
  private final String host;
  private final int port;
  private final int mtu;
  private final boolean exitOnStdinEof;
  /** Offer rsocket-java's session resumption (one server, no lease). */
  private boolean resume;

  EchoServer resume(boolean on) {
    this.resume = on;
    return this;
  }

  EchoServer(String host, int port, int mtu, boolean exitOnStdinEof, boolean webSocket) {
    this.webSocket = webSocket;
    this.host = host;
    this.port = port;
    this.mtu = mtu;
    this.exitOnStdinEof = exitOnStdinEof;
  }

  /**
   * Binds, prints {@code LISTENING <port>} to {@code out}, then blocks until the server is closed
   * (by stdin EOF when enabled, otherwise only by killing the process).
   */
  void run(PrintStream out) {
    ServerTransport<CloseableChannel> transport =
        webSocket ? WebsocketServerTransport.create(host, port) : TcpServerTransport.create(host, port);
    int maxFrameLength = transport.maxFrameLength();
    // Two otherwise identical servers: rsocket-java decides lease support per server, so the
    // LeaseAwareAcceptor picks one per connection from the SETUP frame's lease flag.
    LeaseAwareAcceptor acceptor =
        new LeaseAwareAcceptor(
            newServer(false).asConnectionAcceptor(maxFrameLength),
            newServer(true).asConnectionAcceptor(maxFrameLength));

    CloseableChannel channel =
        resume
            // A RESUME must reach the server that holds the session: one server, no lease peek.
            ? newServer(false)
                .resume(new Resume().sessionDuration(Duration.ofSeconds(60)))
                .bind(transport)
                .block(BIND_TIMEOUT)
            : transport.start(acceptor).block(BIND_TIMEOUT);
    if (channel == null) {
      throw new IllegalStateException("server did not bind");
    }
    out.println("LISTENING " + channel.address().getPort());
    out.flush();

    if (exitOnStdinEof) {
      Thread watcher = new Thread(() -> awaitEof(System.in, channel), "stdin-eof-watcher");
      watcher.setDaemon(true);
      watcher.start();
    }
    channel.onClose().block();
  }

  private RSocketServer newServer(boolean lease) {
    // A fresh EchoResponder per connection keeps the fnf / metadata-push memory per connection.
    SocketAcceptor perConnection =
        (setup, sendingSocket) ->
            Mono.just(new EchoResponder(Routing.COMPOSITE.equals(setup.metadataMimeType())));
    RSocketServer server = RSocketServer.create(perConnection);
    if (mtu > 0) {
      server.fragment(mtu);
    }
    if (lease) {
      server.lease(spec -> spec.sender(Leases.generous()));
    }
    return server;
  }

  private static void awaitEof(InputStream in, CloseableChannel channel) {
    byte[] buffer = new byte[256];
    try {
      while (in.read(buffer) >= 0) {
        // Discard input; only the end of the stream matters.
      }
    } catch (IOException e) {
      // Treat a broken stdin like EOF.
    }
    channel.dispose();
  }
}
