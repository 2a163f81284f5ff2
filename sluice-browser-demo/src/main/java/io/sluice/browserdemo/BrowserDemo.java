package io.sluice.browserdemo;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.websocket.WebSocketServerTransport;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The server of {@code ./sluice demo --browser}: one port for both a Sluice server on RSocket over
 * WebSocket (at {@link #RSOCKET_PATH}) and the page that talks to it. Plain HTTP requests on that
 * port, the ones that are not a WebSocket upgrade, reach the page's handler through {@link
 * WebSocketServerTransport#withHttpFallback}: {@code GET /} the page, {@code GET /app.js} its
 * script (rsocket-js, bundled from npm when this module was built), {@code POST /report} what the
 * page found, handed to the caller's listener.
 *
 * <p>The responder: request-stream {@code count:N} sends {@code 0} ... {@code N-1} as text (N up
 * to {@link #MAX_STREAM_COUNT}), request-response D answers {@code echo:D}.
 *
 * <p><b>Threads.</b> {@link #start} blocks until the port is bound; everything else may be called
 * from any thread. The report listener is called on a connection's event loop and must not block.
 * No buffers cross this API.
 */
public final class BrowserDemo implements AutoCloseable {
  /** Where the server upgrades to RSocket over WebSocket (app.js's RSOCKET_PATH). */
  public static final String RSOCKET_PATH = "/rsocket";

  /** The largest request-stream the demo serves (app.js's MAX.stream). */
  public static final int MAX_STREAM_COUNT = 10_000_000;

  /** What the demo says, and {@code GET /} answers, when this build has no page bundle. */
  public static final String PAGE_UNAVAILABLE =
      "The browser page is unavailable: this build has no page/app.js, because npm was missing or"
          + " failed when Maven built sluice-browser-demo (its warning says which). Install Node.js"
          + " and npm and rebuild (./sluice rebuilds when a file under src/main changes; or run"
          + " ./mvnw -pl sluice-cli -am install). RSocket over WebSocket at "
          + RSOCKET_PATH
          + " works all the same.";

  /** A plain HTTP connection (the page's, not a WebSocket) idle this long is closed. */
  static final Duration HTTP_IDLE_TIMEOUT = Duration.ofSeconds(30);

  private final ServerTransport.Bound bound;
  private final boolean pageAvailable;

  private BrowserDemo(ServerTransport.Bound bound, boolean pageAvailable) {
    this.bound = bound;
    this.pageAvailable = pageAvailable;
  }

  /**
   * Binds {@code host:port} (port 0 picks a free one) and serves until {@link #close()}.
   *
   * @param reports gets the body of each report the page posts (key=value lines), on an event
   *     loop; must not block
   * @throws RuntimeException when the port cannot be bound
   */
  public static BrowserDemo start(String host, int port, Consumer<String> reports) {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(reports, "reports");
    Page page = Page.fromJar();
    PageHandler pageHandler = new PageHandler(page, reports);
    ChannelInitializer<Channel> http =
        new ChannelInitializer<>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline()
                .addLast(
                    new ReadTimeoutHandler(HTTP_IDLE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS),
                    new HttpObjectAggregator(PageHandler.MAX_REPORT_BYTES),
                    pageHandler);
          }
        };
    WebSocketServerTransport transport =
        WebSocketServerTransport.create(host, port).withPath(RSOCKET_PATH).withHttpFallback(http);
    ServerTransport.Bound bound =
        SluiceServer.builder(transport)
            .acceptor((setup, requester) -> new DemoResponder(requester.alloc()))
            .bind()
            .block(Duration.ofSeconds(30));
    return new BrowserDemo(bound, page.available());
  }

  /** The address bound, with the real port. */
  public InetSocketAddress address() {
    return (InetSocketAddress) bound.address();
  }

  /** The page's address, {@code http://host:port/}. */
  public URI pageUri() {
    InetSocketAddress a = address();
    String host = a.getHostString();
    if (host.indexOf(':') >= 0) {
      host = "[" + host + "]";
    }
    return URI.create("http://" + host + ":" + a.getPort() + "/");
  }

  /** False when this build has no page bundle (see {@link #PAGE_UNAVAILABLE}). */
  public boolean pageAvailable() {
    return pageAvailable;
  }

  /** Completes once the server is closed. */
  public CompletableFuture<Void> onClose() {
    return bound.onClose();
  }

  /** Stops accepting connections; idempotent. */
  @Override
  public void close() {
    bound.close();
  }
}
