package io.sluice.grpc.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.testing.integration.EmptyProtos.Empty;
import io.grpc.testing.integration.GrpcTestService;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.Headers;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.Status;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link MetadataEcho} hands the echoed header to the call's {@link ServerCall#sendHeaders} as the
 * call starts, before the handler runs, and the echoed trailer to {@link ServerCall#close(Status,
 * Headers)} at the end; calls without the echo headers are not wrapped. A recording call stands in
 * for the transport.
 */
class MetadataEchoTest {
  private final List<String> events = new ArrayList<>();

  /** A service whose EmptyCall answers once and closes OK, through the wrapped call. */
  private ServiceDefinition service() {
    return MetadataEcho.wrap(
        ServiceDefinition.builder(GrpcTestService.SERVICE)
            .add(GrpcTestService.EMPTY_CALL, call -> {
              call.sendMessage(Empty.getDefaultInstance());
              call.close(Status.OK);
              return null;
            })
            .build());
  }

  @SuppressWarnings("unchecked")
  private void call(Headers headers) {
    ServerCall<Empty, Empty> call = new RecordingCall(headers);
    ((io.sluice.rpc.ServerCallHandler<Empty, Empty>) service().method("EmptyCall").handler()).startCall(call);
  }

  @Test
  void echoesTheHeaderFirstAndTheTrailerLast() {
    call(Headers.builder()
        .add(MetadataEcho.ECHO_INITIAL, "hello")
        .add(MetadataEcho.ECHO_TRAILING, "CgsKCwoL")
        .add("other", "not echoed")
        .build());
    assertThat(events).containsExactly(
        "headers [x-grpc-test-echo-initial=hello]",
        "message",
        "closed OK trailers [x-grpc-test-echo-trailing-bin=CgsKCwoL]");
  }

  @Test
  void aHandlersOwnHeadersFollowTheEchoedOneAndItsTrailersJoinTheEchoedOne() {
    ServiceDefinition service =
        MetadataEcho.wrap(
            ServiceDefinition.builder(GrpcTestService.SERVICE)
                .add(GrpcTestService.EMPTY_CALL, call -> {
                  call.sendHeaders(Headers.of("own", "h"));
                  call.sendMessage(Empty.getDefaultInstance());
                  call.close(Status.OK, Headers.of("own-t", "t"));
                  return null;
                })
                .build());
    @SuppressWarnings("unchecked")
    io.sluice.rpc.ServerCallHandler<Empty, Empty> handler =
        (io.sluice.rpc.ServerCallHandler<Empty, Empty>) service.method("EmptyCall").handler();
    handler.startCall(new RecordingCall(Headers.builder()
        .add(MetadataEcho.ECHO_INITIAL, "hello").add(MetadataEcho.ECHO_TRAILING, "CgsKCwoL").build()));
    assertThat(events).containsExactly(
        "headers [x-grpc-test-echo-initial=hello]",
        "headers [own=h]",
        "message",
        "closed OK trailers [x-grpc-test-echo-trailing-bin=CgsKCwoL, own-t=t]");
  }

  @Test
  void aCallWithoutEchoHeadersIsLeftAlone() {
    call(Headers.of("other", "x"));
    assertThat(events).containsExactly("message", "closed OK");
  }

  /** The transport's side of the call, recording what reaches it. */
  private final class RecordingCall implements ServerCall<Empty, Empty> {
    private final CallMetadata metadata;

    RecordingCall(Headers headers) {
      metadata = CallMetadata.of(GrpcTestService.SERVICE, "EmptyCall", headers, CallMetadata.NO_TIMEOUT, false, 0);
    }

    @Override
    public CallMetadata metadata() {
      return metadata;
    }

    @Override
    public MethodDescriptor<Empty, Empty> method() {
      return GrpcTestService.EMPTY_CALL;
    }

    @Override
    public void request(long n) {}

    @Override
    public void sendMessage(Empty message) {
      events.add("message");
    }

    @Override
    public void sendHeaders(Headers headers) {
      events.add("headers " + headers.entries());
    }

    @Override
    public void close(Status status) {
      events.add("closed " + status);
    }

    @Override
    public void close(Status status, Headers trailers) {
      events.add("closed " + status + " trailers " + trailers.entries());
    }

    @Override
    public boolean isClosed() {
      return false;
    }
  }
}
