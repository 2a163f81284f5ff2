package io.sluice.transport.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.sluice.rpc.Headers;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import java.util.List;
import org.junit.jupiter.api.Test;

class GrpcMetadataTest {
  @Test
  void keepsMetadataAndSkipsProtocolHeaders() {
    Http2Headers h =
        new DefaultHttp2Headers()
            .method("POST")
            .path("/a.B/C")
            .scheme("http")
            .add("content-type", "application/grpc")
            .add("te", "trailers")
            .add("grpc-timeout", "1S")
            .add("grpc-encoding", "gzip")
            .add("x-user", "alice")
            .add("x-user", "bob")
            .add("x-trace-bin", "AQID")
            .add("grpc-status-details-bin", "AAE");
    Headers md = GrpcMetadata.toHeaders(h);
    assertThat(md.getAll("x-user")).containsExactly("alice", "bob");
    assertThat(md.getBinary("x-trace-bin")).containsExactly(1, 2, 3);
    assertThat(md.getBinary("grpc-status-details-bin")).containsExactly(0, 1);
    assertThat(md.get("content-type")).isNull();
    assertThat(md.get("te")).isNull();
    assertThat(md.get("grpc-timeout")).isNull();
    assertThat(md.size()).isEqualTo(4);
  }

  @Test
  void reservedNamesAreExactlyTheProtocolsOwn() {
    List<String> reserved =
        List.of(":authority", ":path", ":method", ":scheme", ":status", ":protocol", "te", "host", "connection",
            "grpc-status", "content-type", "grpc-timeout", "grpc-message", "grpc-encoding", "content-length",
            "grpc-accept-encoding");
    for (String name : reserved) {
      assertThat(GrpcMetadata.isReserved(name)).as(name).isTrue();
      assertThat(GrpcMetadata.isReserved(AsciiString.of(name))).as(name + " (AsciiString)").isTrue();
    }
    List<String> metadata =
        List.of("", "t", "tf", "hosts", "grpc-status-details-bin", "content-typf", "grpc-timeouu", "grpc-messagf",
            "grpc-encodinh", "content-lengti", "grpc-accept-encodinh", "connectioo", "user-agent", "x-te",
            "Content-Type", "authorization", "grpc-previous-rpc-attempts");
    for (String name : metadata) {
      assertThat(GrpcMetadata.isReserved(name)).as(name).isFalse();
      assertThat(GrpcMetadata.isReserved(AsciiString.of(name))).as(name + " (AsciiString)").isFalse();
    }
  }

  @Test
  void paddedBase64AndCommaJoinedBinaryValuesAreAccepted() {
    Http2Headers h = new DefaultHttp2Headers().add("k-bin", "AQ==, AgM");
    Headers md = GrpcMetadata.toHeaders(h);
    assertThat(md.getAllBinary("k-bin")).containsExactly(new byte[] {1}, new byte[] {2, 3});
  }

  @Test
  void malformedEntriesAreDropped() {
    Http2Headers h =
        new DefaultHttp2Headers(false).add("ok", "v").add("bad-bin", "***").add("ctl", "a\u0001b");
    Headers md = GrpcMetadata.toHeaders(h);
    assertThat(md.entries()).hasSize(1);
    assertThat(md.get("ok")).isEqualTo("v");
  }

  @Test
  void tooManyEntriesIsResourceExhausted() {
    Http2Headers h = new DefaultHttp2Headers();
    for (int i = 0; i <= Headers.MAX_ENTRIES; i++) {
      h.add("k" + i, "v");
    }
    assertThatThrownBy(() -> GrpcMetadata.toHeaders(h))
        .isInstanceOf(StatusException.class)
        .extracting(e -> ((StatusException) e).status().code())
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void readsARequestsHeadInOnePass() {
    Http2Headers h =
        new DefaultHttp2Headers()
            .method("POST")
            .path("/a.B/C")
            .scheme("https")
            .authority("example")
            .add("content-type", "application/grpc+proto")
            .add("te", "trailers")
            .add("grpc-message", "not a timeout") // as long as grpc-timeout
            .add("grpc-timeout", "1S")
            .add("grpc-timeout", "2S") // the first is read, as Http2Headers.get does
            .add("grpc-encoding", "gzip")
            .add("grpc-accept-encoding", "gzip,identity")
            .add("x-user", "alice");
    GrpcMetadata.RequestHead head = GrpcMetadata.readRequest(h);
    assertThat(head.method.toString()).isEqualTo("POST");
    assertThat(head.path.toString()).isEqualTo("/a.B/C");
    assertThat(head.scheme.toString()).isEqualTo("https");
    assertThat(head.contentType.toString()).isEqualTo("application/grpc+proto");
    assertThat(head.timeout.toString()).isEqualTo("1S");
    assertThat(head.encoding.toString()).isEqualTo("gzip");
    assertThat(head.acceptEncoding.toString()).isEqualTo("gzip,identity");
    assertThat(head.metadata.entries()).hasSize(1);
    assertThat(head.metadata.get("x-user")).isEqualTo("alice");
    assertThat(head.tooMany).isFalse();

    GrpcMetadata.RequestHead bare = GrpcMetadata.readRequest(new DefaultHttp2Headers().add("x-a", "1"));
    assertThat(bare.method).isNull();
    assertThat(bare.path).isNull();
    assertThat(bare.scheme).isNull();
    assertThat(bare.contentType).isNull();
    assertThat(bare.timeout).isNull();
    assertThat(bare.encoding).isNull();
    assertThat(bare.acceptEncoding).isNull();
  }

  @Test
  void aRequestWithTooManyEntriesIsMarkedAndStillReadWhole() {
    Http2Headers h = new DefaultHttp2Headers().method("POST").path("/a.B/C").scheme("http");
    for (int i = 0; i <= Headers.MAX_ENTRIES; i++) {
      h.add("k" + i, "v");
    }
    h.add("content-type", "application/grpc");
    GrpcMetadata.RequestHead head = GrpcMetadata.readRequest(h);
    assertThat(head.tooMany).isTrue();
    assertThat(head.contentType.toString()).isEqualTo("application/grpc");
    assertThat(head.metadata.entries()).hasSize(Headers.MAX_ENTRIES);
  }

  @Test
  void writesMetadataBackSkippingReservedKeys() {
    Headers md =
        Headers.builder()
            .add("x-a", "1")
            .addBinary("x-b-bin", new byte[] {(byte) 0xFF, 0})
            .add("grpc-status", "0")
            .add("content-type", "text/plain")
            .build();
    Http2Headers out = new DefaultHttp2Headers();
    GrpcMetadata.addTo(md, out);
    assertThat(out.size()).isEqualTo(2);
    assertThat(out.get("x-a").toString()).isEqualTo("1");
    assertThat(out.get("x-b-bin").toString()).isEqualTo("/wA");
    assertThat(GrpcMetadata.toHeaders(out).getBinary("x-b-bin")).containsExactly(0xFF, 0);
  }
}
