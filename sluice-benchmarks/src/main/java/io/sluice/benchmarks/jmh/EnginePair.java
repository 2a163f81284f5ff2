package io.sluice.benchmarks.jmh;

import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.internal.SluiceConnection;
import java.util.function.BooleanSupplier;

/**
 * A client and a server engine joined by two {@link PipeTransport}s on one embedded event loop, so
 * one thread runs both sides: the fixture of the in-memory JMH benchmarks. The client answers no
 * requests of its own.
 */
final class EnginePair {
  /** Loop turns without progress after which {@link #runUntil} gives up. */
  private static final int MAX_SPINS = 1_000_000;

  private final EmbeddedChannel loopOwner = new EmbeddedChannel();
  final SluiceConnection server;
  final SluiceConnection client;

  EnginePair(ConnectionOptions options, Responder responder) {
    PipeTransport c = new PipeTransport(loopOwner.eventLoop());
    PipeTransport s = new PipeTransport(loopOwner.eventLoop());
    c.peer = s;
    s.peer = c;
    server = SluiceConnection.server(s, options, (setup, requester) -> responder);
    client = SluiceConnection.client(c, options, ClientSetup.defaults(), r -> new Responder() {});
    loopOwner.runPendingTasks();
  }

  /** Runs the loop until {@code done} holds; fails rather than spin forever on a stalled pair. */
  void runUntil(BooleanSupplier done) {
    int spins = 0;
    while (!done.getAsBoolean()) {
      loopOwner.runPendingTasks();
      if (++spins > MAX_SPINS) {
        throw new IllegalStateException("the engines stopped making progress");
      }
    }
  }

  void close() {
    client.dispose();
    server.dispose();
    loopOwner.runPendingTasks();
    loopOwner.finishAndReleaseAll();
  }
}
