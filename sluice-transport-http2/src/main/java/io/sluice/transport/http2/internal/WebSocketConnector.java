package io.sluice.transport.http2.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.ssl.SslContext;
import io.netty.util.AsciiString;
import io.sluice.transport.DuplexTransport;
import java.io.IOException;
import java.net.ProtocolException;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A client's HTTP/2 connections for WebSocket over HTTP/2 (RFC 8441): each {@link #connect()}
 * opens an extended CONNECT stream, which becomes one RSocket connection ({@link
 * WebSocketStream}), on a TCP connection shared with the other streams this connector opened. A
 * new TCP connection is opened when there is none, when the shared one is going away (GOAWAY) or
 * closed, or when it carries as many streams as the server's SETTINGS_MAX_CONCURRENT_STREAMS
 * allows. A TCP connection is closed once its last stream has closed.
 *
 * <p>No stream is opened before the server's SETTINGS have come, and a server whose SETTINGS do not
 * enable the connect protocol (SETTINGS_ENABLE_CONNECT_PROTOCOL = 1) fails the connect with a
 * {@link ProtocolException} saying so. A CONNECT the server refused unprocessed (REFUSED_STREAM, or
 * excluded by its GOAWAY) is tried again on another connection, a few times at most.
 *
 * <p><b>Threads.</b> {@link #connect()} may be called from any thread: the choice of connection is
 * made under a lock (once per connect, never per message); everything else runs on the
 * connection's event loop.
 */
public final class WebSocketConnector {
  /** How many times a connect is tried when servers refuse its stream unprocessed. */
  private static final int ATTEMPTS = 3;

  /** Where and how to connect. */
  public record Target(
      String host,
      int port,
      EventLoopGroup group,
      SslContext ssl,
      int connectTimeoutMillis,
      String path,
      H2Handler.Limits limits) {}

  private final Target target;
  private final AsciiString scheme;
  private final AsciiString authority;
  private final Object lock = new Object();
  /** Connections new streams may go to; guarded by {@link #lock}. */
  private final List<Shared> live = new ArrayList<>();

  public WebSocketConnector(Target target) {
    this.target = target;
    this.scheme = AsciiString.of(target.ssl() != null ? "https" : "http");
    String host = target.host();
    this.authority =
        AsciiString.of(host.indexOf(':') >= 0 ? "[" + host + "]:" + target.port() : host + ":" + target.port());
  }

  /** TCP connections open (or opening) now, for tests. */
  public int connections() {
    synchronized (lock) {
      return live.size();
    }
  }

  /** Opens a WebSocket over HTTP/2 stream: an RSocket connection's transport once the server said 200. */
  public CompletableFuture<DuplexTransport> connect() {
    CompletableFuture<DuplexTransport> result = new CompletableFuture<>();
    attempt(result, 1, System.nanoTime());
    return result;
  }

  /** One try at a stream for {@code result}; {@code start}: when the connect began (nanoTime). */
  private void attempt(CompletableFuture<DuplexTransport> result, int attempt, long start) {
    Shared s;
    boolean fresh = false;
    synchronized (lock) {
      s = null;
      for (Shared c : live) {
        if (c.usable && c.reserved < c.maxStreams) {
          s = c;
          break;
        }
      }
      if (s == null) {
        s = new Shared();
        live.add(s);
        fresh = true;
      }
      s.reserved++;
    }
    if (fresh) {
      open(s);
    }
    Shared shared = s;
    s.ready.whenComplete(
        (h2, error) -> {
          if (error != null) {
            release(shared);
            result.completeExceptionally(error);
          } else {
            h2.ctx().executor().execute(() -> openStream(shared, h2, result, attempt, start));
          }
        });
  }

  /** Opens the extended CONNECT stream on {@code s}; on its loop. */
  private void openStream(
      Shared s, H2Handler h2, CompletableFuture<DuplexTransport> result, int attempt, long start) {
    Http2Connection c = h2.connection();
    Http2Connection.Endpoint<?> local = c.local();
    int id = 0;
    if (h2.ctx().channel().isActive() && !c.goAwayReceived() && local.canOpenStream()) {
      id = local.incrementAndGetNextStreamId();
    }
    if (id <= 0) {
      // Gone, going away, out of ids, or full (another client's streams): elsewhere.
      unusable(s);
      release(s);
      retry(result, attempt, start, "the shared HTTP/2 connection cannot open another stream");
      return;
    }
    h2.encoder()
        .writeHeaders(
            h2.ctx(), id, WebSocketWire.connectRequest(scheme, authority, target.path()), 0, false, h2.newPromise());
    Http2Stream stream = c.stream(id);
    if (stream == null) {
      release(s);
      h2.flushNow();
      retry(result, attempt, start, "the HTTP/2 stream could not be opened");
      return;
    }
    ScheduledFuture<?>[] answerDeadline = new ScheduledFuture<?>[1];
    WebSocketStream ws =
        WebSocketStream.client(
            h2,
            s.streams,
            stream,
            new WebSocketStream.Handshake() {
              @Override
              public void onOpen(WebSocketStream stream) {
                answerDeadline[0].cancel(false);
                if (!result.complete(stream)) {
                  stream.close();
                }
              }

              @Override
              public void onFailed(int status, String reason, boolean refused) {
                answerDeadline[0].cancel(false);
                if (refused) {
                  unusable(s);
                  retry(result, attempt, start, reason);
                  return;
                }
                result.completeExceptionally(
                    new ProtocolException(
                        "WebSocket over HTTP/2 to " + authority + target.path() + " refused"
                            + (status > 0 ? ": :status " + status : "")
                            + (reason.isEmpty() ? "" : " (" + reason + ")")));
              }
            },
            () -> release(s));
    h2.attach(stream, ws);
    // The answer counts against the connect timeout too. A server that leaves the CONNECT
    // unanswered gets no new streams on this connection, which closes once its streams have.
    long left =
        Math.max(0, TimeUnit.MILLISECONDS.toNanos(target.connectTimeoutMillis()) - (System.nanoTime() - start));
    answerDeadline[0] =
        h2.ctx().executor().schedule(
            () -> {
              unusable(s);
              result.completeExceptionally(
                  new ProtocolException(
                      "no answer to the WebSocket over HTTP/2 CONNECT from " + authority + target.path() + " within "
                          + target.connectTimeoutMillis() + " ms"));
              if (stream.state() != Http2Stream.State.CLOSED) {
                h2.resetStream(h2.ctx(), stream.id(), Http2Error.CANCEL.code(), h2.newPromise());
              }
              h2.flushNow();
            },
            left,
            TimeUnit.NANOSECONDS);
    h2.flushNow();
  }

  private void retry(CompletableFuture<DuplexTransport> result, int attempt, long start, String why) {
    if (attempt >= ATTEMPTS) {
      result.completeExceptionally(
          new ProtocolException(
              "WebSocket over HTTP/2 to " + authority + ": no stream after " + attempt + " attempts (" + why + ")"));
      return;
    }
    attempt(result, attempt + 1, start);
  }

  /** New streams go to other connections from now on. */
  private void unusable(Shared s) {
    synchronized (lock) {
      s.usable = false;
      live.remove(s);
    }
  }

  /** A stream (or a connect that did not get one) is done with {@code s}: closes it when idle. */
  private void release(Shared s) {
    Channel close = null;
    synchronized (lock) {
      s.reserved--;
      if (s.reserved == 0 && (!s.usable || s.channel != null)) {
        s.usable = false;
        live.remove(s);
        close = s.channel;
      }
    }
    if (close != null) {
      close.close(); // netty sends GOAWAY first
    }
  }

  /** Connects {@code s}'s TCP connection (TLS with ALPN h2 when configured). */
  private void open(Shared s) {
    H2Connector.connect(
        new H2Connector.Target(
            target.group(), target.host(), target.port(), target.ssl(), target.connectTimeoutMillis(), target.limits()),
        "the server at " + authority,
        new H2Connector.Outcome() {
          @Override
          public void onConnected(Channel ch) {
            connected(s, ch);
          }

          @Override
          public void onHttp2(H2Handler handler) {
            listen(s, handler.ctx().channel(), handler);
          }

          @Override
          public void onFailure(Throwable cause) {
            fail(s, cause);
          }
        });
  }

  /** TCP connected: the connection must be ready (the server's SETTINGS read) within the connect timeout. */
  private void connected(Shared s, Channel ch) {
    synchronized (lock) {
      s.channel = ch;
    }
    ch.closeFuture()
        .addListener(
            x -> {
              unusable(s);
              fail(s, new IOException(
                  "the connection to " + authority + " closed before the server's HTTP/2 SETTINGS came",
                  new ClosedChannelException()));
            });
    ch.eventLoop()
        .schedule(
            () -> {
              if (!s.ready.isDone()) {
                fail(s, new ProtocolException(
                    "no HTTP/2 SETTINGS from " + authority + " within " + target.connectTimeoutMillis() + " ms"));
                ch.close();
              }
            },
            target.connectTimeoutMillis(),
            TimeUnit.MILLISECONDS);
  }

  private void fail(Shared s, Throwable cause) {
    unusable(s);
    s.ready.completeExceptionally(cause);
  }

  /** Waits for the server's SETTINGS on {@code h2}, the handler just put in {@code ch}'s pipeline. */
  private void listen(Shared s, Channel ch, H2Handler h2) {
    s.streams = new WebSocketStreams(h2);
    h2.addListener(
        new H2Handler.ConnectionListener() {
          @Override
          public void onSettings(Http2Settings settings) {
            Long max = settings.maxConcurrentStreams();
            if (max != null) {
              synchronized (lock) {
                s.maxStreams = (int) Math.min(Integer.MAX_VALUE, max);
              }
            }
            if (s.ready.isDone()) {
              return;
            }
            if (!Boolean.TRUE.equals(settings.connectProtocolEnabled())) {
              fail(
                  s,
                  new ProtocolException(
                      "the HTTP/2 server at " + authority + " does not offer WebSocket over HTTP/2: its SETTINGS"
                          + " do not enable extended CONNECT (SETTINGS_ENABLE_CONNECT_PROTOCOL = 1, RFC 8441)"));
              ch.close();
              return;
            }
            s.ready.complete(h2);
          }

          @Override
          public void onGoAway(int lastStreamId, long errorCode, ByteBuf debugData) {
            unusable(s);
            Channel close = null;
            synchronized (lock) {
              if (s.reserved == 0) {
                close = s.channel;
              }
            }
            if (close != null) {
              close.close();
            }
          }
        });
  }

  /** One shared TCP + HTTP/2 connection. */
  private static final class Shared {
    /** Completes with the handler once the server's SETTINGS allow extended CONNECT. */
    final CompletableFuture<H2Handler> ready = new CompletableFuture<>();
    /** Set on the loop before {@link #ready} completes. */
    volatile WebSocketStreams streams;
    // Guarded by the connector's lock.
    Channel channel;
    int reserved;
    int maxStreams = Integer.MAX_VALUE;
    boolean usable = true;
  }

  @Override
  public String toString() {
    return "WebSocket over HTTP/2 connector to " + authority + target.path();
  }
}
