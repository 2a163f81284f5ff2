package io.sluice.transport.grpc.internal.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.Headers;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.rsocket.CallMetadataCodec;
import org.junit.jupiter.api.Test;

class CallStartsTest {
  private final CallStarts starts = new CallStarts(AsciiString.of("http"), AsciiString.of("h:1"));

  private static ByteBuf encoded(CallMetadata md) {
    return CallMetadataCodec.encode(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT, md);
  }

  private CallStarts.Start of(CallMetadata md) {
    ByteBuf b = encoded(md);
    try {
      return starts.of(b);
    } finally {
      b.release();
    }
  }

  @Test
  void repeatedMetadataIsDecodedOnceAndMatchedByContent() {
    CallMetadata a = CallMetadata.of("pkg.Svc", "A");
    CallStarts.Start first = of(a);
    assertThat(first.metadata()).isEqualTo(a);
    assertThat(first.headers().path().toString()).isEqualTo("/pkg.Svc/A");
    assertThat(of(CallMetadata.of("pkg.Svc", "A"))).isSameAs(first); // other buffer, same bytes
    CallStarts.Start b = of(CallMetadata.of("pkg.Svc", "B"));
    assertThat(b.metadata().method()).isEqualTo("B");
    CallMetadata withHeaders = CallMetadata.of("pkg.Svc", "A", Headers.of("x-k", "v"), CallMetadata.NO_TIMEOUT, false, 0);
    assertThat(of(withHeaders).headers().get("x-k").toString()).isEqualTo("v");
    assertThat(of(a)).isSameAs(first);
  }

  @Test
  void callsWithADeadlineAreDecodedEachTime() {
    CallMetadata timed = CallMetadata.of("pkg.Svc", "A", Headers.EMPTY, 250, false, 0);
    CallStarts.Start one = of(timed);
    CallStarts.Start two = of(timed);
    assertThat(two).isNotSameAs(one);
    assertThat(two.metadata()).isEqualTo(timed);
    assertThat(one.headers().get("grpc-timeout").toString()).isEqualTo("250000u");
  }

  @Test
  void badMetadataIsInvalidArgument() {
    ByteBuf junk = Unpooled.wrappedBuffer(new byte[] {9, 9, 9, 9, 9});
    assertThatThrownBy(() -> starts.of(junk))
        .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.status().code()).isEqualTo(Status.Code.INVALID_ARGUMENT));
  }
}
