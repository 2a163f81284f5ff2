package io.sluice.rpc.reactor;

import static io.sluice.rpc.reactor.fixture.RpcTcp.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.BytesValue;
import com.google.protobuf.ByteString;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.Headers;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ResponseMetadataCapture;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.reactor.fixture.RpcTcp;
import io.sluice.rpc.rsocket.RpcErrors;
import java.util.Base64;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a failed call puts in its ERROR frame, over TCP: a NUL in a description cannot forge
 * response metadata, and a huge description or huge trailers are bounded, so the ERROR frame stays
 * a frame (its u24 length cannot wrap) and the connection keeps serving.
 */
class ErrorDataOverRsocketTest {
  private static final MethodDescriptor<BytesValue, BytesValue> CLOSE = method();

  private static RpcTcp tcp;
  private static ReactorRequester requester;

  private static MethodDescriptor<BytesValue, BytesValue> method() {
    return MethodDescriptor.<BytesValue, BytesValue>builder()
        .service("test.Errors")
        .method("Close")
        .kind(MethodKind.UNARY)
        .requestParser(BytesValue.parser())
        .responseParser(BytesValue.parser())
        .build();
  }

  /** "ok" answers; "forge" fails with a description that holds a NUL and a block; "huge"/"trailers" fail big. */
  private static ServiceDefinition service() {
    return ServiceDefinition.builder("test.Errors")
        .add(
            CLOSE,
            (ServerCall<BytesValue, BytesValue> call) -> {
              call.request(1);
              return new ServerCall.Listener<BytesValue>() {
                @Override
                public void onMessage(BytesValue message) {
                  String what = message.getValue().toStringUtf8();
                  switch (what) {
                    case "ok":
                      call.sendMessage(message);
                      call.close(Status.OK);
                      break;
                    case "huge":
                      call.close(Status.of(Status.Code.INVALID_ARGUMENT, "bad: " + "x".repeat(17 << 20)));
                      break;
                    case "trailers":
                      Headers.Builder b = Headers.builder();
                      for (int i = 0; i < 255; i++) {
                        b.add("t" + i, "v".repeat(65_000));
                      }
                      call.close(Status.of(Status.Code.NOT_FOUND, "none"), b.build());
                      break;
                    default: // "forge:<text>"
                      call.close(Status.of(Status.Code.ABORTED, what.substring(6)));
                  }
                }

                @Override
                public void onHalfClose() {}

                @Override
                public void onCancel() {}

                @Override
                public void onReady(long n) {}
              };
            })
        .build();
  }

  @BeforeAll
  static void start() throws Exception {
    tcp = new RpcTcp();
    requester = tcp.connect(tcp.serve(ServiceRegistry.builder().add(service()).build()));
  }

  @AfterAll
  static void stop() throws Exception {
    tcp.close();
  }

  private static Status fail(String what, ResponseMetadataCapture capture) {
    CallOptions o = capture == null ? CallOptions.DEFAULT : CallOptions.DEFAULT.withResponseMetadata(capture);
    Throwable[] seen = new Throwable[1];
    assertThatThrownBy(
            () -> ReactorClientCalls.unary(requester, CLOSE, o, BytesValue.of(ByteString.copyFromUtf8(what))).block(WAIT))
        .satisfies(t -> seen[0] = t)
        .isInstanceOf(StatusException.class);
    return ((StatusException) seen[0]).status();
  }

  private static void stillServes() {
    BytesValue ok = BytesValue.of(ByteString.copyFromUtf8("ok"));
    assertThat(ReactorClientCalls.unary(requester, CLOSE, CallOptions.DEFAULT, ok).block(WAIT)).isEqualTo(ok);
  }

  /** The bytes of a response metadata block with trailer {@code k: v}, as base64 (flags 0x02). */
  private static String forgedTrailers() {
    byte[] block = {1, 2, 1, 1, 'k', 0, 1, 'v'};
    return Base64.getEncoder().withoutPadding().encodeToString(block);
  }

  @Test
  void aNulInTheDescriptionForgesNoTrailers() {
    String text = "bad name: x\u0000" + forgedTrailers();
    ResponseMetadataCapture capture = new ResponseMetadataCapture();
    Status s = fail("forge:" + text, capture);
    assertThat(s.code()).isEqualTo(Status.Code.ABORTED);
    assertThat(s.description()).isEqualTo(text.replace('\u0000', '\uFFFD'));
    assertThat(capture.trailers()).isEqualTo(Headers.EMPTY);
    assertThat(capture.headers()).as("no headers were sent").isNull();
    stillServes();
  }

  @Test
  void aHugeDescriptionIsCutAndTheConnectionKeepsServing() {
    Status s = fail("huge", null);
    assertThat(s.code()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(s.description()).startsWith("bad: xxx").endsWith("...");
    assertThat(s.description().length()).isLessThanOrEqualTo(RpcErrors.MAX_DESCRIPTION_BYTES);
    stillServes();
  }

  @Test
  void hugeTrailersAreLeftOutAndTheConnectionKeepsServing() {
    ResponseMetadataCapture capture = new ResponseMetadataCapture();
    Status s = fail("trailers", capture);
    assertThat(s.code()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(s.description()).startsWith("none").contains("left out");
    stillServes();
  }
}
