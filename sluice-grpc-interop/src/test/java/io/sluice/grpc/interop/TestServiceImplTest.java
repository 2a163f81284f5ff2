package io.sluice.grpc.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.stub.StreamObserver;
import io.grpc.testing.integration.GrpcTestServiceClient;
import io.grpc.testing.integration.Messages.EchoStatus;
import io.grpc.testing.integration.Messages.ResponseParameters;
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.Messages.SimpleResponse;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import io.sluice.reactor.ReactorRequester;
import io.sluice.transport.ServerTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What {@link TestServiceImpl} does beyond the interop cases' happy paths, over RSocket on TCP
 * (127.0.0.1) with a Sluice-generated client: server id, intervals, statuses in streams, the
 * half-duplex call, and its limits.
 */
class TestServiceImplTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static TestServiceImpl service;
  private static ServerTransport.Bound server;
  private static ReactorRequester requester;
  private static GrpcTestServiceClient stub;

  @BeforeAll
  static void start() throws Exception {
    service = new TestServiceImpl("server-7");
    server = InteropRsocket.serve("127.0.0.1", 0, InteropServices.registry(service));
    requester = InteropRsocket.connect("127.0.0.1", ((InetSocketAddress) server.address()).getPort());
    stub = new GrpcTestServiceClient(requester.unwrap());
  }

  @AfterAll
  static void stop() {
    requester.dispose();
    server.close();
    service.close();
  }

  @Test
  void fillServerIdAnswersTheServersId() throws Exception {
    Recorder<SimpleResponse> r = new Recorder<>();
    stub.unaryCall(SimpleRequest.newBuilder().setFillServerId(true).setResponseSize(1).build(), r);
    SimpleResponse got = r.awaitSuccess(WAIT).get(0);
    assertThat(got.getServerId()).isEqualTo("server-7");
    assertThat(got.getPayload().getBody().size()).isEqualTo(1);
  }

  @Test
  void aZeroResponseSizeAnswersWithoutPayload() throws Exception {
    Recorder<SimpleResponse> r = new Recorder<>();
    stub.unaryCall(SimpleRequest.getDefaultInstance(), r);
    assertThat(r.awaitSuccess(WAIT)).containsExactly(SimpleResponse.getDefaultInstance());
  }

  @Test
  void anOversizedResponseIsInvalidArgument() throws Exception {
    Recorder<SimpleResponse> r = new Recorder<>();
    stub.unaryCall(SimpleRequest.newBuilder().setResponseSize(Payloads.MAX_RESPONSE_SIZE + 1).build(), r);
    io.grpc.Status s = io.grpc.Status.fromThrowable(r.awaitEnd(WAIT));
    assertThat(s.getCode()).isEqualTo(io.grpc.Status.Code.INVALID_ARGUMENT);
    assertThat(s.getDescription()).contains("outside 0.." + Payloads.MAX_RESPONSE_SIZE);
  }

  @Test
  void streamedResponsesComeInOrderAfterTheirIntervals() throws Exception {
    StreamingOutputCallRequest.Builder request = StreamingOutputCallRequest.newBuilder();
    int[] sizes = {5, 1, 3, 0};
    for (int size : sizes) {
      request.addResponseParameters(ResponseParameters.newBuilder().setSize(size).setIntervalUs(2000));
    }
    Recorder<StreamingOutputCallResponse> r = new Recorder<>();
    stub.streamingOutputCall(request.build(), r);
    assertThat(r.awaitSuccess(WAIT)).isEqualTo(StreamingCases.golden(sizes));
  }

  @Test
  void aNegativeIntervalIsInvalidArgument() throws Exception {
    Recorder<StreamingOutputCallResponse> r = new Recorder<>();
    stub.streamingOutputCall(StreamingOutputCallRequest.newBuilder()
        .addResponseParameters(ResponseParameters.newBuilder().setSize(1).setIntervalUs(-1)).build(), r);
    assertThat(io.grpc.Status.fromThrowable(r.awaitEnd(WAIT)).getCode())
        .isEqualTo(io.grpc.Status.Code.INVALID_ARGUMENT);
  }

  @Test
  void aStatusInAStreamingRequestEndsTheCallWithIt() throws Exception {
    Recorder<StreamingOutputCallResponse> r = new Recorder<>();
    stub.streamingOutputCall(StreamingOutputCallRequest.newBuilder()
        .setResponseStatus(EchoStatus.newBuilder().setCode(7).setMessage("no entry")).build(), r);
    io.grpc.Status s = io.grpc.Status.fromThrowable(r.awaitEnd(WAIT));
    assertThat(s.getCode()).isEqualTo(io.grpc.Status.Code.PERMISSION_DENIED);
    assertThat(s.getDescription()).isEqualTo("no entry");
  }

  @Test
  void fullDuplexAnswersEachRequestThenCompletesAfterTheLast() throws Exception {
    Recorder<StreamingOutputCallResponse> r = new Recorder<>();
    StreamObserver<StreamingOutputCallRequest> requests = stub.fullDuplexCall(r);
    requests.onNext(ask(2, 4));
    requests.onNext(ask(6));
    requests.onCompleted();
    assertThat(r.awaitSuccess(WAIT)).isEqualTo(StreamingCases.golden(2, 4, 6));
  }

  @Test
  void halfDuplexAnswersOnlyOnceTheCallerHalfCloses() throws Exception {
    Recorder<StreamingOutputCallResponse> r = new Recorder<>();
    StreamObserver<StreamingOutputCallRequest> requests = stub.halfDuplexCall(r);
    requests.onNext(ask(1));
    requests.onNext(ask(2, 3));
    // Nothing may come before the half-close; the ping round trip makes a response that was
    // (wrongly) sent at once arrive before the check.
    Recorder<SimpleResponse> ping = new Recorder<>();
    stub.unaryCall(SimpleRequest.getDefaultInstance(), ping);
    ping.awaitSuccess(WAIT);
    assertThat(r.values()).isEmpty();
    requests.onCompleted();
    assertThat(r.awaitSuccess(WAIT)).isEqualTo(StreamingCases.golden(1, 2, 3));
  }

  private static StreamingOutputCallRequest ask(int... sizes) {
    StreamingOutputCallRequest.Builder b = StreamingOutputCallRequest.newBuilder();
    for (int size : sizes) {
      b.addResponseParameters(ResponseParameters.newBuilder().setSize(size));
    }
    return b.build();
  }

  @Test
  void theCasesAreTheOnesGrpcJavasClientNames() {
    assertThat(InteropClient.CASES).hasSize(17).doesNotHaveDuplicates()
        .contains("empty_unary", "timeout_on_sleeping_server", "very_large_request");
    assertThat(List.copyOf(InteropClient.CASES)).isEqualTo(InteropClient.select(String.join(",", InteropClient.CASES)));
  }
}
