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
import io.sluice.rpc.ResponseMetadataCapture;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * custom_metadata: a unary and a full-duplex call carrying {@value MetadataEcho#ECHO_INITIAL} and
 * the binary {@value MetadataEcho#ECHO_TRAILING}, whose responses must be right and whose echoed
 * response header and trailer (received through {@link CallOptions#withResponseMetadata}) must equal
 * what was sent.
 */
final class MetadataCase {
  static final String INITIAL_VALUE = "test_initial_metadata_value";
  static final byte[] TRAILING_VALUE = {0xa, 0xb, 0xa, 0xb, 0xa, 0xb};

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
            .addBinary(MetadataEcho.ECHO_TRAILING, TRAILING_VALUE)
            .build();
    CallOptions options = CallOptions.DEFAULT.withHeaders(headers);

    ResponseMetadataCapture unaryMetadata = new ResponseMetadataCapture();
    Recorder<SimpleResponse> unary = new Recorder<>();
    stub.withOptions(options.withResponseMetadata(unaryMetadata))
        .unaryCall(
            SimpleRequest.newBuilder().setResponseSize(314159).setPayload(Payloads.zeros(271828)).build(), unary);
    Checks.responses(List.of(UnaryCases.golden(314159)), unary.awaitSuccess(wait));
    checkEcho("unary", unaryMetadata);

    ResponseMetadataCapture duplexMetadata = new ResponseMetadataCapture();
    Recorder<StreamingOutputCallResponse> duplex = new Recorder<>();
    StreamObserver<StreamingOutputCallRequest> requests =
        stub.withOptions(options.withResponseMetadata(duplexMetadata)).fullDuplexCall(duplex);
    requests.onNext(StreamingOutputCallRequest.newBuilder()
        .addResponseParameters(ResponseParameters.newBuilder().setSize(314159))
        .setPayload(Payloads.zeros(271828))
        .build());
    requests.onCompleted();
    Checks.responses(StreamingCases.golden(314159), duplex.awaitSuccess(wait));
    checkEcho("full-duplex", duplexMetadata);
  }

  private static void checkEcho(String call, ResponseMetadataCapture got) throws CaseFailure {
    Headers h = got.headers();
    Checks.check(
        h != null && INITIAL_VALUE.equals(h.get(MetadataEcho.ECHO_INITIAL)),
        call + ": response header " + MetadataEcho.ECHO_INITIAL + " expected '" + INITIAL_VALUE + "', got headers " + h);
    Headers t = got.trailers();
    byte[] echoed = t == null || t.get(MetadataEcho.ECHO_TRAILING) == null ? null : t.getBinary(MetadataEcho.ECHO_TRAILING);
    Checks.check(
        Arrays.equals(TRAILING_VALUE, echoed),
        call + ": trailer " + MetadataEcho.ECHO_TRAILING + " expected " + Arrays.toString(TRAILING_VALUE)
            + ", got trailers " + t);
  }
}
