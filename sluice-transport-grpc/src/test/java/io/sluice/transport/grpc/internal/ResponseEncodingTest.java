package io.sluice.transport.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.rpc.Headers;
import io.sluice.rpc.Status;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The response side's fast paths: a message encoded behind its prefix, shared headers and trailers. */
class ResponseEncodingTest {
  @Test
  void encodeWritesThePrefixAndTheMessageIntoOneExactBuffer() throws Exception {
    for (int n : new int[] {0, 8, 128, 1500, 200_000}) {
      byte[] data = new byte[n];
      new Random(n).nextBytes(data);
      BytesValue m = BytesValue.of(ByteString.copyFrom(data));
      ByteBuf out = MessageFramer.encode(ByteBufAllocator.DEFAULT, m);
      try {
        assertThat(out.readableBytes()).isEqualTo(5 + m.getSerializedSize());
        assertThat(out.getByte(0)).as("not compressed").isZero();
        assertThat(out.getInt(1)).isEqualTo(m.getSerializedSize());
        byte[] body = ByteBufUtil.getBytes(out, 5, out.readableBytes() - 5);
        assertThat(BytesValue.parseFrom(body).getValue().toByteArray()).isEqualTo(data);
      } finally {
        out.release();
      }
    }
  }

  @Test
  void plainCallsShareTheirHeadersAndOkTrailersOthersGetTheirOwn() {
    assertThat(GrpcResponses.responseHeaders(GrpcEncoding.IDENTITY, Headers.EMPTY))
        .isSameAs(GrpcResponses.responseHeaders(GrpcEncoding.IDENTITY, null));
    Http2Headers shared = GrpcResponses.responseHeaders(GrpcEncoding.IDENTITY, null);
    assertThat(shared.status().toString()).isEqualTo("200");
    assertThat(shared.get("content-type").toString()).isEqualTo("application/grpc");
    assertThat(shared.get("grpc-accept-encoding").toString()).isEqualTo(GrpcEncoding.ACCEPT);

    Headers md = Headers.builder().add("x-a", "1").build();
    Http2Headers own = GrpcResponses.responseHeaders(GrpcEncoding.IDENTITY, md);
    assertThat(own).isNotSameAs(shared);
    assertThat(own.get("x-a").toString()).isEqualTo("1");
    assertThat(GrpcResponses.responseHeaders(GrpcEncoding.GZIP, null).get("grpc-encoding").toString())
        .isEqualTo("gzip");

    Http2Headers ok = GrpcResponses.trailers(Status.OK, Headers.EMPTY);
    assertThat(ok).isSameAs(GrpcResponses.trailers(Status.OK, null));
    assertThat(ok.get("grpc-status").toString()).isEqualTo("0");
    assertThat(ok.size()).isEqualTo(1);

    Http2Headers failed = GrpcResponses.trailers(Status.of(Status.Code.NOT_FOUND, "no such thing"), null);
    assertThat(failed).isNotSameAs(ok);
    assertThat(failed.get("grpc-status").toString()).isEqualTo("5");
    assertThat(failed.get("grpc-message").toString()).isEqualTo("no such thing");
    Http2Headers withTrailers = GrpcResponses.trailers(Status.OK, md);
    assertThat(withTrailers).isNotSameAs(ok);
    assertThat(withTrailers.get("x-a").toString()).isEqualTo("1");
  }
}
