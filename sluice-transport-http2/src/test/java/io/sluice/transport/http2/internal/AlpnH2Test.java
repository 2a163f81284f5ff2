package io.sluice.transport.http2.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.ssl.SslContext;
import io.sluice.transport.netty.Tls;
import java.net.ProtocolException;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/**
 * {@link AlpnH2} puts HTTP/2 behind a TLS handshake from inside the pipeline: a client and a server
 * run in two embedded channels whose bytes the test carries across, so every byte either side
 * sends right behind the handshake is read in the same turn that ends it, with nothing outside the
 * pipeline getting a chance to run in between (the order that lost the server's SETTINGS when a
 * client added its HTTP/2 handler from a handshake listener).
 */
class AlpnH2Test {
  private static final Tls.SelfSigned CERT = Tls.selfSigned("localhost");
  private static final H2Handler.Limits SERVER_LIMITS = Http2Options.limits(7, 65_535, 8192, false);
  private static final H2Handler.Limits CLIENT_LIMITS = Http2Options.limits(0, 65_535, 8192, false);

  /** What the client's {@link AlpnH2} said, and the SETTINGS its HTTP/2 handler then read. */
  private static final class Told implements AlpnH2.Outcome {
    final List<H2Handler> http2 = new ArrayList<>();
    final List<Throwable> failures = new ArrayList<>();
    final List<Http2Settings> settings = new ArrayList<>();

    @Override
    public void onHttp2(H2Handler handler) {
      http2.add(handler);
      handler.addListener(
          new H2Handler.ConnectionListener() {
            @Override
            public void onSettings(Http2Settings s) {
              settings.add(s);
            }
          });
    }

    @Override
    public void onFailure(Throwable cause) {
      failures.add(cause);
    }
  }

  @Test
  void theServersSettingsSentBehindItsHandshakeReachTheClientsHttp2Handler() {
    Told told = new Told();
    EmbeddedChannel client = client(Tls.client().trust(CERT.certificate()).alpn("h2").build(), told);
    EmbeddedChannel server = server(Tls.server(CERT).alpn("h2").build());
    try {
      exchange(client, server);

      assertThat(told.failures).isEmpty();
      assertThat(told.http2).hasSize(1);
      assertThat(client.pipeline().get(H2Handler.class)).isSameAs(told.http2.get(0));
      assertThat(client.pipeline().get(AlpnH2.class)).as("it leaves once HTTP/2 is in").isNull();
      assertThat(told.settings).as("the server's SETTINGS, the first frame it sent").hasSize(1);
      assertThat(told.settings.get(0).maxConcurrentStreams()).isEqualTo(7L);
      assertThat(server.pipeline().get(H2Handler.class).decoder().prefaceReceived())
          .as("the client's preface, sent behind its side of the handshake")
          .isTrue();
      assertThat(client.isOpen()).isTrue();
      assertThat(server.isOpen()).isTrue();
    } finally {
      close(client, server);
    }
  }

  /**
   * The order the clients used before: HTTP/2 added once the handshake had ended, as a listener on
   * the handshake future did when the connecting thread got there late. The server's SETTINGS, read
   * in between, are gone, and the HTTP/2 handler added after them closes the connection because
   * the first frame it sees is not SETTINGS: the failure CI reported as "closed before the
   * server's HTTP/2 SETTINGS came".
   */
  @Test
  void http2AddedAfterTheHandshakeInsteadLosesTheServersSettings() {
    EmbeddedChannel client = new EmbeddedChannel();
    client.pipeline().addLast(Tls.client().trust(CERT.certificate()).alpn("h2").build().newHandler(client.alloc(), "localhost", 443));
    EmbeddedChannel server = server(Tls.server(CERT).alpn("h2").build());
    try {
      exchange(client, server);
      assertThat(client.isOpen()).isTrue();

      H2Handler late = H2Handler.build(false, CLIENT_LIMITS, null);
      client.pipeline().addLast(late);
      exchange(client, server);

      assertThat(late.connection().remote().maxActiveStreams())
          .as("the server's SETTINGS (7 streams) never reached it")
          .isNotEqualTo(7);
      assertThat(client.isOpen()).isFalse();
    } finally {
      close(client, server);
    }
  }

