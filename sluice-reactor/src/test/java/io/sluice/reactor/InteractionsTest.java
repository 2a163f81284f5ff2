package io.sluice.reactor;

import static io.sluice.reactor.Harness.TIMEOUT;
import static io.sluice.reactor.Harness.msg;
import static io.sluice.reactor.Harness.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.Message;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/** The five interactions, both directions, over every transport. */
class InteractionsTest {

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void requestResponse(TestTransport t) {
    try (Harness h = Harness.builder(t).responder(new EchoResponder("server")).start()) {
      assertThat(text(h.client.requestResponse(msg("md", "hello")).block(TIMEOUT)))
          .isEqualTo("md|server:hello");
      Message noMetadata = h.client.requestResponse(msg("plain")).block(TIMEOUT);
      assertThat(noMetadata.hasMetadata()).isFalse();
      assertThat(text(noMetadata)).isEqualTo("server:plain");
      Message emptyMetadata = h.client.requestResponse(msg("", "empty md")).block(TIMEOUT);
      assertThat(emptyMetadata.hasMetadata()).isTrue();
      assertThat(text(emptyMetadata)).isEqualTo("|server:empty md");
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void requestResponseEmptyAndError(TestTransport t) {
    ReactorResponder r =
        new ReactorResponder() {
          @Override
          public Mono<Message> requestResponse(Message request) {
            String d = Harness.data(request);
            switch (d) {
              case "empty":
                return Mono.empty();
              case "checked": // a checked exception: the scalar answer path must not wrap it
                return Mono.error(new java.io.IOException("checked: " + d));
              case "later": // not a scalar: answered through a subscription
                return Mono.fromCallable(() -> Message.utf8("later"))
                    .subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic());
              default:
                return Mono.error(new IllegalStateException("no: " + d));
            }
          }
        };
    try (Harness h = Harness.builder(t).responder(r).start()) {
      StepVerifier.create(h.client.requestResponse(msg("empty"))).expectComplete().verify(TIMEOUT);
      StepVerifier.create(h.client.requestResponse(msg("checked")))
          .expectErrorMessage("checked: checked")
          .verify(TIMEOUT);
      assertThat(text(h.client.requestResponse(msg("later")).block(TIMEOUT))).isEqualTo("later");
      StepVerifier.create(h.client.requestResponse(msg("x")))
          .expectErrorMessage("no: x")
          .verify(TIMEOUT);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void requestStream(TestTransport t) {
    try (Harness h = Harness.builder(t).responder(new EchoResponder("server")).start()) {
      List<String> items =
          h.client.requestStream(msg("5:item")).map(Harness::text).collectList().block(TIMEOUT);
      assertThat(items).containsExactly("item0", "item1", "item2", "item3", "item4");
      assertThat(h.client.requestStream(msg("0:none")).collectList().block(TIMEOUT)).isEmpty();
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void requestChannel(TestTransport t) {
    try (Harness h = Harness.builder(t).responder(new EchoResponder("server")).start()) {
      Flux<Message> out = Flux.range(0, 50).map(i -> msg("m" + i));
      List<String> back = h.client.requestChannel(out).map(Harness::text).collectList().block(TIMEOUT);
      assertThat(back)
          .containsExactlyElementsOf(
              IntStream.range(0, 50).mapToObj(i -> "server:m" + i).collect(Collectors.toList()));
      // A single outbound message.
      assertThat(h.client.requestChannel(Flux.just(msg("md", "one"))).map(Harness::text).collectList().block(TIMEOUT))
          .containsExactly("md|server:one");
      // An empty outbound completes at once without a stream.
      assertThat(h.client.requestChannel(Flux.empty()).collectList().block(TIMEOUT)).isEmpty();
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void requestChannelWithAnAsynchronousOutbound(TestTransport t) {
    try (Harness h = Harness.builder(t).responder(new EchoResponder("server")).start()) {
      Flux<Message> out =
          Flux.range(0, 200).publishOn(Schedulers.parallel(), 8).map(i -> msg("a" + i));
      List<String> back = h.client.requestChannel(out).map(Harness::text).collectList().block(TIMEOUT);
      assertThat(back).hasSize(200).startsWith("server:a0").endsWith("server:a199");
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void fireAndForgetAndMetadataPush(TestTransport t) {
    EchoResponder server = new EchoResponder("server");
    try (Harness h = Harness.builder(t).responder(server).start()) {
      h.client.fireAndForget(msg("md", "fire")).block(TIMEOUT);
      assertThat(server.take()).isEqualTo("fnf:md|fire");
      h.client.metadataPush(msg("pushed-md", "data is not sent")).block(TIMEOUT);
      assertThat(server.take()).isEqualTo("push:pushed-md");
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void serverCallsTheClientsResponder(TestTransport t) {
    EchoResponder clientSide = new EchoResponder("client");
    try (Harness h =
        Harness.builder(t).responder(new EchoResponder("server")).clientResponder(r -> clientSide).start()) {
      ReactorRequester server = h.serverRequester();
      assertThat(text(server.requestResponse(msg("md", "back")).block(TIMEOUT))).isEqualTo("md|client:back");
      assertThat(server.requestStream(msg("3:s")).map(Harness::text).collectList().block(TIMEOUT))
          .containsExactly("s0", "s1", "s2");
      assertThat(
              server
                  .requestChannel(Flux.range(0, 3).map(i -> msg("c" + i)))
                  .map(Harness::text)
                  .collectList()
                  .block(TIMEOUT))
          .containsExactly("client:c0", "client:c1", "client:c2");
      server.fireAndForget(msg("f")).block(TIMEOUT);
      assertThat(clientSide.take()).isEqualTo("fnf:f");
      server.metadataPush(msg("p", "")).block(TIMEOUT);
      assertThat(clientSide.take()).isEqualTo("push:p");
      // And the client's own requests still reach the server.
      assertThat(text(h.client.requestResponse(msg("fwd")).block(TIMEOUT))).isEqualTo("server:fwd");
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void clientResponderCanCallTheServerBack(TestTransport t) {
    AtomicReference<ReactorRequester> clientRequester = new AtomicReference<>();
    try (Harness h =
        Harness.builder(t)
            .responder(new EchoResponder("server"))
            .clientResponder(
                r -> {
                  clientRequester.set(r);
                  return new ReactorResponder() {
                    @Override
                    public Mono<Message> requestResponse(Message request) {
                      // Answer the server by asking it something first, over the same connection.
                      String d = Harness.data(request);
                      return r.requestResponse(msg("nested-" + d))
                          .map(m -> Harness.msg("client saw " + text(m)));
                    }
                  };
                })
            .start()) {
      assertThat(text(h.serverRequester().requestResponse(msg("q")).block(TIMEOUT)))
          .isEqualTo("client saw server:nested-q");
      assertThat(clientRequester.get()).isNotNull();
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void manyConcurrentRequestsFromManyThreads(TestTransport t) {
    ReactorResponder async =
        new ReactorResponder() {
          @Override
          public Mono<Message> requestResponse(Message request) {
            String d = Harness.data(request);
            return Mono.fromCallable(() -> msg("r:" + d)).subscribeOn(Schedulers.parallel());
          }

          @Override
          public Flux<Message> requestStream(Message request) {
            String d = Harness.data(request);
            return Flux.range(0, 20).publishOn(Schedulers.parallel()).map(i -> msg(d + "/" + i));
          }
        };
    try (Harness h = Harness.builder(t).responder(async).start()) {
      List<String> replies =
          Flux.range(0, 500)
              .flatMap(
                  i -> h.client.requestResponse(msg("q" + i)).subscribeOn(Schedulers.parallel()).map(Harness::text),
                  64)
              .collectList()
              .block(TIMEOUT);
      assertThat(replies).hasSize(500).contains("r:q0", "r:q499");
      List<Integer> counts =
          Flux.range(0, 50)
              .flatMap(i -> h.client.requestStream(msg("s" + i)).map(Harness::text).count().map(Long::intValue), 16)
              .collectList()
              .block(TIMEOUT);
      assertThat(counts).hasSize(50).containsOnly(20);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void publishersAreSingleUse(TestTransport t) {
    try (Harness h = Harness.builder(t).responder(new EchoResponder("server")).start()) {
      Mono<Message> once = h.client.requestResponse(msg("once"));
      assertThat(text(once.block(TIMEOUT))).isEqualTo("server:once");
      assertThatThrownBy(() -> once.block(TIMEOUT)).isInstanceOf(IllegalStateException.class);
      Flux<Message> stream = h.client.requestStream(msg("1:x"));
      assertThat(stream.map(Harness::text).collectList().block(TIMEOUT)).containsExactly("x0");
      assertThatThrownBy(() -> stream.blockLast(TIMEOUT)).isInstanceOf(IllegalStateException.class);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void acceptorMayCallTheClientRightAway(TestTransport t) throws Exception {
    java.util.concurrent.BlockingQueue<String> got = new java.util.concurrent.LinkedBlockingQueue<>();
    EchoResponder clientSide = new EchoResponder("client");
    try (Harness h =
        Harness.builder(t)
            .acceptor(
                (setup, requester) -> {
                  // Inside the acceptor, before it has even returned the responder.
                  requester
                      .requestResponse(msg("welcome"))
                      .subscribe(m -> got.add(text(m)), e -> got.add("error: " + e));
                  return new EchoResponder("server");
                })
            .clientResponder(r -> clientSide)
            .start()) {
      assertThat(got.poll(TIMEOUT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
          .isEqualTo("client:welcome");
      assertThat(text(h.client.requestResponse(msg("x")).block(TIMEOUT))).isEqualTo("server:x");
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void clientResponderFactoryMayCallTheServerRightAway(TestTransport t) throws Exception {
    java.util.concurrent.BlockingQueue<String> got = new java.util.concurrent.LinkedBlockingQueue<>();
    try (Harness h =
        Harness.builder(t)
            .responder(new EchoResponder("server"))
            .clientResponder(
                r -> {
                  // Before SETUP is even written: the request must follow it, not precede it.
                  r.requestResponse(msg("early")).subscribe(m -> got.add(text(m)), e -> got.add("error: " + e));
                  return new EchoResponder("client");
                })
            .start()) {
      assertThat(got.poll(TIMEOUT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
          .isEqualTo("server:early");
      assertThat(text(h.client.requestResponse(msg("later")).block(TIMEOUT))).isEqualTo("server:later");
    }
  }
}
