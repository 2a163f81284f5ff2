package io.sluice.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.Message;
import io.sluice.core.ClientSetup;
import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.futures.FuturesRequester;
import io.sluice.metadata.CompositeMetadata;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import io.sluice.transport.websocket.WebSocketClientTransport;
import io.sluice.transport.websocket.WebSocketServerTransport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Sluice and a Spring Boot RSocket app (peers/spring-rsocket-peer: spring-boot-starter-rsocket,
 * {@code @MessageMapping} routes, its own process on netty 4.1), both ways, over TCP and WebSocket,
 * with JSON and CBOR data: Sluice's reactor and futures clients route calls to the Spring app with
 * composite metadata (sluice-metadata), and the Spring app's {@code RSocketRequester} calls a Sluice
 * server that routes the same contract. Every interaction, an error and metadata-push.
 */
class SpringRSocketInteropTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
  /** A Spring Boot start takes long on a loaded machine: C1 only, and a generous bound. */
  private static final List<String> PEER_JVM = List.of("-XX:TieredStopAtLevel=1");
  private static final long PEER_START_SECONDS = 180;

  /** The peer's payload (its Greeting record). */
  record Greeting(String name, String message, long count) {
    static Greeting of(String name) {
      return new Greeting(name, null, 0);
    }
  }

  static Path springPeerJar() {
    String path = System.getProperty("spring.peer.jar");
    if (path == null || !Files.isRegularFile(Path.of(path))) {
      throw new IllegalStateException(
          "Spring RSocket peer jar not found at " + path
              + "; build it with: ./mvnw -B -f peers/spring-rsocket-peer/pom.xml package");
    }
    return Path.of(path);
  }

  /** JSON or CBOR, by the data MIME type of the connection. */
  static final class Codec {
    final String mime;
    private final ObjectMapper mapper;

    Codec(String name) {
      this.mime = name.equals("cbor") ? "application/cbor" : "application/json";
      this.mapper = name.equals("cbor") ? new CBORMapper() : new ObjectMapper();
    }

    static Codec ofMime(String mime) {
      return new Codec(mime.equals("application/cbor") ? "cbor" : "json");
    }

    ByteBuf encode(Greeting g) {
      try {
        byte[] bytes = mapper.writeValueAsBytes(g);
        return ALLOC.buffer(bytes.length).writeBytes(bytes);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** Decodes and releases {@code m}; no data is an empty greeting (a route without a payload). */
    Greeting decode(Message m) {
      try {
        if (!m.data().isReadable()) {
          return new Greeting(null, null, 0);
        }
        return mapper.readValue(ByteBufUtil.getBytes(m.data()), Greeting.class);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } finally {
        m.release();
      }
    }
  }

  private static ByteBuf route(String route) {
    ByteBuf md = ALLOC.buffer();
    CompositeMetadata.encodeRoute(md, route);
    return md;
  }

  private static Message call(Codec codec, String route, Greeting g) {
    return Message.of(route(route), codec.encode(g));
  }

  private static ClientTransport clientTransport(String transport, int port) {
    return transport.equals("websocket")
        ? WebSocketClientTransport.create("127.0.0.1", port).withPath("/")
        : TcpClientTransport.create("127.0.0.1", port);
  }

  /** Each transport and each data format once per direction (a peer start costs about a minute here). */
  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({"tcp, json", "websocket, cbor"})
  void sluiceReactorAndFuturesClientsCallTheSpringApp(String transport, String mime) throws Exception {
    Codec codec = new Codec(mime);
    try (PeerProcess peer = PeerProcess.startJar(springPeerJar(), PEER_JVM, "server", "--transport", transport)) {
      int port = peer.awaitPort(PEER_START_SECONDS);
      ReactorRequester client =
          SluiceClient.builder(clientTransport(transport, port))
              .setup(ClientSetup.of(CompositeMetadata.MIME_TYPE, codec.mime, null))
              .connect()
              .block(WAIT);
      try {
        // request-response
        assertThat(codec.decode(client.requestResponse(call(codec, "greet", Greeting.of("Ada"))).block(WAIT)).message())
            .isEqualTo("hello Ada");
        // request-stream
        assertThat(
                client.requestStream(call(codec, "count", new Greeting("Bob", null, 3)))
                    .map(m -> codec.decode(m).message())
                    .collectList()
                    .block(WAIT))
            .containsExactly("hello Bob #0", "hello Bob #1", "hello Bob #2");
        // request-channel: the route rides on the first message only
        Flux<Message> names =
            Flux.just("Cy", "Di", "Ed")
                .index()
                .map(t -> t.getT1() == 0
                    ? call(codec, "chat", Greeting.of(t.getT2()))
                    : Message.of(codec.encode(Greeting.of(t.getT2()))));
        assertThat(client.requestChannel(names).map(m -> codec.decode(m).message()).collectList().block(WAIT))
            .containsExactly("hi Cy", "hi Di", "hi Ed");
        // fire-and-forget, seen through another route
        client.fireAndForget(call(codec, "notify", Greeting.of("Flo"))).block(WAIT);
        awaitAnswer(() -> codec.decode(client.requestResponse(Message.of(route("notified"), ALLOC.buffer(0))).block(WAIT)),
            g -> g.name().contains("Flo"));
        // an error: the handler's exception, as APPLICATION_ERROR with its message
        assertThatThrownBy(() -> client.requestResponse(call(codec, "fail", Greeting.of("Gus"))).block(WAIT))
            .isInstanceOf(ApplicationErrorException.class)
            .hasMessageContaining("no greeting for Gus");
        // metadata-push, routed to the app's @ConnectMapping("push")
        client.metadataPush(Message.of(route("push"), ALLOC.buffer(0))).block(WAIT);
        awaitAnswer(() -> codec.decode(client.requestResponse(Message.of(route("pushes"), ALLOC.buffer(0))).block(WAIT)),
            g -> g.count() >= 1);
      } finally {
        client.dispose();
      }

      // The futures flavor on a connection of its own.
      FuturesRequester futures =
          new FuturesRequester(
              SluiceClient.builder(clientTransport(transport, port))
                  .setup(ClientSetup.of(CompositeMetadata.MIME_TYPE, codec.mime, null))
                  .connect()
                  .block(WAIT)
                  .unwrap());
      try {
        assertThat(codec.decode(futures.requestResponse(call(codec, "greet", Greeting.of("Hal"))).get(30, TimeUnit.SECONDS)).message())
            .isEqualTo("hello Hal");
        assertThat(
                JdkFlowAdapter.flowPublisherToFlux(futures.requestStream(call(codec, "count", new Greeting("Ivy", null, 2))))
                    .map(m -> codec.decode(m).message())
                    .collectList()
                    .block(WAIT))
            .containsExactly("hello Ivy #0", "hello Ivy #1");
        Flux<Message> one = Flux.just(call(codec, "chat", Greeting.of("Jo")));
        assertThat(
                JdkFlowAdapter.flowPublisherToFlux(futures.requestChannel(JdkFlowAdapter.publisherToFlowPublisher(one)))
                    .map(m -> codec.decode(m).message())
                    .collectList()
                    .block(WAIT))
            .containsExactly("hi Jo");
        futures.fireAndForget(call(codec, "notify", Greeting.of("Kim"))).get(30, TimeUnit.SECONDS);
        awaitAnswer(() -> {
              try {
                return codec.decode(futures.requestResponse(Message.of(route("notified"), ALLOC.buffer(0))).get(30, TimeUnit.SECONDS));
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            g -> g.name().contains("Kim"));
        CompletableFuture<Message> failed = futures.requestResponse(call(codec, "fail", Greeting.of("Lou")));
        assertThatThrownBy(() -> failed.get(30, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .cause()
            .isInstanceOf(ApplicationErrorException.class)
            .hasMessageContaining("no greeting for Lou");
        futures.metadataPush(Message.of(route("push"), ALLOC.buffer(0))).get(30, TimeUnit.SECONDS);
        awaitAnswer(() -> {
              try {
                return codec.decode(futures.requestResponse(Message.of(route("pushes"), ALLOC.buffer(0))).get(30, TimeUnit.SECONDS));
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            g -> g.count() >= 2);
      } finally {
        futures.dispose();
      }
    }
  }

  /** Asks until the answer passes (bounded: 30 s); fails with the last answer. */
  private static void awaitAnswer(Supplier<Greeting> ask, Predicate<Greeting> ok) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    Greeting last = null;
    while (System.nanoTime() < deadline) {
      last = ask.get();
      if (ok.test(last)) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no matching answer within " + WAIT + "; last: " + last);
  }

  /** The peer's contract, served by Sluice: routes from composite metadata, data as SETUP said. */
  static final class ContractResponder implements ReactorResponder {
    private final Codec codec;
    final List<String> notified = new CopyOnWriteArrayList<>();
    final AtomicInteger pushes = new AtomicInteger();

    ContractResponder(Codec codec) {
      this.codec = codec;
    }

    private static String routeOf(Message m) {
      return m.hasMetadata() ? CompositeMetadata.route(m.metadata()) : null;
    }

    private Message reply(Greeting g) {
      return Message.of(codec.encode(g));
    }

    @Override
    public Mono<Message> requestResponse(Message request) {
      String route = routeOf(request);
      Greeting in = codec.decode(request);
      switch (String.valueOf(route)) {
        case "greet":
          return Mono.just(reply(new Greeting(in.name(), "hello " + in.name(), 1)));
        case "notified":
          return Mono.just(reply(new Greeting(String.join(",", notified), "notified", notified.size())));
        case "pushes":
          return Mono.just(reply(new Greeting("pushes", "pushes", pushes.get())));
        case "fail":
          return Mono.error(new ApplicationErrorException("no greeting for " + in.name()));
        default:
          return Mono.error(new ApplicationErrorException("no route: " + route));
      }
    }

    @Override
    public Flux<Message> requestStream(Message request) {
      String route = routeOf(request);
      Greeting in = codec.decode(request);
      if (!"count".equals(route)) {
        return Flux.error(new ApplicationErrorException("no route: " + route));
      }
      return Flux.range(0, (int) in.count()).map(i -> reply(new Greeting(in.name(), "hello " + in.name() + " #" + i, i)));
    }

    @Override
    public Flux<Message> requestChannel(Message first, Flux<Message> rest) {
      String route = routeOf(first);
      Greeting head = codec.decode(first);
      if (!"chat".equals(route)) {
        return rest.doOnNext(Message::release).thenMany(Flux.error(new ApplicationErrorException("no route: " + route)));
      }
      return Flux.concat(Mono.just(head), rest.map(codec::decode)).map(g -> reply(new Greeting(g.name(), "hi " + g.name(), 0)));
    }

    @Override
    public Mono<Void> fireAndForget(Message request) {
      String route = routeOf(request);
      Greeting in = codec.decode(request);
      if ("notify".equals(route)) {
        notified.add(in.name());
      }
      return Mono.empty();
    }

    @Override
    public Mono<Void> metadataPush(Message metadata) {
      try {
        if ("push".equals(routeOf(metadata))) {
          pushes.incrementAndGet();
        }
      } finally {
        metadata.release();
      }
      return Mono.empty();
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({"tcp, cbor", "websocket, json"})
  void theSpringAppsRSocketRequesterCallsASluiceServer(String transport, String mime) throws Exception {
    List<String> setups = new CopyOnWriteArrayList<>();
    List<ContractResponder> responders = new CopyOnWriteArrayList<>();
    ServerTransport serverTransport =
        transport.equals("websocket")
            ? WebSocketServerTransport.create("127.0.0.1", 0).withPath("/")
            : TcpServerTransport.create("127.0.0.1", 0);
    ServerTransport.Bound server =
        SluiceServer.builder(serverTransport)
            .acceptor(
                (setup, requester) -> {
                  setups.add(setup.metadataMimeType() + "|" + setup.dataMimeType());
                  ContractResponder r = new ContractResponder(Codec.ofMime(setup.dataMimeType()));
                  responders.add(r);
                  return r;
                })
            .bind()
            .block(WAIT);
    try {
      int port = ((InetSocketAddress) server.address()).getPort();
      try (PeerProcess peer =
          PeerProcess.startJar(
              springPeerJar(), PEER_JVM, "client", "--transport", transport, "--port", "" + port, "--mime", mime)) {
        int exit = peer.awaitExit(PEER_START_SECONDS + 120);
        List<String> out = peer.output();
        assertThat(out)
            .as("Spring RSocketRequester output")
            .contains(
                "PASS request-response",
                "PASS request-stream",
                "PASS request-channel",
                "PASS fire-and-forget",
                "PASS error",
                "PASS metadata-push",
                "DONE all passed");
        assertThat(exit).as("output %s", out).isZero();
      }
      assertThat(setups).containsExactly(CompositeMetadata.MIME_TYPE + "|" + new Codec(mime).mime);
      assertThat(responders.get(0).notified).containsExactly("Ed");
      assertThat(responders.get(0).pushes.get()).isEqualTo(1);
    } finally {
      server.close();
    }
  }
}