  @Test
  void aServerThatChoosesAnotherProtocolFailsTheConnectAndIsClosed() {
    Told told = new Told();
    EmbeddedChannel client =
        client(Tls.client().trust(CERT.certificate()).alpn("h2", "http/1.1").build(), told);
    EmbeddedChannel server = server(Tls.server(CERT).alpn("http/1.1").build());
    try {
      exchange(client, server);

      assertThat(told.http2).isEmpty();
      assertThat(told.failures).hasSize(1);
      assertThat(told.failures.get(0))
          .isInstanceOf(ProtocolException.class)
          .hasMessage("the server at test did not choose HTTP/2 in ALPN (chose http/1.1)");
      assertThat(client.isOpen()).isFalse();
      assertThat(client.pipeline().get(H2Handler.class)).isNull();
    } finally {
      close(client, server);
    }
  }

  @Test
  void aFailedHandshakeFailsTheConnectOnce() {
    Told told = new Told();
    Tls.SelfSigned stranger = Tls.selfSigned("localhost");
    EmbeddedChannel client = client(Tls.client().trust(stranger.certificate()).alpn("h2").build(), told);
    EmbeddedChannel server = server(Tls.server(CERT).alpn("h2").build());
    try {
      exchange(client, server);

      assertThat(told.http2).isEmpty();
      assertThat(told.failures).hasSize(1);
      assertThat(told.failures.get(0)).isInstanceOf(SSLHandshakeException.class);
      assertThat(client.isOpen()).isFalse();
    } finally {
      close(client, server);
    }
  }

  private static EmbeddedChannel client(SslContext ssl, Told told) {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.pipeline().addLast(ssl.newHandler(ch.alloc(), "localhost", 443));
    ch.pipeline().addLast(new AlpnH2(() -> H2Handler.build(false, CLIENT_LIMITS, null), "the server at test", told));
    return ch;
  }

  private static EmbeddedChannel server(SslContext ssl) {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.pipeline().addLast(ssl.newHandler(ch.alloc()));
    ch.pipeline()
        .addLast(new AlpnH2(() -> H2Handler.build(true, SERVER_LIMITS, new ServerStreams(null, false)), "the client", null));
    return ch;
  }

  /** Carries bytes both ways until neither side has anything more to send (a bounded number of turns). */
  private static void exchange(EmbeddedChannel client, EmbeddedChannel server) {
    for (int turn = 0; turn < 50; turn++) {
      boolean moved = carry(client, server) | carry(server, client);
      client.runPendingTasks();
      server.runPendingTasks();
      if (!moved) {
        return;
      }
    }
    throw new AssertionError("still exchanging bytes after 50 turns");
  }

  /** Everything {@code from} wrote, read by {@code to} as one read (one channelRead per buffer, then one readComplete). */
  private static boolean carry(EmbeddedChannel from, EmbeddedChannel to) {
    if (from.isOpen()) {
      from.flushOutbound();
    }
    List<ByteBuf> bufs = new ArrayList<>();
    for (ByteBuf b; (b = from.readOutbound()) != null; ) {
      if (b.isReadable()) {
        bufs.add(b);
      } else {
        b.release(); // a flush with nothing to send
      }
    }
    if (bufs.isEmpty()) {
      return false;
    }
    if (!to.isOpen()) {
      bufs.forEach(ByteBuf::release);
      return false;
    }
    to.writeInbound(bufs.toArray());
    return true;
  }

  private static void close(EmbeddedChannel client, EmbeddedChannel server) {
    client.finishAndReleaseAll();
    server.finishAndReleaseAll();
  }
}
