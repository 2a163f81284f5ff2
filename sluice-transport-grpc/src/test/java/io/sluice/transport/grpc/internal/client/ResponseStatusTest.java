package io.sluice.transport.grpc.internal.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.rpc.Status;
import org.junit.jupiter.api.Test;

class ResponseStatusTest {
  private static Http2Headers headers(String... kv) {
    Http2Headers h = new DefaultHttp2Headers();
    for (int i = 0; i < kv.length; i += 2) {
      h.add(kv[i], kv[i + 1]);
    }
    return h;
  }

  @Test
  void grpcResponseHeadersPass() {
    assertThat(ResponseStatus.checkHeaders(headers(":status", "200", "content-type", "application/grpc"), false)).isNull();
    assertThat(ResponseStatus.checkHeaders(headers(":status", "200", "content-type", "application/grpc+proto"), false)).isNull();
    // Trailers-only with a status: a gRPC answer whatever its content type.
    assertThat(ResponseStatus.checkHeaders(headers(":status", "200", "grpc-status", "12"), true)).isNull();
  }

  @Test
  void answersThatAreNotGrpcMapByHttpStatus() {
    assertThat(ResponseStatus.checkHeaders(headers(":status", "404", "content-type", "text/html"), true).code())
        .isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(ResponseStatus.checkHeaders(headers(":status", "503"), true).code()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(ResponseStatus.checkHeaders(headers(":status", "401"), true).code()).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(ResponseStatus.checkHeaders(headers(":status", "403"), true).code()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(ResponseStatus.checkHeaders(headers(":status", "400"), true).code()).isEqualTo(Status.Code.INTERNAL);
    assertThat(ResponseStatus.checkHeaders(headers(":status", "500"), true))
        .isEqualTo(Status.of(Status.Code.UNKNOWN, "the server answered HTTP status 500, not a gRPC response"));
    assertThat(ResponseStatus.checkHeaders(headers(":status", "200", "content-type", "text/html"), false).code())
        .isEqualTo(Status.Code.UNKNOWN);
    assertThat(ResponseStatus.checkHeaders(headers("content-type", "application/grpc"), false).code())
        .isEqualTo(Status.Code.INTERNAL);
  }

  @Test
  void trailersCarryTheStatusAndThePercentDecodedMessage() {
    assertThat(ResponseStatus.fromTrailers(headers("grpc-status", "0"))).isEqualTo(Status.OK);
    assertThat(ResponseStatus.fromTrailers(headers("grpc-status", "5", "grpc-message", "no%20such%0D%0Aitem %F0%9F%98%80")))
        .isEqualTo(Status.of(Status.Code.NOT_FOUND, "no such\r\nitem 😀"));
    assertThat(ResponseStatus.fromTrailers(headers("grpc-status", "99", "grpc-message", "odd")))
        .isEqualTo(Status.of(Status.Code.UNKNOWN, "grpc-status 99: odd"));
    assertThat(ResponseStatus.fromTrailers(headers("grpc-status", "x1")).code()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(ResponseStatus.fromTrailers(headers("other", "1")).code()).isEqualTo(Status.Code.INTERNAL);
  }

  @Test
  void resetCodesMapAsGrpcSays() {
    assertThat(ResponseStatus.fromReset(Http2Error.CANCEL.code()).code()).isEqualTo(Status.Code.CANCELLED);
    assertThat(ResponseStatus.fromReset(Http2Error.REFUSED_STREAM.code()).code()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(ResponseStatus.fromReset(Http2Error.ENHANCE_YOUR_CALM.code()).code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(ResponseStatus.fromReset(Http2Error.INADEQUATE_SECURITY.code()).code()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(ResponseStatus.fromReset(Http2Error.NO_ERROR.code()).code()).isEqualTo(Status.Code.INTERNAL);
    assertThat(ResponseStatus.fromReset(Http2Error.PROTOCOL_ERROR.code()))
        .isEqualTo(Status.of(Status.Code.INTERNAL, "the server reset the stream (HTTP/2 PROTOCOL_ERROR)"));
    assertThat(ResponseStatus.fromReset(0x77).description()).contains("error 119");
  }
}
