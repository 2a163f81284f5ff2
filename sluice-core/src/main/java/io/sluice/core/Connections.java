package io.sluice.core;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.sluice.Acceptor;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.internal.ResumeClient;
import io.sluice.internal.ResumeGate;
import io.sluice.internal.ResumeSessions;
import io.sluice.internal.SluiceConnection;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.ServerTransport;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The flavor-neutral way to open and serve RSocket connections; API flavors (reactor, futures, ...)
 * wrap these two calls in their own builders.
 *
 * <p><b>Threads.</b> Both calls may be made from any thread and never block. Their futures may
 * complete on a connection's event loop: do not block in what is chained on them. The {@link
 * Requester} of a connection may then be used from any thread; acceptors and responders are called
 * on the connection's event loop. <b>Buffers.</b> {@link #connect} takes over the setup payload
 * (see {@link ClientSetup}); every {@link io.sluice.Message} crossing a connection follows the
 * rules of {@link Requester} and {@link io.sluice.Responder}.
 */
public final class Connections {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(Connections.class);

  private Connections() {}

  /**
   * Connects a client. The future completes with the connection's requester once requests may be
   * sent: right after SETUP (a rejected SETUP then fails them and {@link Requester#onClose()}), or
   * with {@link ConnectionOptions#lease()}, when the server's first LEASE arrives.
   *
   * @param setup MIME types and setup payload; ownership of the payload passes here
   * @param responder makes the responder for the server's requests to this client
   */
  public static CompletableFuture<Requester> connect(
      ClientTransport transport,
      ConnectionOptions options,
      ClientSetup setup,
      Function<Requester, Responder> responder) {
    Objects.requireNonNull(transport, "transport");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(setup, "setup");
    Objects.requireNonNull(responder, "responder");
    CompletableFuture<Requester> result = new CompletableFuture<>();
    transport
        .connect()
        .whenComplete(
            (t, error) -> {
              if (error != null) {
                if (setup.payload() != null) {
                  setup.payload().release();
                }
                result.completeExceptionally(error);
                return;
              }
              t.executor()
                  .execute(
                      () -> {
                        try {
                          SluiceConnection c =
                              setup.resumption() != null
                                  ? ResumeClient.start(transport, t, options, setup, responder)
                                  : SluiceConnection.client(t, options, setup, responder);
                          c.ready()
                              .whenComplete(
                                  (v, e) -> {
                                    if (e != null) {
                                      result.completeExceptionally(e);
                                    } else {
                                      result.complete(c);
                                    }
                                  });
                        } catch (Throwable e) {
                          t.close();
                          result.completeExceptionally(e);
                        }
                      });
            });
    return result;
  }

  /**
   * Serves connections as {@link #serve} does, and keeps track of them: the {@link SluiceServer}
   * can then be stopped gracefully ({@link SluiceServer#stop}).
   */
  public static CompletableFuture<SluiceServer> start(
      ServerTransport transport, ConnectionOptions options, Acceptor acceptor) {
    Objects.requireNonNull(transport, "transport");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(acceptor, "acceptor");
    SluiceServer server = new SluiceServer(options, acceptor);
    return transport
        .bind(server::onConnection)
        .thenApply(
            b -> {
              server.bound(b);
              return server;
            });
  }

  /** Serves connections: {@code acceptor} decides on each client's SETUP. */
  public static CompletableFuture<ServerTransport.Bound> serve(
      ServerTransport transport, ConnectionOptions options, Acceptor acceptor) {
    Objects.requireNonNull(transport, "transport");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(acceptor, "acceptor");
    if (options.resumption() != null) {
      ResumeSessions sessions = new ResumeSessions(options.resumption());
      return transport.bind(
          (DuplexTransport t) -> ResumeGate.serve(t, options, acceptor, sessions, c -> {}));
    }
    return transport.bind((DuplexTransport t) -> serveOne(t, options, acceptor));
  }

  /**
   * Serves one accepted connection, on its event loop; null if the engine cannot use its transport
   * (one that breaks the SPI), which is then closed, not left open with nobody reading it while its
   * peer waits.
   */
  static SluiceConnection serveOne(DuplexTransport t, ConnectionOptions options, Acceptor acceptor) {
    try {
      return SluiceConnection.server(t, options, acceptor);
    } catch (RuntimeException e) {
      logger.warn("cannot serve a connection over {}; closing it", t, e);
      t.close();
      return null;
    }
  }
}
