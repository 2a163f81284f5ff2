package io.sluice.grpc.interop;

import io.grpc.stub.StreamObserver;
import io.grpc.testing.integration.GrpcTestServiceClient;
import io.grpc.testing.integration.Messages.ResponseParameters;
import io.grpc.testing.integration.Messages.StreamingInputCallRequest;
import io.grpc.testing.integration.Messages.StreamingInputCallResponse;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The streaming cases of grpc-java's interop client: client_streaming, server_streaming,
 * ping_pong and empty_stream, with the same sizes and checks. One case at a time.
 */
final class StreamingCases {
  private static final int[] REQUEST_SIZES = {27182, 8, 1828, 45904};
  private static final int[] RESPONSE_SIZES = {31415, 9, 2653, 58979};

  private final GrpcTestServiceClient stub;
  private final Duration wait;

  StreamingCases(GrpcTestServiceClient stub, Duration wait) {
    this.stub = stub;
    this.wait = wait;
  }

  void clientStreaming() throws CaseFailure, InterruptedException {
    Recorder<StreamingInputCallResponse> r = new Recorder<>();
    StreamObserver<StreamingInputCallRequest> requests = stub.streamingInputCall(r);
    for (int size : REQUEST_SIZES) {
      requests.onNext(StreamingInputCallRequest.newBuilder().setPayload(Payloads.zeros(size)).build());
    }
    requests.onCompleted();
    Checks.responses(
        List.of(StreamingInputCallResponse.newBuilder().setAggregatedPayloadSize(74922).build()),
        r.awaitSuccess(wait));
  }

  void serverStreaming() throws CaseFailure, InterruptedException {
    StreamingOutputCallRequest.Builder request = StreamingOutputCallRequest.newBuilder();
    for (int size : RESPONSE_SIZES) {
      request.addResponseParameters(ResponseParameters.newBuilder().setSize(size));
    }
    Recorder<StreamingOutputCallResponse> r = new Recorder<>();
    stub.streamingOutputCall(request.build(), r);
    Checks.responses(golden(RESPONSE_SIZES), r.awaitSuccess(wait));
  }

  /** Four requests, each answered before the next is sent; then the call completes. */
  void pingPong() throws CaseFailure, InterruptedException {
    BlockingQueue<Object> events = new LinkedBlockingQueue<>();
    StreamObserver<StreamingOutputCallRequest> requests =
        stub.fullDuplexCall(new StreamObserver<>() {
          @Override
          public void onNext(StreamingOutputCallResponse value) {
            events.add(value);
          }

          @Override
          public void onError(Throwable t) {
            events.add(t);
          }

          @Override
          public void onCompleted() {
            events.add("completed");
          }
        });
    List<StreamingOutputCallResponse> expected = golden(RESPONSE_SIZES);
    for (int i = 0; i < REQUEST_SIZES.length; i++) {
      Checks.check(events.isEmpty(), "an event came before request " + i + ": " + events.peek());
      requests.onNext(StreamingOutputCallRequest.newBuilder()
          .addResponseParameters(ResponseParameters.newBuilder().setSize(RESPONSE_SIZES[i]))
          .setPayload(Payloads.zeros(REQUEST_SIZES[i]))
          .build());
      Object got = events.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
      Checks.check(got != null, "no response to request " + i + " within " + wait.toMillis() + " ms");
      if (got instanceof Throwable) {
        throw new CaseFailure("the call failed at request " + i + ": " + Checks.status((Throwable) got));
      }
      Checks.equal("response " + i, expected.get(i), got);
    }
    requests.onCompleted();
    Object end = events.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
    Checks.equal("end of the call", "completed", end instanceof Throwable ? Checks.status((Throwable) end) : end);
  }

  /** A full-duplex call half-closed at once: it completes with no response. */
  void emptyStream() throws CaseFailure, InterruptedException {
    Recorder<StreamingOutputCallResponse> r = new Recorder<>();
    stub.fullDuplexCall(r).onCompleted();
    Checks.check(r.awaitSuccess(wait).isEmpty(), "expected an empty stream, got " + r.values().size() + " responses");
  }

  static List<StreamingOutputCallResponse> golden(int... sizes) {
    List<StreamingOutputCallResponse> out = new ArrayList<>(sizes.length);
    for (int size : sizes) {
      out.add(StreamingOutputCallResponse.newBuilder().setPayload(Payloads.zeros(size)).build());
    }
    return out;
  }
}
