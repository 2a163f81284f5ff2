package io.sluice.internal;

import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Resumption;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.DuplexTransport;
import java.security.SecureRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A client's resumable connection: makes the session over the first transport with a fresh token
 * (128 random bits from a {@link SecureRandom}), and after a cut reconnects through the same
 * {@link ClientTransport} with exponential backoff and jitter, sending RESUME on each new
 * transport until one resumes, the server refuses, or {@link Resumption#sessionTimeout()} passes.
 * Confined to the session's loop, except {@link #connect}.
 */
public final class ResumeClient implements ResumableSession.Owner {
  private static final SecureRandom RANDOM = new SecureRandom();
  static final int TOKEN_BYTES = 16;

  private final ClientTransport transport;
  private final Resumption config;
  private ResumableSession session;
  private long backoffNanos;

  private ResumeClient(ClientTransport transport, Resumption config) {
    this.transport = transport;
    this.config = config;
    this.backoffNanos = config.minBackoff().toNanos();
  }

  /** Starts the client engine over {@code first} as {@code Connections.connect} does. */
  public static SluiceConnection start(
      ClientTransport transport,
      DuplexTransport first,
      ConnectionOptions options,
      ClientSetup setup,
      Function<Requester, Responder> responder) {
    if (!first.supportsResumption()) {
      if (setup.payload() != null) {
        setup.payload().release();
      }
      throw new IllegalArgumentException(
          "this transport ("
              + first.getClass().getSimpleName()
              + ") cannot resume sessions: the HTTP/2 stream mapping has no RESUME (use TCP, a"
              + " unix socket, WebSocket or WebSocket over HTTP/2, or drop"
              + " ClientSetup.resumable)");
    }
    ResumeClient rc = new ResumeClient(transport, setup.resumption());
    byte[] token = new byte[TOKEN_BYTES];
    RANDOM.nextBytes(token);
    rc.session = ResumableSession.client(first, setup.resumption(), token, rc);
    return SluiceConnection.client(rc.session, options, setup, responder);
  }

  @Override
  public void detached(Throwable cause, boolean wasAttached) {
    if (wasAttached) {
      config.listener().disconnected(cause);
    }
    schedule();
  }

  @Override
  public void resumed(int count) {
    backoffNanos = config.minBackoff().toNanos();
    config.listener().resumed(count);
  }

  @Override
  public void resumeFailed(Throwable cause) {
    config.listener().resumeFailed(cause);
  }

  private void schedule() {
    long base = backoffNanos;
    backoffNanos = Math.min(backoffNanos * 2, config.maxBackoff().toNanos());
    // "Equal jitter": half the delay fixed, half random, so clients cut together spread out.
    long delay = base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1);
    session.loop.schedule(this::attempt, delay, TimeUnit.NANOSECONDS);
  }

  private void attempt() {
    if (session.isEnded()) {
      return;
    }
    CompletableFuture<DuplexTransport> f;
    try {
      f = transport.connect();
    } catch (RuntimeException e) {
      schedule();
      return;
    }
    f.whenComplete(
        (phys, err) ->
            session.loop.execute(
                () -> {
                  if (err != null) {
                    if (!session.isEnded()) {
                      schedule();
                    }
                    return;
                  }
                  if (session.isEnded()) {
                    phys.executor().execute(phys::close);
                    return;
                  }
                  session.beginResume(
                      phys.executor() == session.loop ? phys : new LoopBridge(phys, session.loop));
                }));
  }
}
