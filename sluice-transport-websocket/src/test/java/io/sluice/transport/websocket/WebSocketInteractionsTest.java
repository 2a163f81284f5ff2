package io.sluice.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.sluice.Message;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ServerTransport;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The four interactions and metadata-push both ways over a Sluice WebSocket server and client,
 * plus a message large enough to be fragmented (RSocket fragments, each its own WebSocket
 * message), on a non-default path. Buffers are pooled, so the leak detector tracks each one.
 */
class WebSocketInteractionsTest {
  private static final Duration WAIT = Duration.ofSeconds(20); // hang guard only

  private final BlockingQueue<String> serverSaw = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> clientSaw = new LinkedBlockingQueue<>();
  private ServerTransport.Bound server;
  private ReactorRequester client;
  // Set by the acceptor, which may run after the client's connect() completed.
  private final CompletableFuture<ReactorRequester> serverSideRequester = new CompletableFuture<>();

  private static String take(Message m) {
    try {
      return (m.hasMetadata() ? m.metadataUtf8() + "|" : "") + m.dataUtf8();
    } finally {
      m.release();
    }
  }

  @BeforeEach
  void start() {
    server =
        SluiceServer.builder(WebSocketServerTransport.create("127.0.0.1", 0).withPath("/rsocket"))
            .acceptor(
                (setup, requester) -> {
                  serverSideRequester.complete(requester);
                  return new ReactorResponder() {
                    @Override
                    public Mono<Void> fireAndForget(Message request) {
                      serverSaw.add("fnf:" + take(request));
                      return Mono.empty();
                    }

                    @Override
                    public Mono<Message> requestResponse(Message request) {
                      return Mono.just(Message.of(request.data().retain())).doFinally(s -> request.release());
                    }

                    @Override
                    public Flux<Message> requestStream(Message request) {
                      String s = take(request);
                      return Flux.range(0, 100).map(i -> Message.utf8(ByteBufAllocator.DEFAULT, s + i));
                    }

                    @Override
                    public Flux<Message> requestChannel(Message first, Flux<Message> rest) {
                      return Flux.concat(Flux.just(first), rest)
                          .map(m -> Message.utf8(ByteBufAllocator.DEFAULT, "ch:" + take(m)));
                    }

                    @Override
                    public Mono<Void> metadataPush(Message metadata) {
                      serverSaw.add("push:" + take(metadata));
                      return Mono.empty();
                    }
                  };
                })
            .bind()
            .block(WAIT);
    int port = ((InetSocketAddress) server.address()).getPort();
    client =
        SluiceClient.builder(WebSocketClientTransport.create(URI.create("ws://127.0.0.1:" + port + "/rsocket")))
            .responder(
                r ->
                    new ReactorResponder() {
                      @Override
                      public Mono<Void> metadataPush(Message metadata) {
                        clientSaw.add("push:" + take(metadata));
                        return Mono.empty();
                      }

                      @Override
                      public Mono<Message> requestResponse(Message request) {
                        return Mono.just(Message.utf8(ByteBufAllocator.DEFAULT, "client:" + take(request)));
                      }
                    })
            .connect()
            .block(WAIT);
  }

  @AfterEach
  void stop() {
    client.dispose();
    server.close();
  }

  @Test
  void requestResponse() {
    Message reply = client.requestResponse(Message.utf8(client.alloc(), "hello")).block(WAIT);
    assertThat(take(reply)).isEqualTo("hello");
  }

  @Test
  void fireAndForget() throws Exception {
    client.fireAndForget(Message.utf8(client.alloc(), "md", "fire")).block(WAIT);
    assertThat(serverSaw.poll(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("fnf:md|fire");
  }

  @Test
  void requestStream() {
    List<String> items =
        client.requestStream(Message.utf8(client.alloc(), "s")).map(WebSocketInteractionsTest::take).collectList().block(WAIT);
    assertThat(items).hasSize(100).startsWith("s0", "s1").endsWith("s99");
  }

  @Test
  void requestChannel() {
    List<String> items =
        client
            .requestChannel(Flux.range(0, 50).map(i -> Message.utf8(client.alloc(), "m" + i)))
            .map(WebSocketInteractionsTest::take)
            .collectList()
            .block(WAIT);
    assertThat(items).hasSize(50).startsWith("ch:m0").endsWith("ch:m49");
  }

  @Test
  void metadataPushBothWays() throws Exception {
    client.metadataPush(Message.of(ByteBufUtil.writeUtf8(client.alloc(), "to-server"), client.alloc().buffer(0))).block(WAIT);
    assertThat(serverSaw.poll(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("push:to-server|");
    ReactorRequester back = serverSideRequester();
    back.metadataPush(Message.of(ByteBufUtil.writeUtf8(back.alloc(), "to-client"), back.alloc().buffer(0))).block(WAIT);
    assertThat(clientSaw.poll(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("push:to-client|");
  }

  private ReactorRequester serverSideRequester() {
    try {
      return serverSideRequester.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("the server's acceptor never ran", e);
    }
  }

  @Test
  void serverCallsTheClientBack() {
    Message reply = serverSideRequester().requestResponse(Message.utf8(ByteBufAllocator.DEFAULT, "back")).block(WAIT);
    assertThat(take(reply)).isEqualTo("client:back");
  }

  @Test
  void largeMessagesAreFragmentedAndReassembledIntact() {
    byte[] big = new byte[3 * 1024 * 1024 + 17];
    ThreadLocalRandom.current().nextBytes(big);
    for (int round = 0; round < 3; round++) {
      ByteBuf data = client.alloc().buffer(big.length).writeBytes(big);
      Message reply = client.requestResponse(Message.of(data)).block(WAIT);
      try {
        assertThat(ByteBufUtil.getBytes(reply.data())).isEqualTo(big);
      } finally {
        reply.release();
      }
    }
  }
}
