package io.sluice.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.Message;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.metadata.CompositeMetadata;
import io.sluice.metadata.RoutingMetadata;
import io.sluice.metadata.WellKnownMimeType;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The composite metadata and routing extensions against rsocket-java 1.1.5's own codecs (the ones
 * Spring Messaging uses), both ways over TCP. Each side encodes a Spring-style route plus a custom
 * MIME entry with its own codec and must read the other side's encoding back exactly. The contract
 * is the peer's {@code Routing} class (peers/rsocket-java-peer).
 */
class RoutingInteropTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
  private static final String ROUTING = WellKnownMimeType.MESSAGE_RSOCKET_ROUTING.mimeType();
  private static final String EXTRA_MIME = "text/x.sluice-interop";

  /** Composite metadata built with sluice-metadata: a route, then a custom entry, then text/plain. */
  private static ByteBuf requestMetadata(String route) {
    ByteBuf md = ALLOC.buffer();
    CompositeMetadata.encodeRoute(md, route);
    int at = CompositeMetadata.beginEntry(md, EXTRA_MIME);
    md.writeCharSequence("from-sluice", StandardCharsets.UTF_8);
    CompositeMetadata.endEntry(md, at);
    at = CompositeMetadata.beginEntry(md, WellKnownMimeType.TEXT_PLAIN);
    md.writeCharSequence("plain", StandardCharsets.UTF_8);
    CompositeMetadata.endEntry(md, at);
    return md;
  }

  /** Entry MIME types, routing tags and the custom entry of composite metadata, as text. */
  private static String describe(ByteBuf composite) {
    List<String> mimes = new ArrayList<>();
    List<String> tags = new ArrayList<>();
    String extra = "";
    CompositeMetadata.Reader r = CompositeMetadata.reader(composite);
    while (r.next()) {
      mimes.add(r.mimeType());
      if (r.wellKnownType() == WellKnownMimeType.MESSAGE_RSOCKET_ROUTING) {
        tags.addAll(RoutingMetadata.tags(r.content()));
      } else if (r.mimeTypeEquals(EXTRA_MIME)) {
        extra = r.content().toString(StandardCharsets.UTF_8);
      }
    }
    return "mimes=" + String.join(",", mimes) + ";tags=" + String.join(",", tags) + ";extra=" + extra;
  }

  @Test
  void sluiceClientRoutesToRSocketJavaServer() throws Exception {
    try (PeerProcess peer = PeerProcess.start("server", "--host", "127.0.0.1", "--port", "0")) {
      int port = peer.awaitPort();
      ReactorRequester client =
          SluiceClient.builder(TcpClientTransport.create("127.0.0.1", port))
              .options(ConnectionOptions.defaults())
              .setup(ClientSetup.of(CompositeMetadata.MIME_TYPE, "text/plain", null))
              .connect()
              .block(TIMEOUT);
      try {
        Message response =
            client
                .requestResponse(Message.of(requestMetadata("echo.route"), utf8("hello")))
                .block(TIMEOUT);
        try {
          // rsocket-java read Sluice's route, every entry's MIME type and the custom entry.
          assertThat(response.dataUtf8())
              .isEqualTo(
                  "route=echo.route;mimes="
                      + ROUTING
                      + ",text/x.sluice-interop,text/plain;extra=from-sluice;data=hello");
          // Sluice reads rsocket-java's composite metadata back.
          assertThat(response.hasMetadata()).isTrue();
          assertThat(CompositeMetadata.route(response.metadata())).isEqualTo("echo.route");
          assertThat(describe(response.metadata()))
              .isEqualTo(
                  "mimes=" + ROUTING + "," + EXTRA_MIME + ";tags=echo.route,reply;extra=from-rsocket-java");
        } finally {
          response.release();
        }
        assertThatThrownBy(
                () -> client.requestResponse(Message.of(requestMetadata("other.route"), utf8("x"))).block(TIMEOUT))
            .isInstanceOf(ApplicationErrorException.class)
            .hasMessageContaining("no route: other.route");
      } finally {
        client.dispose();
      }
    }
  }

  @Test
  void rsocketJavaClientRoutesToSluiceServer() throws Exception {
    BlockingQueue<String> seen = new LinkedBlockingQueue<>();
    ReactorResponder router =
        new ReactorResponder() {
          @Override
          public Mono<Message> requestResponse(Message request) {
            try {
              String route = request.hasMetadata() ? CompositeMetadata.route(request.metadata()) : null;
              seen.add(describe(request.metadata()));
              if (!"echo.route".equals(route)) {
                return Mono.error(new ApplicationErrorException("no route: " + route));
              }
              ByteBuf md = ALLOC.buffer();
              CompositeMetadata.encodeRoute(md, route, "reply");
              int at = CompositeMetadata.beginEntry(md, EXTRA_MIME);
              md.writeCharSequence("from-sluice", StandardCharsets.UTF_8);
              CompositeMetadata.endEntry(md, at);
              return Mono.just(
                  Message.of(md, utf8("route=" + route + ";data=" + request.dataUtf8())));
            } finally {
              request.release();
            }
          }
        };
    BlockingQueue<String> setupMimes = new LinkedBlockingQueue<>();
    ServerTransport.Bound server =
        SluiceServer.builder(TcpServerTransport.create("127.0.0.1", 0))
            .acceptor(
                (setup, requester) -> {
                  setupMimes.add(setup.metadataMimeType() + "|" + setup.dataMimeType());
                  return router;
                })
            .bind()
            .block(TIMEOUT);
    try {
      int port = ((InetSocketAddress) server.address()).getPort();
      try (PeerProcess peer =
          PeerProcess.start(
              "route-client", "--host", "127.0.0.1", "--port", "" + port, "--route", "echo.route",
              "--data", "hello")) {
        int exit = peer.awaitExit(60);
        List<String> out = peer.output();
        assertThat(out)
            .as("rsocket-java client output")
            .contains(
                "RESPONSE route=echo.route;data=hello",
                "RESPONSE-ROUTE echo.route",
                "RESPONSE-MIMES " + ROUTING + "," + EXTRA_MIME,
                "RESPONSE-EXTRA from-sluice");
        assertThat(exit).as("output %s", out).isZero();
      }
      assertThat(setupMimes.poll()).isEqualTo(CompositeMetadata.MIME_TYPE + "|text/plain");
      assertThat(seen.poll())
          .isEqualTo("mimes=" + ROUTING + "," + EXTRA_MIME + ";tags=echo.route;extra=from-rsocket-java");
    } finally {
      server.close();
    }
  }

  private static ByteBuf utf8(String s) {
    ByteBuf b = ALLOC.buffer();
    b.writeCharSequence(s, StandardCharsets.UTF_8);
    return b;
  }
}
