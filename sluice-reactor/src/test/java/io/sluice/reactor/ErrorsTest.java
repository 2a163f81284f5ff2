package io.sluice.reactor;

import static io.sluice.reactor.Harness.TIMEOUT;
import static io.sluice.reactor.Harness.msg;
import static io.sluice.reactor.Harness.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.ErrorCode;
import io.sluice.Message;
import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.exceptions.CustomErrorException;
import io.sluice.exceptions.InvalidException;
import io.sluice.exceptions.RejectedException;
import io.sluice.exceptions.SluiceException;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.test.StepVerifier;

/** Errors in both directions keep their code and message. */
class ErrorsTest {

  /** A responder that fails according to the request's data. */
  static final class Failing implements ReactorResponder {
    static Throwable errorFor(String d) {
      switch (d) {
        case "rejected":
          return new RejectedException("busy, retry elsewhere");
        case "custom":
          return new CustomErrorException(0x0301, "custom code");
        case "custom-high":
          return new CustomErrorException(0xFFFFFFFE, "highest code");
        case "invalid":
          return new InvalidException("bad input");
        case "unicode":
          return new IllegalStateException("bröken: 壊れた");
        default:
          return new IllegalStateException("boom: " + d);
      }
    }

    @Override
    public Mono<Message> requestResponse(Message request) {
      String d = Harness.data(request);
      if (d.equals("throw")) {
        throw new IllegalArgumentException("thrown, not signalled");
      }
      if (d.equals("null")) {
        return null;
      }
      return Mono.error(errorFor(d));
    }

    @Override
    public Flux<Message> requestStream(Message request) {
      String d = Harness.data(request);
      return Flux.concat(Flux.just(msg("a"), msg("b")), Flux.error(errorFor(d)));
    }
  }

