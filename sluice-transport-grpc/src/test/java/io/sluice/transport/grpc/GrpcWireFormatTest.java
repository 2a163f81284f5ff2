package io.sluice.transport.grpc;

import static io.sluice.transport.http2.RawH2Peer.concat;
import static io.sluice.transport.http2.RawH2Peer.data;
import static io.sluice.transport.http2.RawH2Peer.headers;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.StringValue;
import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.transport.http2.RawH2Peer;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** What a gRPC server puts on the wire, read with a raw HTTP/2 client (grpc-java hides these). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrpcWireFormatTest {
  private static final Duration GUARD = Duration.ofSeconds(20);
  private EchoService service;
  private GrpcServer.Running server;

  @BeforeAll
  void start() {
    service = new EchoService();
    server = GrpcServer.create("127.0.0.1", 0).withServices(service.registry()).start();
  }

  @AfterAll
  void stop() throws Exception {
    server.close();
    server.onClose().get();
  }

  private static byte[] request(String path, String... extra) {
    List<String> h =
        new ArrayList<>(
            List.of(":method", "POST", ":scheme", "http", ":authority", "127.0.0.1", ":path", path,
                "content-type", "application/grpc", "te", "trailers"));
    h.addAll(List.of(extra));
    return RawH2Peer.Hpack.block(h.toArray(new String[0]));
  }

  private static byte[] message(int flags, byte[] body) {
    return ByteBuffer.allocate(5 + body.length).put((byte) flags).putInt(body.length).put(body).array();
  }

  private static byte[] unary(String value) {
    return message(0, StringValue.of(value).toByteArray());
  }

  /** Sends {@code frames} on a new connection and reads until stream 1 ends (or is reset). */
  private RawH2Peer exchange(byte[]... frames) throws Exception {
    RawH2Peer p = RawH2Peer.handshake(server.port());
    p.send(concat(frames));
    p.await(
        peer -> peer.resets.containsKey(1) || endedWithHeaders(peer), GUARD);
    return p;
  }

  private static boolean endedWithHeaders(RawH2Peer p) {
    for (RawH2Peer.Frame f : p.frames) {
      if (f.streamId() == 1 && f.type() == RawH2Peer.HEADERS && (f.flags() & RawH2Peer.FLAG_END_STREAM) != 0) {
        return true;
      }
    }
    return false;
  }

  private static int count(RawH2Peer p, int type) {
    int n = 0;
    for (RawH2Peer.Frame f : p.frames) {
      if (f.streamId() == 1 && f.type() == type) {
        n++;
      }
    }
    return n;
  }

  @Test
  void anUnknownServiceGetsATrailersOnlyResponse() throws Exception {
    try (RawH2Peer p = exchange(headers(1, true, request("/nope.Nothing/Call")))) {
      List<Http2Headers> blocks = p.headers.get(1);
      assertThat(blocks).hasSize(1);
      Http2Headers h = blocks.get(0);
      assertThat(h.status().toString()).isEqualTo("200");
      assertThat(h.get("content-type").toString()).isEqualTo("application/grpc");
      assertThat(h.get("grpc-status").toString()).isEqualTo("12");
      assertThat(h.get("grpc-message").toString()).isEqualTo("unknown service nope.Nothing");
      assertThat(count(p, RawH2Peer.DATA)).isZero();
      assertThat(p.resets).doesNotContainKey(1); // the caller had finished: no RST needed
    }
  }

  @Test
  void aUnaryCallIsHeadersDataTrailers() throws Exception {
    try (RawH2Peer p =
        exchange(headers(1, false, request("/" + EchoService.NAME + "/Unary")), data(1, true, unary("hi")))) {
      List<Http2Headers> blocks = p.headers.get(1);
      assertThat(blocks).hasSize(2);
      assertThat(blocks.get(0).status().toString()).isEqualTo("200");
      assertThat(blocks.get(0).get("grpc-status")).isNull();
      assertThat(blocks.get(1).get("grpc-status").toString()).isEqualTo("0");
      assertThat(blocks.get(1).get("grpc-message")).isNull();
      assertThat(p.dataBytes.get(1)).isEqualTo((long) unary("hi").length);
    }
  }

  @Test
  void grpcMessageIsPercentEncoded() throws Exception {
    try (RawH2Peer p =
        exchange(
            headers(1, false, request("/" + EchoService.NAME + "/Unary")),
            data(1, true, unary("status:3:a%b\n☺ \uD83D\uDE08")))) {
      assertThat(p.trailer(1, "grpc-status")).isEqualTo("3");
      assertThat(p.trailer(1, "grpc-message")).isEqualTo("a%25b%0A%E2%98%BA %F0%9F%98%88");
    }
  }

  @Test
  void otherContentTypesGet415() throws Exception {
    byte[] block =
        RawH2Peer.Hpack.block(
            ":method", "POST", ":scheme", "http", ":authority", "127.0.0.1", ":path", "/" + EchoService.NAME + "/Unary",
            "content-type", "application/grpc+json");
    try (RawH2Peer p = exchange(headers(1, true, block))) {
      assertThat(p.status(1)).isEqualTo("415");
    }
    // (application/json is HTTP/JSON now, served: see HttpJsonTest.)
    byte[] json =
        RawH2Peer.Hpack.block(
            ":method", "POST", ":scheme", "http", ":authority", "127.0.0.1", ":path", "/x", "content-type", "text/plain");
    try (RawH2Peer p = exchange(headers(1, true, json))) {
      assertThat(p.status(1)).isEqualTo("415");
    }
  }

  @Test
  void anUnknownEncodingIsUnimplementedAndSaysWhatIsAccepted() throws Exception {
    try (RawH2Peer p =
        exchange(headers(1, true, request("/" + EchoService.NAME + "/Unary", "grpc-encoding", "br")))) {
      assertThat(p.trailer(1, "grpc-status")).isEqualTo("12");
      assertThat(p.trailer(1, "grpc-accept-encoding")).contains("gzip");
    }
  }

  @Test
  void aCompressedFlagWithoutEncodingIsInternal() throws Exception {
    try (RawH2Peer p =
        exchange(
            headers(1, false, request("/" + EchoService.NAME + "/Unary")),
            data(1, true, message(1, StringValue.of("x").toByteArray())))) {
      assertThat(p.trailer(1, "grpc-status")).isEqualTo("13");
    }
  }

  @Test
  void aMalformedPrefixIsInternal() throws Exception {
    try (RawH2Peer p =
        exchange(headers(1, false, request("/" + EchoService.NAME + "/Unary")), data(1, true, message(7, new byte[0])))) {
      assertThat(p.trailer(1, "grpc-status")).isEqualTo("13");
    }
  }

  @Test
  void aStreamCutInsideAMessageIsInternal() throws Exception {
    byte[] m = unary("hello");
    byte[] cut = java.util.Arrays.copyOf(m, m.length - 2);
    try (RawH2Peer p =
        exchange(headers(1, false, request("/" + EchoService.NAME + "/Unary")), data(1, true, cut))) {
      assertThat(p.trailer(1, "grpc-status")).isEqualTo("13");
    }
  }

  @Test
  void aMalformedTimeoutIsInternalAndAZeroTimeoutIsExceeded() throws Exception {
    try (RawH2Peer p =
        exchange(headers(1, true, request("/" + EchoService.NAME + "/Unary", "grpc-timeout", "soon")))) {
      assertThat(p.trailer(1, "grpc-status")).isEqualTo("13");
    }
    try (RawH2Peer p =
        exchange(headers(1, true, request("/" + EchoService.NAME + "/Unary", "grpc-timeout", "0n")))) {
      assertThat(p.trailer(1, "grpc-status")).isEqualTo("4");
    }
  }

  @Test
  void theLongestGrpcTimeoutIsAccepted() throws Exception {
    // 99,999,999 hours: beyond what CallMetadata carries (about 49 days) and what nanoseconds hold.
    try (RawH2Peer p =
        exchange(
            headers(1, false, request("/" + EchoService.NAME + "/Unary", "grpc-timeout", "99999999H")),
            data(1, true, unary("long")))) {
      assertThat(p.trailer(1, "grpc-status")).isEqualTo("0");
    }
  }

  @Test
  void theServerEnforcesGrpcTimeoutAndCancelsTheHandler() throws Exception {
    // The raw client keeps no deadline of its own: the DEADLINE_EXCEEDED comes from the server.
    try (RawH2Peer p =
        exchange(
            headers(1, false, request("/" + EchoService.NAME + "/Hang", "grpc-timeout", "50m")),
            data(1, true, unary("x")))) {
      assertThat(p.trailer(1, "grpc-status")).isEqualTo("4");
      assertThat(service.hangCancelled.get(20, TimeUnit.SECONDS).description()).isEqualTo("closed");
    }
  }

  @Test
  void aUnaryMethodGivenNoRequestIsInternal() throws Exception {
    try (RawH2Peer p = exchange(headers(1, true, request("/" + EchoService.NAME + "/Unary")))) {
      assertThat(p.trailer(1, "grpc-status")).isEqualTo("13");
    }
  }

  @Test
  void aResponseBeforeTheCallerFinishedEndsWithRstNoError() throws Exception {
    // Unary answers after one message; the caller has not half-closed, so after the trailers the
    // server asks it to stop sending (RST_STREAM NO_ERROR).
    RawH2Peer p = RawH2Peer.handshake(server.port());
    try (p) {
      p.send(concat(headers(1, false, request("/" + EchoService.NAME + "/Unary")), data(1, false, unary("a"))));
      p.await(peer -> peer.resets.containsKey(1), GUARD);
      assertThat(p.trailer(1, "grpc-status")).isEqualTo("0");
      assertThat(p.resets.get(1)).isEqualTo(0L);
    }
  }
}
