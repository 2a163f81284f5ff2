package io.sluice.grpc.interop;

import io.grpc.testing.integration.EmptyProtos.Empty;
import io.grpc.testing.integration.GrpcTestServiceClient;
import io.grpc.testing.integration.Messages.BoolValue;
import io.grpc.testing.integration.Messages.ResponseParameters;
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.Messages.SimpleResponse;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import java.time.Duration;
import java.util.List;

/**
 * The unary cases of grpc-java's interop client (and server_compressed_streaming, its sibling),
 * with the same requests and the same checks. Stateless apart from the stub; one case at a time.
 */
final class UnaryCases {
  /** very_large_request's request payload: 10 MiB, as grpc-java sends. */
  static final int VERY_LARGE = 10 * 1024 * 1024;

  private final GrpcTestServiceClient stub;
  private final Duration wait;

  UnaryCases(GrpcTestServiceClient stub, Duration wait) {
    this.stub = stub;
    this.wait = wait;
  }

  SimpleResponse unary(SimpleRequest request) throws CaseFailure, InterruptedException {
    Recorder<SimpleResponse> r = new Recorder<>();
    stub.unaryCall(request, r);
    List<SimpleResponse> got = r.awaitSuccess(wait);
    Checks.check(got.size() == 1, "expected one response, got " + got.size());
    return got.get(0);
  }

  void emptyUnary() throws CaseFailure, InterruptedException {
    Recorder<Empty> r = new Recorder<>();
    stub.emptyCall(Empty.getDefaultInstance(), r);
    Checks.responses(List.of(Empty.getDefaultInstance()), r.awaitSuccess(wait));
  }

  void largeUnary() throws CaseFailure, InterruptedException {
    SimpleRequest request =
        SimpleRequest.newBuilder().setResponseSize(314159).setPayload(Payloads.zeros(271828)).build();
    Checks.equal("response", golden(314159), unary(request));
  }

  void veryLargeRequest() throws CaseFailure, InterruptedException {
    SimpleRequest request =
        SimpleRequest.newBuilder().setResponseSize(10).setPayload(Payloads.zeros(VERY_LARGE)).build();
    Checks.equal("response", golden(10), unary(request));
  }

  /** Asks for a compressed response, then an uncompressed one; checks both (not their encoding). */
  void serverCompressedUnary() throws CaseFailure, InterruptedException {
    for (boolean compressed : new boolean[] {true, false}) {
      SimpleRequest request =
          SimpleRequest.newBuilder()
              .setResponseCompressed(BoolValue.newBuilder().setValue(compressed))
              .setResponseSize(314159)
              .setPayload(Payloads.zeros(271828))
              .build();
      Checks.equal("response (response_compressed=" + compressed + ")", golden(314159), unary(request));
    }
  }

  void serverCompressedStreaming() throws CaseFailure, InterruptedException {
    StreamingOutputCallRequest request =
        StreamingOutputCallRequest.newBuilder()
            .addResponseParameters(ResponseParameters.newBuilder()
                .setCompressed(BoolValue.newBuilder().setValue(true)).setSize(31415))
            .addResponseParameters(ResponseParameters.newBuilder()
                .setCompressed(BoolValue.newBuilder().setValue(false)).setSize(92653))
            .build();
    Recorder<StreamingOutputCallResponse> r = new Recorder<>();
    stub.streamingOutputCall(request, r);
    Checks.responses(StreamingCases.golden(31415, 92653), r.awaitSuccess(wait));
  }

  static SimpleResponse golden(int size) {
    return SimpleResponse.newBuilder().setPayload(Payloads.zeros(size)).build();
  }
}
