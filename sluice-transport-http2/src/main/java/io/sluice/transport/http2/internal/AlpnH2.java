package io.sluice.transport.http2.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.net.ProtocolException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.net.ssl.SSLException;

/**
 * Sits behind the {@code SslHandler} from the moment the channel is initialised and, when the TLS
 * handshake ends, puts an {@link H2Handler} in its place if ALPN chose {@code h2}, or closes the
 * connection. Whatever the peer sends right behind its handshake (a server's SETTINGS, a client's
 * preface) is held by netty's handler until then and reaches the {@link H2Handler} first, whatever
 * thread asked for the connection and however late it runs.
 *
 * <p>That is why clients use it too rather than a listener on the handshake future added once the
 * connect completed: a connecting thread kept off the CPU for a few milliseconds let the handshake
 * end first, the server's SETTINGS were read with no HTTP/2 handler to take them, and the handler
 * added later saw a stream of frames without SETTINGS and closed the connection (CI saw it as "the
 * connection ... closed before the server's HTTP/2 SETTINGS came").
 */
public final class AlpnH2 extends ApplicationProtocolNegotiationHandler {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(AlpnH2.class);

  /** What the connection became; called on its event loop, once. */
  public interface Outcome {
    /** ALPN chose {@code h2} and {@code handler} is in the pipeline. */
    void onHttp2(H2Handler handler);

    /** The handshake failed or chose another protocol; the connection is being closed. */
    void onFailure(Throwable cause);
  }

  /** What {@link #configurePipeline} is told when ALPN chose nothing. */
  private static final String NONE = "none";

  private final Supplier<H2Handler> handler;
  private final String peer;
  private final Outcome outcome;
  private boolean told;

  /**
   * @param handler makes the connection's HTTP/2 handler
   * @param peer the peer as error messages name it, for example {@code "the server at host:443"}
   * @param outcome told what happened; {@code null} on a server, which only closes
   */
  public AlpnH2(Supplier<H2Handler> handler, String peer, Outcome outcome) {
    super(NONE);
    this.handler = handler;
    this.peer = peer;
    this.outcome = outcome;
  }

  /**
   * For a client whose TCP connect to {@code peer} completed on {@code channel}: unless {@code
   * done} completed first, the TLS handshake (and ALPN) must be over {@code timeoutMillis} after
   * {@code startNanos} (when the connect began), else {@code fail} gets a {@link
   * ConnectTimeoutException} and the channel is closed. So a connect timeout bounds TCP and TLS
   * together, whatever handshake timeout the TLS context has.
   */
  public static void failAtConnectDeadline(
      Channel channel, long startNanos, long timeoutMillis, String peer, Consumer<Throwable> fail,
      CompletableFuture<?> done) {
    long left = Math.max(0, TimeUnit.MILLISECONDS.toNanos(timeoutMillis) - (System.nanoTime() - startNanos));
    ScheduledFuture<?> deadline =
        channel.eventLoop().schedule(
            () -> {
              if (!done.isDone()) {
                fail.accept(
                    new ConnectTimeoutException(
                        "the TLS handshake with " + peer + " did not finish within " + timeoutMillis
                            + " ms (the connect timeout)"));
                channel.close();
              }
            },
            left,
            TimeUnit.NANOSECONDS);
    done.whenComplete((v, e) -> deadline.cancel(false));
  }

  @Override
  protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
    if (!ApplicationProtocolNames.HTTP_2.equals(protocol)) {
      fail(ctx, new ProtocolException(peer + " did not choose HTTP/2 in ALPN (chose " + protocol + ")"));
      return;
    }
    H2Handler h2 = handler.get();
    ctx.pipeline().addLast(h2);
    if (outcome != null && !told) {
      told = true;
      outcome.onHttp2(h2);
    }
  }

  @Override
  protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
    fail(ctx, cause);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // A failed handshake arrives here first, wrapped by the decoder: report the TLS error itself.
    fail(ctx, cause instanceof DecoderException && cause.getCause() instanceof SSLException ? cause.getCause() : cause);
  }

  private void fail(ChannelHandlerContext ctx, Throwable cause) {
    if (logger.isDebugEnabled()) {
      logger.debug("{}: no HTTP/2 over TLS: {}", ctx.channel(), cause.toString());
    }
    ctx.close();
    if (outcome != null && !told) {
      told = true;
      outcome.onFailure(cause);
    }
  }
}
