package io.sluice.transport.tck;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Requester;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The connections of one kit test: a server and its clients, built with the engine's public API
 * ({@link Connections}) over the transports under test, each connection wrapped in a {@link
 * ControlledTransport}. {@link #close()} closes everything, waits until every connection is
 * closed and checks that every buffer the test allocated was released.
 *
 * <p><b>Threads.</b> Used from the test's thread; the lists are filled from connection loops.
 */
final class Peers implements AutoCloseable {
  /** Every wait of the kit: a guard against hangs, never a measure of speed. */
  static final long WAIT_SECONDS = 30;

  final CountingAllocator alloc = new CountingAllocator();
  final EchoResponder serverResponder = new EchoResponder(alloc);
  final EchoResponder clientResponder = new EchoResponder(alloc);
  /** The server's requester of each accepted connection, as it is accepted. */
  final BlockingQueue<Requester> accepted = new LinkedBlockingQueue<>();

  private final List<Requester> serverSides = new CopyOnWriteArrayList<>();
  /** The server's end of each connection, as the transport hands it over (before SETUP). */
  final List<ControlledTransport> serverTransports = new CopyOnWriteArrayList<>();
  private final List<Client> clients = new CopyOnWriteArrayList<>();
  private final List<ServerTransport.Bound> servers = new CopyOnWriteArrayList<>();

  /** A client connection: its requester and its end of the transport. */
  record Client(Requester requester, ControlledTransport transport) {}

  /** Serves the kit's echo responder over {@code transport}. */
  ServerTransport.Bound serve(ServerTransport transport, ConnectionOptions options)
      throws Exception {
    ServerTransport controlled =
        onConnection ->
            transport.bind(
                t -> {
                  ControlledTransport c = new ControlledTransport(t);
                  serverTransports.add(c);
                  onConnection.accept(c);
                });
    ServerTransport.Bound bound =
        await(
            Connections.serve(
                controlled,
                options,
                (setup, requester) -> {
                  serverSides.add(requester);
                  accepted.add(requester);
                  return serverResponder;
                }),
            "binding the server");
    servers.add(bound);
    return bound;
  }

  /** Connects a client running the kit's echo responder; does not wait. */
  CompletableFuture<Client> connectAsync(ClientTransport transport, ConnectionOptions options) {
    CompletableFuture<ControlledTransport> end = new CompletableFuture<>();
    ClientTransport controlled =
        () ->
            transport
                .connect()
                .thenApply(
                    t -> {
                      ControlledTransport c = new ControlledTransport(t);
                      end.complete(c);
                      return c;
                    });
    return Connections.connect(controlled, options, ClientSetup.defaults(), r -> clientResponder)
        .thenApply(
            r -> {
              Client c = new Client(r, end.join());
              clients.add(c);
              return c;
            });
  }

  Client connect(ClientTransport transport, ConnectionOptions options) throws Exception {
    return await(connectAsync(transport, options), "connecting");
  }

  /** The server's requester of the next accepted connection. */
  Requester nextAccepted() throws InterruptedException {
    Requester r = accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(r).as("a connection accepted by the server within %d s", WAIT_SECONDS).isNotNull();
    return r;
  }

  /** The only client connection. */
  Client onlyClient() {
    assertThat(clients).hasSize(1);
    return clients.get(0);
  }

  /** The server's requester of every connection accepted so far. */
  List<Requester> acceptedSoFar() {
    return serverSides;
  }

  /** The server's end of the only connection. */
  ControlledTransport onlyServerTransport() {
    assertThat(serverTransports).hasSize(1);
    return serverTransports.get(0);
  }

  /** Waits for {@code f}, failing the test (not hanging it) after {@link #WAIT_SECONDS}. */
  static <T> T await(CompletableFuture<T> f, String what) throws Exception {
    try {
      return f.get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError(what + ": nothing happened within " + WAIT_SECONDS + " s", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception ex) {
        throw ex;
      }
      throw e;
    }
  }

  /** The connection's close, whether it ended cleanly (null) or with an error (the error). */
  static Throwable awaitClosed(Requester r, String what) throws Exception {
    return await(r.onClose().handle((v, e) -> e), what);
  }

  @Override
  public void close() throws Exception {
    List<CompletableFuture<?>> closes = new ArrayList<>();
    for (Client c : clients) {
      c.requester().dispose();
      closes.add(c.requester().onClose().handle((v, e) -> null));
      closes.add(c.transport().closed());
    }
    for (Requester r : serverSides) {
      r.dispose();
      closes.add(r.onClose().handle((v, e) -> null));
    }
    for (ControlledTransport t : serverTransports) {
      closes.add(t.abort()); // also connections that never got to SETUP
      closes.add(t.closed());
    }
    for (ServerTransport.Bound b : servers) {
      b.close();
      closes.add(b.onClose());
    }
    try {
      await(CompletableFuture.allOf(closes.toArray(CompletableFuture[]::new)), "closing everything");
      assertAllReleased();
    } finally {
      alloc.releaseAll();
    }
  }

  /**
   * Waits until every buffer the kit allocated is released (transports may release queued output
   * a little after the close they report, e.g. at the end of a lingering close), failing the test
   * if some is still held after {@link #WAIT_SECONDS}.
   */
  void assertAllReleased() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (alloc.outstandingBuffers() > 0 && System.nanoTime() - deadline < 0) {
      Thread.sleep(10);
    }
    assertThat(alloc.outstandingBuffers())
        .as(
            "buffers the test sent that are still held %d s after every connection closed"
                + " (%d bytes): a transport or the engine leaks them",
            WAIT_SECONDS,
            alloc.outstandingBytes())
        .isZero();
  }
}
