package io.sluice.grpc.interop;

import io.grpc.stub.StreamObserver;
import io.grpc.testing.integration.GrpcTestServiceClient;
import io.grpc.testing.integration.Messages.ResponseParameters;
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.Messages.SimpleResponse;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.Headers;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

/**
 * custom_metadata: a unary and a full-duplex call carrying {@value MetadataEcho#ECHO_INITIAL} and
 * the binary {@value MetadataEcho#ECHO_TRAILING}, whose responses must be right and whose echoed
 * response header and trailer must equal what was sent.
 *
 * <p>The second half cannot be checked yet: Sluice's generated clients expose no response headers
 * or trailers. The case therefore checks the calls and their responses, then fails saying so,
 * rather than passing on half of grpc-java's checks.
 */
final class MetadataCase {
  static final String INITIAL_VALUE = "test_initial_metadata_value";
  static final byte[] TRAILING_VALUE = {0xa, 0xb, 0xa, 0xb, 0xa, 0xb};

  /** The FAIL reason once the calls themselves passed. */
  static final String UNCHECKABLE =
      "calls and responses are right, but the echoed header and trailer cannot be checked: "
          + "Sluice's client stubs expose no response headers or trailers";

  private final GrpcTestServiceClient stub;
  private final Duration wait;

  MetadataCase(GrpcTestServiceClient stub, Duration wait) {
    this.stub = stub;
    this.wait = wait;
  }

  void customMetadata() throws CaseFailure, InterruptedException {
    Headers headers =
        Headers.builder()
            .add(MetadataEcho.ECHO_INITIAL, INITIAL_VALUE)
            // A binary header's value travels base64-encoded without padding, as gRPC sends it.
            .add(MetadataEcho.ECHO_TRAILING, Base64.getEncoder().withoutPadding().encodeToString(TRAILING_VALUE))
            .build();
    GrpcTestServiceClient withHeaders = stub.withOptions(CallOptions.DEFAULT.withHeaders(headers));

    Recorder<SimpleResponse> unary = new Recorder<>();
    withHeaders.unaryCall(
        SimpleRequest.newBuilder().setResponseSize(314159).setPayload(Payloads.zeros(271828)).build(), unary);
    Checks.responses(List.of(UnaryCases.golden(314159)), unary.awaitSuccess(wait));

    Recorder<StreamingOutputCallResponse> duplex = new Recorder<>();
    StreamObserver<StreamingOutputCallRequest> requests = withHeaders.fullDuplexCall(duplex);
    requests.onNext(StreamingOutputCallRequest.newBuilder()
        .addResponseParameters(ResponseParameters.newBuilder().setSize(314159))
        .setPayload(Payloads.zeros(271828))
        .build());
    requests.onCompleted();
    Checks.responses(StreamingCases.golden(314159), duplex.awaitSuccess(wait));

    throw new CaseFailure(UNCHECKABLE);
  }
}