  static void assertError(Throwable e, Class<? extends SluiceException> type, int code, String message) {
    assertThat(e).isInstanceOf(type).hasMessage(message);
    assertThat(((SluiceException) e).errorCode()).isEqualTo(code);
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void responderErrorsReachTheRequesterWithCodeAndMessage(TestTransport t) {
    try (Harness h = Harness.builder(t).responder(new Failing()).start()) {
      Function<String, Throwable> call =
          d -> {
            CompletableFuture<Throwable> f = new CompletableFuture<>();
            h.client
                .requestResponse(msg(d))
                .subscribe(m -> { m.release(); f.complete(null); }, f::complete, () -> f.complete(null));
            try {
              return f.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            } catch (Exception e) {
              throw new AssertionError(e);
            }
          };
      assertError(call.apply("plain"), ApplicationErrorException.class, ErrorCode.APPLICATION_ERROR, "boom: plain");
      // A handler's RejectedException may come after it did its work: only the engine's own
      // refusals go out as REJECTED (which tells the caller it may send the request elsewhere).
      assertError(call.apply("rejected"), ApplicationErrorException.class, ErrorCode.APPLICATION_ERROR, "busy, retry elsewhere");
      assertError(call.apply("custom"), CustomErrorException.class, 0x301, "custom code");
      assertError(call.apply("custom-high"), CustomErrorException.class, 0xFFFFFFFE, "highest code");
      assertError(call.apply("invalid"), InvalidException.class, ErrorCode.INVALID, "bad input");
      assertError(call.apply("unicode"), ApplicationErrorException.class, ErrorCode.APPLICATION_ERROR, "bröken: 壊れた");
      assertError(call.apply("throw"), ApplicationErrorException.class, ErrorCode.APPLICATION_ERROR, "thrown, not signalled");
      assertThat(call.apply("null")).isInstanceOf(ApplicationErrorException.class);
      // The connection is fine afterwards.
      assertThat(call.apply("custom")).isInstanceOf(CustomErrorException.class);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void streamErrorAfterItems(TestTransport t) {
    try (Harness h = Harness.builder(t).responder(new Failing()).start()) {
      StepVerifier.create(h.client.requestStream(msg("rejected")).map(Harness::text))
          .expectNext("a", "b")
          .expectErrorSatisfies(e -> assertError(e, ApplicationErrorException.class, ErrorCode.APPLICATION_ERROR, "busy, retry elsewhere"))
          .verify(TIMEOUT);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void clientResponderErrorsReachTheServer(TestTransport t) {
    try (Harness h =
        Harness.builder(t).responder(new EchoResponder("server")).clientResponder(r -> new Failing()).start()) {
      ReactorRequester server = h.serverRequester();
      StepVerifier.create(server.requestResponse(msg("custom")))
          .expectErrorSatisfies(e -> assertError(e, CustomErrorException.class, 0x301, "custom code"))
          .verify(TIMEOUT);
      StepVerifier.create(server.requestStream(msg("plain")).map(Harness::text))
          .expectNext("a", "b")
          .expectErrorSatisfies(e -> assertError(e, ApplicationErrorException.class, ErrorCode.APPLICATION_ERROR, "boom: plain"))
          .verify(TIMEOUT);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void requesterChannelOutboundErrorReachesTheResponderInbound(TestTransport t) throws Exception {
    BlockingQueue<String> serverSide = new LinkedBlockingQueue<>();
    ReactorResponder server =
        new ReactorResponder() {
          @Override
          public Flux<Message> requestChannel(Message first, Flux<Message> rest) {
            serverSide.add("first:" + Harness.data(first));
            rest.subscribe(
                m -> serverSide.add("in:" + Harness.data(m)),
                e -> serverSide.add("in-error:" + e.getClass().getSimpleName() + ":" + e.getMessage()
                    + ":" + ((SluiceException) e).errorCode()),
                () -> serverSide.add("in-complete"));
            return Flux.<Message>never().doFinally(s -> serverSide.add("out-" + s));
          }
        };
    try (Harness h = Harness.builder(t).responder(server).start()) {
      Flux<Message> out =
          Flux.concat(
              Flux.just(msg("one"), msg("two")),
              Flux.error(new CustomErrorException(0x400, "client outbound failed")));
      CompletableFuture<Throwable> downstream = new CompletableFuture<>();
      h.client.requestChannel(out).subscribe(Message::release, downstream::complete, () -> downstream.complete(null));
      assertThat(serverSide.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("first:one");
      assertThat(serverSide.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("in:two");
      List<String> rest =
          List.of(
              serverSide.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS),
              serverSide.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
      assertThat(rest)
          .containsExactlyInAnyOrder(
              "in-error:CustomErrorException:client outbound failed:1024", "out-" + SignalType.CANCEL);
      // The requester's own subscriber learns of the failure too.
      assertThat(downstream.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(CustomErrorException.class)
          .hasMessage("client outbound failed");
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void responderChannelErrorReachesTheRequesterAndStopsItsOutbound(TestTransport t) throws Exception {
    ReactorResponder server =
        new ReactorResponder() {
          @Override
          public Flux<Message> requestChannel(Message first, Flux<Message> rest) {
            first.release();
            return rest.take(2).map(m -> Harness.msg("echo " + Harness.data(m)))
                .concatWith(Flux.error(new RejectedException("enough")));
          }
        };
    try (Harness h = Harness.builder(t).responder(server).start()) {
      CompletableFuture<SignalType> outboundEnd = new CompletableFuture<>();
      Flux<Message> out =
          Flux.<Message, Integer>generate(() -> 0, (i, sink) -> {
                sink.next(msg("o" + i));
                return i + 1;
              })
              .doFinally(outboundEnd::complete);
      StepVerifier.create(h.client.requestChannel(out).map(Harness::text))
          .expectNext("echo o1", "echo o2")
          .expectErrorSatisfies(e -> assertError(e, ApplicationErrorException.class, ErrorCode.APPLICATION_ERROR, "enough"))
          .verify(TIMEOUT);
      assertThat(outboundEnd.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(SignalType.CANCEL);
      assertThat(text(h.client.requestChannel(Flux.just("x", "y", "z").map(Harness::msg)).blockFirst(TIMEOUT)))
          .isEqualTo("echo y");
    }
  }
}
