package io.sluice.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.StringValue;
import org.junit.jupiter.api.Test;

/** Every method of {@link ForwardingServerCall} reaches the delegate's own version. */
class ForwardingServerCallTest {
  @Test
  void forwardsEveryMethodIncludingTheDefaultOnes() {
    MethodDescriptor<StringValue, StringValue> m =
        MethodDescriptor.<StringValue, StringValue>builder()
            .service("demo.Greeter")
            .method("Say")
            .kind(MethodKind.UNARY)
            .requestParser(StringValue.parser())
            .responseParser(StringValue.parser())
            .build();
    RecordingServerCall<StringValue, StringValue> d = new RecordingServerCall<>(m, Headers.of("k", "v"));
    ServerCall<StringValue, StringValue> f = new ForwardingServerCall<>(d);

    assertThat(f.metadata()).isSameAs(d.metadata);
    assertThat(f.method()).isSameAs(m);
    assertThat(f.isClosed()).isFalse();
    f.request(3);
    f.sendHeaders(Headers.of("h", "1"));
    f.sendMessage(StringValue.of("x"));
    f.close(Status.of(Status.Code.ABORTED, "a"), Headers.of("t", "2"));
    f.close(Status.OK);
    assertThat(d.events)
        .containsExactly("request(3)", "sendHeaders", "sendMessage", "close(ABORTED, trailers)", "close(OK)");
    assertThat(d.headers).isEqualTo(Headers.of("h", "1"));
    assertThat(d.trailers).isEqualTo(Headers.of("t", "2"));
    assertThat(f.isClosed()).isTrue();
  }
}
