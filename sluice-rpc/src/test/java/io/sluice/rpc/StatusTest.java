package io.sluice.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class StatusTest {

  @Test
  void codesAreNumberedAsGrpcNumbersThem() {
    String[] grpc = {
      "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
      "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
      "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"
    };
    assertThat(Status.Code.values()).hasSize(grpc.length);
    for (int i = 0; i < grpc.length; i++) {
      assertThat(Status.Code.fromValue(i).name()).isEqualTo(grpc[i]);
      assertThat(Status.Code.valueOf(grpc[i]).value()).isEqualTo(i);
    }
    assertThat(Status.Code.fromValue(17)).isEqualTo(Status.Code.UNKNOWN);
  }

  @Test
  void fromThrowableFindsAStatusInTheCauseChain() {
    StatusException e = StatusException.of(Status.Code.NOT_FOUND, "x");
    assertThat(Status.fromThrowable(new RuntimeException(e)).code()).isEqualTo(Status.Code.NOT_FOUND);
    IllegalStateException bad = new IllegalStateException("bad");
    Status s = Status.fromThrowable(bad);
    assertThat(s).isEqualTo(Status.of(Status.Code.UNKNOWN, ""));
    assertThat(s.description()).as("an exception's text is not a description").isEmpty();
    assertThat(s.cause()).isSameAs(bad);
    assertThat(s.withDescription("d").cause()).isSameAs(bad);
  }

  @Test
  void headersAreValidated() {
    assertThat(Headers.of("a-b_c.1", "v v").get("a-b_c.1")).isEqualTo("v v");
    assertThatThrownBy(() -> Headers.of("Upper", "v")).hasMessageContaining("outside [a-z0-9-_.]");
    assertThatThrownBy(() -> Headers.of("k", "caf\u00e9")).hasMessageContaining("non-printable-ASCII");
    assertThatThrownBy(() -> Headers.of("", "v")).hasMessageContaining("1..255");
    assertThatThrownBy(() -> Headers.of("k")).hasMessageContaining("odd");
  }

  @Test
  void callOptionsTimeoutRoundsUpToWholeMilliseconds() {
    MethodDescriptor<com.google.protobuf.Empty, com.google.protobuf.Empty> m =
        MethodDescriptor.<com.google.protobuf.Empty, com.google.protobuf.Empty>builder()
            .service("s").method("m").kind(MethodKind.UNARY).idempotent(true).rank(3)
            .requestParser(com.google.protobuf.Empty.parser())
            .responseParser(com.google.protobuf.Empty.parser())
            .build();
    CallMetadata md = CallOptions.DEFAULT.withTimeout(Duration.ofNanos(1_500_000)).metadata(m);
    assertThat(md.timeoutMillis()).isEqualTo(2);
    assertThat(md.idempotent()).isTrue();
    assertThat(md.rank()).isEqualTo(3);
    assertThat(CallOptions.DEFAULT.withIdempotent(false).metadata(m).idempotent()).isFalse();
    assertThat(CallOptions.DEFAULT.metadata(m).hasTimeout()).isFalse();
    assertThatThrownBy(() -> CallOptions.DEFAULT.withTimeout(Duration.ZERO)).hasMessageContaining("positive");
  }
}
