package io.sluice.rpc.reactor;

import static io.sluice.rpc.reactor.fixture.RpcTcp.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.Message;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.Headers;
import io.sluice.rpc.ResponseMetadataCapture;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.reactor.fixture.RpcTcp;
import io.sluice.rpc.reactor.fixture.SendsResponseMetadata;
import io.sluice.rpc.rsocket.ProtoMessages;
import io.sluice.rpc.rsocket.RpcErrors;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import sluice.test.echo.EchoOuterClass.EchoReply;
import sluice.test.echo.EchoOuterClass.EchoRequest;
import sluice.test.echo.ReactorEchoService;
import sluice.test.echo.ReactorEchoServiceClient;
import sluice.test.echo.ReactorEchoServiceServer;

/**
 * Response headers and trailers ({@link CallOptions#withResponseMetadata}) and client streams
 * without a request message, over RPC over RSocket on TCP (127.0.0.1), with the reactor flavor:
 * what every other flavor's client delegates to. The server sends its metadata through the call
 * model ({@link SendsResponseMetadata}); raw frames check the wire rules of
 * docs/rpc-wire-format.md (nothing sent to callers that did not ask, the extra credit, the
 * no-message flag's refusals).
 */
class ResponseMetadataAndEmptyStreamsTest {
  private static RpcTcp tcp;
  private static ReactorRequester requester;
  private static ReactorEchoServiceClient client;

  @BeforeAll
  static void start() throws Exception {
    tcp = new RpcTcp();
    var server =
        tcp.serve(ServiceRegistry.builder()
            .add(SendsResponseMetadata.wrap(new ReactorEchoServiceServer(new EchoImpl())))
            .build());
    requester = tcp.connect(server);
    client = new ReactorEchoServiceClient(requester);
  }

  @AfterAll
  static void stop() throws Exception {
    tcp.close();
  }

  private static EchoRequest req(String text) {
    return EchoRequest.newBuilder().setText(text).build();
  }

  private static ReactorEchoServiceClient capturing(ResponseMetadataCapture capture) {
    return client.withOptions(CallOptions.DEFAULT.withResponseMetadata(capture));
  }

  @Test
  void unaryCallReceivesHeadersAndABinaryTrailer() {
    // tag::capture[]
    ResponseMetadataCapture capture = new ResponseMetadataCapture();
    EchoReply reply = client.withOptions(CallOptions.DEFAULT.withResponseMetadata(capture))
        .say(req("hi"))
        .block();
    Headers headers = capture.headers();                     // server-id: s1
    byte[] cost = capture.trailers().getBinary("cost-bin");  // a binary trailer: 01 02
    // end::capture[]
    assertThat(reply.getText()).isEqualTo("hi");
    assertThat(headers).isEqualTo(SendsResponseMetadata.HEADERS);
    assertThat(cost).containsExactly(SendsResponseMetadata.COST);
    SendsResponseMetadata.assertCaptured(capture, Status.Code.OK);
  }

