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

  /**
   * Sends {@code frames} on a new connection and reads until stream 1 ends (END_STREAM on its
   * HEADERS or on its DATA: a plain HTTP answer such as a 415 ends with its body) or is reset; a
   * stream that does neither within the hang guard fails the test.
   */
  private RawH2Peer exchange(byte[]... frames) throws Exception {
    RawH2Peer p = RawH2Peer.handshake(server.port());
    p.send(concat(frames));
    boolean ended = p.await(peer -> peer.resets.containsKey(1) || ended(peer), GUARD);
    if (!ended) {
      p.close();
    }
    assertThat(ended).as("stream 1 ended or was reset within %s", GUARD).isTrue();
    return p;
  }

  /** True once a frame of stream 1 carried END_STREAM (HEADERS or DATA). */
  private static boolean ended(RawH2Peer p) {
    for (RawH2Peer.Frame f : p.frames) {
      if (f.streamId() == 1
          && (f.type() == RawH2Peer.HEADERS || f.type() == RawH2Peer.DATA)
          && (f.flags() & RawH2Peer.FLAG_END_STREAM) != 0) {
        return true;
      }
    }
    return false;
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
  void aUnaryCallAnsweredAfterItsMessageWaitsForTheCallersEndStreamWithoutAReset() throws Exception {
    // grpc-java sometimes sends a unary call's END_STREAM in an empty DATA frame of its own, after
    // the message. The server has all it needs once the message is in: it answers, and must not
    // reset the stream (the late END_STREAM would then meet a closed stream and draw a reset back,
    // which netty's limit on resets sent counts against the connection).
    RawH2Peer p = RawH2Peer.handshake(server.port());
    try (p) {
      p.send(concat(headers(1, false, request("/" + EchoService.NAME + "/Unary")), data(1, false, unary("a"))));
      p.await(GrpcWireFormatTest::endedWithHeaders, GUARD);
      assertThat(p.trailer(1, "grpc-status")).isEqualTo("0");
      p.send(concat(data(1, true, new byte[0]), RawH2Peer.ping(false, 7)));
      p.await(peer -> peer.lastPingAck == 7, GUARD);
      assertThat(p.resets).as("RST_STREAMs from the server").isEmpty();
    }
  }

  @Test
  void manyUnaryCallsWhoseEndStreamComesLateKeepTheirConnection() throws Exception {
    // 300 such calls on one connection: each used to cost two resets sent (NO_ERROR after the
    // trailers, STREAM_CLOSED for the late END_STREAM), and netty's limit of 200 resets sent per
    // 30 s then closed the connection with ENHANCE_YOUR_CALM (found by ./sluice bench --compare-grpc).
    RawH2Peer p = RawH2Peer.handshake(server.port());
    try (p) {
      int id = 1;
      for (int batch = 0; batch < 3; batch++) {
        int first = id;
        byte[][] calls = new byte[200][];
        for (int i = 0; i < 100; i++, id += 2) {
          calls[2 * i] = headers(id, false, request("/" + EchoService.NAME + "/Unary"));
          calls[2 * i + 1] = data(id, false, unary("m"));
        }
        p.send(concat(calls));
        int last = id - 2;
        p.await(peer -> peer.trailer(last, "grpc-status") != null || peer.goAway != null, GUARD);
        byte[][] ends = new byte[101][];
        for (int i = 0, s = first; i < 100; i++, s += 2) {
          ends[i] = data(s, true, new byte[0]);
        }
        long fence = batch;
        ends[100] = RawH2Peer.ping(false, fence);
        p.send(concat(ends));
        p.await(peer -> peer.lastPingAck == fence || peer.goAway != null, GUARD);
      }
      assertThat(p.goAway).as("the server's GOAWAY").isNull();
      assertThat(p.resets).as("RST_STREAMs from the server").isEmpty();
      assertThat(p.trailer(id - 2, "grpc-status")).isEqualTo("0");
    }
  }

  @Test
  void aCallEndedBeforeItsRequestArrivedDropsTheRestOfItAndStopsACallerThatGoesOn() throws Exception {
    // The message is refused by its prefix (over the 16 MiB limit) before its body: the caller may
    // still be sending it. What it sends is dropped until its END_STREAM, without a reset (a reset
    // would make the DATA already on its way meet a closed stream); a caller that goes on past a
    // stream window after the trailers is asked to stop (RST_STREAM NO_ERROR, RFC 9113 8.1).
    byte[] oversize = ByteBuffer.allocate(5 + 16).put((byte) 0).putInt(32 << 20).put(new byte[16]).array();
    RawH2Peer p = RawH2Peer.handshake(server.port());
    try (p) {
      p.send(concat(headers(1, false, request("/" + EchoService.NAME + "/Bytes")), data(1, false, oversize)));
      p.await(peer -> peer.trailer(1, "grpc-status") != null || peer.goAway != null, GUARD);
      assertThat(p.trailer(1, "grpc-status")).isEqualTo("8");
      p.send(concat(data(1, false, new byte[1000]), data(1, true, new byte[0])));
      assertThat(p.pingFence(1)).isTrue();
      assertThat(p.resets).as("RST_STREAMs from the server").isEmpty();

      p.send(concat(headers(3, false, request("/" + EchoService.NAME + "/Bytes")), data(3, false, oversize)));
      p.await(peer -> peer.trailer(3, "grpc-status") != null || peer.goAway != null, GUARD);
      byte[] chunk = new byte[16_000];
      for (int i = 0; i < 70 && !p.resets.containsKey(3); i++) { // 1.12 MB: past the 1 MiB window
        p.send(data(3, false, chunk));
        p.readAvailable();
      }
      p.await(peer -> peer.resets.containsKey(3) || peer.goAway != null, GUARD);
      assertThat(p.resets.get(3)).as("RST_STREAM on the stream whose caller went on").isEqualTo(0L);
      assertThat(p.goAway).isNull();
    }
  }
}
