package io.sluice.grpc.interop;

import io.grpc.stub.StreamObserver;
import io.grpc.testing.integration.EmptyProtos.Empty;
import io.grpc.testing.integration.GrpcTestServiceClient;
import io.grpc.testing.integration.GrpcUnimplementedServiceClient;
import io.grpc.testing.integration.Messages.EchoStatus;
import io.grpc.testing.integration.Messages.ResponseParameters;
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.Messages.SimpleResponse;
import io.grpc.testing.integration.Messages.StreamingInputCallRequest;
import io.grpc.testing.integration.Messages.StreamingInputCallResponse;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import io.sluice.rpc.CallOptions;
import java.time.Duration;

/**
 * The cases of grpc-java's interop client about how calls end: statuses and their messages,
 * UNIMPLEMENTED, cancellation by the client, and a deadline on a server that does not answer. Same
 * requests, same checks. One case at a time.
 */
final class CallEndCases {
  /** special_status_message's text: whitespace, CR/LF, BMP and non-BMP characters. */
  static final String SPECIAL_MESSAGE = "\t\ntest with whitespace\r\nand Unicode BMP \u263A and non-BMP \uD83D\uDE08\t\n";

  private final GrpcTestServiceClient stub;
  private final GrpcUnimplementedServiceClient unimplemented;
  private final Duration wait;

  CallEndCases(GrpcTestServiceClient stub, GrpcUnimplementedServiceClient unimplemented, Duration wait) {
    this.stub = stub;
    this.unimplemented = unimplemented;
    this.wait = wait;
  }

  void statusCodeAndMessage() throws CaseFailure, InterruptedException {
    EchoStatus status = EchoStatus.newBuilder().setCode(2).setMessage("test status message").build();
    Recorder<SimpleResponse> unary = new Recorder<>();
    stub.unaryCall(SimpleRequest.newBuilder().setResponseStatus(status).build(), unary);
    expectStatus("UnaryCall", unary.awaitEnd(wait), status.getMessage());

    Recorder<StreamingOutputCallResponse> duplex = new Recorder<>();
    StreamObserver<StreamingOutputCallRequest> requests = stub.fullDuplexCall(duplex);
    requests.onNext(StreamingOutputCallRequest.newBuilder().setResponseStatus(status).build());
    requests.onCompleted();
    expectStatus("FullDuplexCall", duplex.awaitEnd(wait), status.getMessage());
  }

  void specialStatusMessage() throws CaseFailure, InterruptedException {
    Recorder<SimpleResponse> r = new Recorder<>();
    stub.unaryCall(SimpleRequest.newBuilder()
        .setResponseStatus(EchoStatus.newBuilder().setCode(2).setMessage(SPECIAL_MESSAGE))
        .build(), r);
    expectStatus("UnaryCall", r.awaitEnd(wait), SPECIAL_MESSAGE);
  }

  private static void expectStatus(String call, Throwable error, String message) throws CaseFailure {
    io.grpc.Status s = Checks.failedWith(io.grpc.Status.Code.UNKNOWN, error);
    Checks.equal(call + " status message", message, String.valueOf(s.getDescription()));
  }

  void unimplementedMethod() throws CaseFailure, InterruptedException {
    Recorder<Empty> r = new Recorder<>();
    stub.unimplementedCall(Empty.getDefaultInstance(), r);
    Checks.failedWith(io.grpc.Status.Code.UNIMPLEMENTED, r.awaitEnd(wait));
  }

  void unimplementedService() throws CaseFailure, InterruptedException {
    Recorder<Empty> r = new Recorder<>();
    unimplemented.unimplementedCall(Empty.getDefaultInstance(), r);
    Checks.failedWith(io.grpc.Status.Code.UNIMPLEMENTED, r.awaitEnd(wait));
  }

  /** A client-streaming call cancelled (request observer's onError) before any request. */
  void cancelAfterBegin() throws CaseFailure, InterruptedException {
    Recorder<StreamingInputCallResponse> r = new Recorder<>();
    StreamObserver<StreamingInputCallRequest> requests = stub.streamingInputCall(r);
    requests.onError(new RuntimeException("cancelled by the interop client"));
    Checks.failedWith(io.grpc.Status.Code.CANCELLED, r.awaitEnd(wait));
    Checks.check(r.values().isEmpty(), "expected no response, got " + r.values().size());
  }

  /** A full-duplex call cancelled (request observer's onError) after its first response. */
  void cancelAfterFirstResponse() throws CaseFailure, InterruptedException {
    Recorder<StreamingOutputCallResponse> r = new Recorder<>();
    StreamObserver<StreamingOutputCallRequest> requests = stub.fullDuplexCall(r);
    requests.onNext(StreamingOutputCallRequest.newBuilder()
        .addResponseParameters(ResponseParameters.newBuilder().setSize(31415))
        .setPayload(Payloads.zeros(27182))
        .build());
    Checks.equal("first response", StreamingCases.golden(31415).get(0), r.awaitFirst(wait));
    requests.onError(new RuntimeException("cancelled by the interop client"));
    Checks.failedWith(io.grpc.Status.Code.CANCELLED, r.awaitEnd(wait));
    Checks.check(r.values().size() == 1, "expected one response, got " + r.values().size());
  }

  /** A full-duplex call with a 1 ms deadline to a server that does not answer its request. */
  void timeoutOnSleepingServer() throws CaseFailure, InterruptedException {
    Recorder<StreamingOutputCallResponse> r = new Recorder<>();
    StreamObserver<StreamingOutputCallRequest> requests =
        stub.withOptions(CallOptions.DEFAULT.withTimeout(Duration.ofMillis(1))).fullDuplexCall(r);
    try {
      requests.onNext(StreamingOutputCallRequest.newBuilder().setPayload(Payloads.zeros(27182)).build());
    } catch (IllegalStateException expected) {
      // The deadline may have ended the call already, as grpc-java's client allows.
    }
    Checks.failedWith(io.grpc.Status.Code.DEADLINE_EXCEEDED, r.awaitEnd(wait));
    Checks.check(r.values().isEmpty(), "expected no response, got " + r.values().size());
  }
}