  @Test
  void serverStreamReceivesThemWithTheCallersExactDemand() throws Exception {
    // The subscriber asks for exactly the 3 responses and never more: the final metadata-only
    // frame rides on the one extra credit the client adds, never beyond the caller's demand.
    ResponseMetadataCapture capture = new ResponseMetadataCapture();
    List<String> got = new ArrayList<>();
    CountDownLatch completed = new CountDownLatch(1);
    capturing(capture)
        .repeat(EchoRequest.newBuilder().setText("r").setCount(3).build())
        .subscribe(
            new BaseSubscriber<EchoReply>() {
              @Override
              protected void hookOnSubscribe(Subscription s) {
                s.request(3);
              }

              @Override
              protected void hookOnNext(EchoReply r) {
                got.add(r.getText());
              }

              @Override
              protected void hookOnComplete() {
                completed.countDown();
              }
            });
    assertThat(completed.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("completed").isTrue();
    assertThat(got).containsExactly("r-0", "r-1", "r-2");
    SendsResponseMetadata.assertCaptured(capture, Status.Code.OK);
  }

  @Test
  void headersOfAFailedCallComeWithItsStatus() {
    ResponseMetadataCapture capture = new ResponseMetadataCapture();
    assertThatThrownBy(() -> capturing(capture).say(EchoRequest.newBuilder().setAction("fail:5:no such user").build()).block(WAIT))
        .isInstanceOfSatisfying(
            StatusException.class,
            e -> assertThat(e.status()).isEqualTo(Status.of(Status.Code.NOT_FOUND, "no such user")));
    SendsResponseMetadata.assertCaptured(capture, Status.Code.NOT_FOUND);
  }

  @Test
  void aStreamFailingAfterResponsesHasHeadersFirstAndTrailersAtTheEnd() {
    ResponseMetadataCapture capture = new ResponseMetadataCapture();
    List<String> got = new ArrayList<>();
    assertThatThrownBy(() -> capturing(capture)
            .repeat(EchoRequest.newBuilder().setText("r").setCount(2).setAction("fail:9:stop").build())
            .doOnNext(r -> {
              assertThat(capture.headers()).as("headers before the first response").isEqualTo(SendsResponseMetadata.HEADERS);
              got.add(r.getText());
            })
            .blockLast(WAIT))
        .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.status().code()).isEqualTo(Status.Code.FAILED_PRECONDITION));
    assertThat(got).containsExactly("r-0", "r-1");
    SendsResponseMetadata.assertCaptured(capture, Status.Code.FAILED_PRECONDITION);
  }

  @Test
  void clientStreamAndBidiReceiveThem() {
    ResponseMetadataCapture join = new ResponseMetadataCapture();
    assertThat(capturing(join).join(Flux.just(req("a"), req("b"))).block(WAIT).getText()).isEqualTo("a+b");
    SendsResponseMetadata.assertCaptured(join, Status.Code.OK);
    ResponseMetadataCapture chat = new ResponseMetadataCapture();
    assertThat(capturing(chat).chat(Flux.range(0, 50).map(i -> req("m" + i))).collectList().block(WAIT)).hasSize(50);
    SendsResponseMetadata.assertCaptured(chat, Status.Code.OK);
  }

  @Test
  void anEmptyClientStreamIsACallWithNoRequests() {
    EchoReply r = client.join(Flux.empty()).block(WAIT);
    assertThat(r.getText()).isEmpty();
    assertThat(r.getIndex()).isZero(); // the handler saw a request stream of 0 messages
    ResponseMetadataCapture capture = new ResponseMetadataCapture();
    assertThat(capturing(capture).join(Flux.empty()).block(WAIT).getIndex()).isZero();
    SendsResponseMetadata.assertCaptured(capture, Status.Code.OK);
  }

  @Test
  void anEmptyBidiStreamCompletesWithNoResponses() {
    assertThat(client.chat(Flux.empty()).collectList().block(WAIT)).isEmpty();
    ResponseMetadataCapture capture = new ResponseMetadataCapture();
    assertThat(capturing(capture).chat(Flux.empty()).collectList().block(WAIT)).isEmpty();
    // No response message: the headers came in the final frame, with the trailers.
    SendsResponseMetadata.assertCaptured(capture, Status.Code.OK);
  }

  @Test
  void aCallerThatAsksForNothingGetsFramesOfTheOldFormat() {
    // Without flag 0x20 the server sends no response metadata and no extra frame: exactly the
    // responses, without metadata, then COMPLETE.
    CallMetadata md = CallOptions.DEFAULT.metadata(ReactorEchoService.REPEAT);
    assertThat(md.responseMetadata()).isFalse();
    List<Message> frames =
        requester
            .requestStream(ProtoMessages.first(requester.alloc(), md, EchoRequest.newBuilder().setText("x").setCount(2).build()))
            .collectList()
            .block(WAIT);
    try {
      assertThat(frames).hasSize(2);
      assertThat(frames).allSatisfy(m -> assertThat(m.hasMetadata()).isFalse());
    } finally {
      frames.forEach(Message::release);
    }
    // A failed call's error data is "<code>:<description>" alone.
    CallMetadata say = CallOptions.DEFAULT.metadata(ReactorEchoService.SAY);
    assertThatThrownBy(() -> requester
            .requestResponse(ProtoMessages.first(requester.alloc(), say, EchoRequest.newBuilder().setAction("fail:5:gone").build()))
            .block(WAIT))
        .hasMessage("5:gone");
  }

  @Test
  void theNoMessageFlagIsRefusedOutsideRequestChannel() {
    CallMetadata md = CallOptions.DEFAULT.metadata(ReactorEchoService.SAY);
    assertThatThrownBy(() -> requester.requestResponse(ProtoMessages.firstWithoutMessage(requester.alloc(), md)).block(WAIT))
        .satisfies(t -> {
          Status s = RpcErrors.fromThrowable(t);
          assertThat(s.code()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(s.description()).contains("no-message flag is only valid on request-channel");
        });
  }

  @Test
  void requestsMayFollowAFirstFrameWithoutMessage() {
    CallMetadata md = CallOptions.DEFAULT.metadata(ReactorEchoService.JOIN);
    Flux<Message> out =
        Flux.just(
            ProtoMessages.firstWithoutMessage(requester.alloc(), md),
            ProtoMessages.next(requester.alloc(), req("a")),
            ProtoMessages.next(requester.alloc(), req("b")));
    EchoReply r =
        requester.requestChannel(out).map(m -> ProtoMessages.parse(EchoReply.parser(), m)).single().block(WAIT);
    assertThat(r.getText()).isEqualTo("a+b");
    assertThat(r.getIndex()).isEqualTo(2);
  }

  @Test
  void headersAreEmptyWhenTheServerSendsNone() throws Exception {
    RpcTcp other = new RpcTcp();
    try {
      var plain = other.serve(ServiceRegistry.builder().add(new ReactorEchoServiceServer(new EchoImpl())).build());
      ResponseMetadataCapture capture = new ResponseMetadataCapture();
      ReactorEchoServiceClient c =
          new ReactorEchoServiceClient(other.connect(plain)).withOptions(CallOptions.DEFAULT.withResponseMetadata(capture));
      assertThat(c.repeat(EchoRequest.newBuilder().setText("p").setCount(2).build()).collectList().block(WAIT)).hasSize(2);
      assertThat(capture.headers()).isEqualTo(Headers.EMPTY);
      assertThat(capture.trailers()).isEqualTo(Headers.EMPTY);
    } finally {
      other.close();
    }
  }
}
