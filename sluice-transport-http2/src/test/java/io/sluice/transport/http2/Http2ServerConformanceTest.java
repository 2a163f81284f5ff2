package io.sluice.transport.http2;

import static io.netty.handler.codec.http2.Http2Error.FLOW_CONTROL_ERROR;
import static io.netty.handler.codec.http2.Http2Error.FRAME_SIZE_ERROR;
import static io.netty.handler.codec.http2.Http2Error.PROTOCOL_ERROR;
import static io.netty.handler.codec.http2.Http2Error.REFUSED_STREAM;
import static io.netty.handler.codec.http2.Http2Error.STREAM_CLOSED;
import static io.sluice.transport.http2.RawH2Peer.CONTINUATION;
import static io.sluice.transport.http2.RawH2Peer.DATA;
import static io.sluice.transport.http2.RawH2Peer.FLAG_ACK;
import static io.sluice.transport.http2.RawH2Peer.FLAG_END_HEADERS;
import static io.sluice.transport.http2.RawH2Peer.FLAG_PADDED;
import static io.sluice.transport.http2.RawH2Peer.GOAWAY;
import static io.sluice.transport.http2.RawH2Peer.HEADERS;
import static io.sluice.transport.http2.RawH2Peer.PING;
import static io.sluice.transport.http2.RawH2Peer.PREFACE;
import static io.sluice.transport.http2.RawH2Peer.PRIORITY;
import static io.sluice.transport.http2.RawH2Peer.PUSH_PROMISE;
import static io.sluice.transport.http2.RawH2Peer.RST_STREAM;
import static io.sluice.transport.http2.RawH2Peer.SETTINGS;
import static io.sluice.transport.http2.RawH2Peer.SETTINGS_ENABLE_PUSH;
import static io.sluice.transport.http2.RawH2Peer.SETTINGS_INITIAL_WINDOW_SIZE;
import static io.sluice.transport.http2.RawH2Peer.SETTINGS_MAX_FRAME_SIZE;
import static io.sluice.transport.http2.RawH2Peer.WINDOW_UPDATE;
import static io.sluice.transport.http2.RawH2Peer.concat;
import static io.sluice.transport.http2.RawH2Peer.data;
import static io.sluice.transport.http2.RawH2Peer.frame;
import static io.sluice.transport.http2.RawH2Peer.frameHeader;
import static io.sluice.transport.http2.RawH2Peer.headers;
import static io.sluice.transport.http2.RawH2Peer.ping;
import static io.sluice.transport.http2.RawH2Peer.requestBlock;
import static io.sluice.transport.http2.RawH2Peer.requestStream;
import static io.sluice.transport.http2.RawH2Peer.rsocketData;
import static io.sluice.transport.http2.RawH2Peer.rstStream;
import static io.sluice.transport.http2.RawH2Peer.settings;
import static io.sluice.transport.http2.RawH2Peer.settingsAck;
import static io.sluice.transport.http2.RawH2Peer.streamRequestHeaders;
import static io.sluice.transport.http2.RawH2Peer.windowUpdate;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http2.Http2Error;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.test.FrameBuilder;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.http2.RawH2Peer.Hpack;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What {@link Http2ServerTransport} answers to what it receives, row by row against RFC 9113 (and
 * the stream mapping, docs/http2-stream-mapping.md): each row sends bytes from a raw HTTP/2 client
 * ({@link RawH2Peer}) on a fresh connection and asserts the exact answer the RFC requires: a
 * connection error (GOAWAY with its code, then the close), a stream error (RST_STREAM with its
 * code, the connection still answering PING), a frame that must be ignored (the connection still
 * answers PING, nothing was reset, and a request sent after it is served), or an HTTP status.
 * Most of it is netty's codec; the rows pin it down on the transport as built (netty's builder,
 * our settings and frame listener), including frames the mapping never uses.
 */
class Http2ServerConformanceTest {
  private static final Duration GUARD = Duration.ofSeconds(10);
  private static ServerTransport.Bound server;
  private static int port;

  @BeforeAll
  static void serve() throws Exception {
    server =
        Connections.serve(
                Http2ServerTransport.create("127.0.0.1", 0),
                ConnectionOptions.defaults(),
                (setup, requester) -> new CountingResponder())
            .get(10, TimeUnit.SECONDS);
    port = ((InetSocketAddress) server.address()).getPort();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  /** The answer a row expects. */
  sealed interface Expect {}

  /** A connection error: GOAWAY with {@code error}, then the connection closes. */
  record GoAway(Http2Error error) implements Expect {}

  /** A stream error: RST_STREAM with {@code error} on {@code streamId}; the connection lives on. */
  record Reset(int streamId, Http2Error error) implements Expect {}

  /** Ignored: no GOAWAY or RST_STREAM, PING still answered, and a request after it served. */
  record Ignored() implements Expect {}

  /** An HTTP answer: {@code :status} on {@code streamId}, and the stream ends. */
  record Status(int streamId, String status) implements Expect {}

  /**
   * One row: what RFC 9113 (or the mapping) says, the bytes sent after the handshake (or instead
   * of it: {@code handshake} false means the bytes begin at the connection's first byte).
   */
  record Case(String name, boolean handshake, byte[] bytes, Expect expect) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Case row(String name, byte[] bytes, Expect expect) {
    return new Case(name, true, bytes, expect);
  }

  static GoAway goAway(Http2Error e) {
    return new GoAway(e);
  }

  static Reset reset(int id, Http2Error e) {
    return new Reset(id, e);
  }

  /** A request-stream of the mapping on stream 1 that stays open (the server has more to send). */
  private static final byte[] OPEN_1 = requestStream(1, 1, "forever");

  static Stream<Case> rfc9113() {
    byte[] kib17 = new byte[16385];
    return Stream.of(
        // 3.4: an invalid preface is a connection error of type PROTOCOL_ERROR.
        new Case("3.4 preface: not the client preface", false,
            "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII), goAway(PROTOCOL_ERROR)),
        new Case("3.4 preface: the first frame is not SETTINGS", false, concat(PREFACE, ping(false, 1)),
            goAway(PROTOCOL_ERROR)),
        // 4.1 / 5.5: frames of unknown types are ignored, on a stream or not.
        row("4.1 unknown frame type on stream 0 is ignored", frame(0x20, 0xFF, 0, new byte[8]), new Ignored()),
        row("4.1 unknown frame type on an idle stream is ignored", frame(0x21, 0, 7, new byte[3]), new Ignored()),
        // 4.2: a frame larger than SETTINGS_MAX_FRAME_SIZE: FRAME_SIZE_ERROR (a connection error
        // for frames that change the connection's state, such as HEADERS; allowed for any).
        row("4.2 DATA larger than SETTINGS_MAX_FRAME_SIZE",
            concat(OPEN_1, data(1, false, kib17)), goAway(FRAME_SIZE_ERROR)),
        row("4.2 HEADERS larger than SETTINGS_MAX_FRAME_SIZE",
            concat(frameHeader(16385, HEADERS, FLAG_END_HEADERS, 1), kib17), goAway(FRAME_SIZE_ERROR)),
        // 5.1: frames in the wrong stream state.
        row("5.1 DATA on an idle stream", data(3, false, new byte[4]), goAway(PROTOCOL_ERROR)),
        row("5.1 RST_STREAM on an idle stream", rstStream(3, Http2Error.CANCEL), goAway(PROTOCOL_ERROR)),
        row("5.1 DATA on a half-closed (remote) stream",
            concat(streamRequestHeaders(1),
                rsocketData(1, true, FrameBuilder.requestStream(1, 1).data("forever").toBytes()),
                data(1, false, new byte[4])),
            reset(1, STREAM_CLOSED)),
        // 5.1.1: client streams are odd, and a new stream id is above every id used before.
        row("5.1.1 HEADERS on an even stream id", streamRequestHeaders(2), goAway(PROTOCOL_ERROR)),
        // 5.1.2: a stream beyond SETTINGS_MAX_CONCURRENT_STREAMS: PROTOCOL_ERROR or REFUSED_STREAM.
        row("5.1.2 one stream more than SETTINGS_MAX_CONCURRENT_STREAMS",
            RawH2Peer.repeat(Http2ServerTransport.DEFAULT_MAX_CONCURRENT_STREAMS + 1,
                i -> streamRequestHeaders(2 * i + 1)),
            reset(2 * Http2ServerTransport.DEFAULT_MAX_CONCURRENT_STREAMS + 1, REFUSED_STREAM)),
        // 5.3.1 (kept by RFC 9113 for PRIORITY): a stream cannot depend on itself.
        row("5.3.1 PRIORITY: a stream depending on itself", RawH2Peer.priority(3, 3, 16), reset(3, PROTOCOL_ERROR)),
        // 6.1 DATA.
        row("6.1 DATA on stream 0", data(0, false, new byte[4]), goAway(PROTOCOL_ERROR)),
        row("6.1 DATA with padding longer than its payload",
            concat(OPEN_1, frame(DATA, FLAG_PADDED, 1, new byte[] {10, 0, 0})), goAway(PROTOCOL_ERROR)),
        // 6.2 HEADERS / 8.1: a second HEADERS without END_STREAM is malformed.
        row("8.1 a second HEADERS block that is not trailers",
            concat(OPEN_1, streamRequestHeaders(1)), reset(1, PROTOCOL_ERROR)),
        // 6.3 PRIORITY: parsed and ignored; stream 0 and a wrong length are errors.
        row("6.3 PRIORITY on an idle stream is ignored", RawH2Peer.priority(9, 0, 16), new Ignored()),
        row("6.3 PRIORITY on an open stream is ignored", concat(OPEN_1, RawH2Peer.priority(1, 0, 200)),
            new Ignored()),
        row("6.3 PRIORITY on stream 0", frame(PRIORITY, 0, 0, new byte[5]), goAway(PROTOCOL_ERROR)),
        row("6.3 PRIORITY of 4 bytes", frame(PRIORITY, 0, 3, new byte[4]), reset(3, FRAME_SIZE_ERROR)),
        // 6.4 RST_STREAM.
        row("6.4 RST_STREAM on stream 0", rstStream(0, Http2Error.CANCEL), goAway(PROTOCOL_ERROR)),
        row("6.4 RST_STREAM of 3 bytes", concat(OPEN_1, frame(RST_STREAM, 0, 1, new byte[3])),
            goAway(FRAME_SIZE_ERROR)),
        // 6.5 SETTINGS.
        row("6.5 SETTINGS on a stream", frame(SETTINGS, 0, 1, new byte[0]), goAway(PROTOCOL_ERROR)),
        row("6.5 SETTINGS of 5 bytes", frame(SETTINGS, 0, 0, new byte[5]), goAway(FRAME_SIZE_ERROR)),
        row("6.5 SETTINGS ACK with a payload", frame(SETTINGS, FLAG_ACK, 0, new byte[6]), goAway(FRAME_SIZE_ERROR)),
        row("6.5.2 unknown SETTINGS identifier is ignored", settings(0x99, 7), new Ignored()),
        row("6.5.2 SETTINGS_ENABLE_PUSH 2", settings(SETTINGS_ENABLE_PUSH, 2), goAway(PROTOCOL_ERROR)),
        row("6.5.2 SETTINGS_INITIAL_WINDOW_SIZE 2^31", settings(SETTINGS_INITIAL_WINDOW_SIZE, 1 << 31),
            goAway(FLOW_CONTROL_ERROR)),
        row("6.5.2 SETTINGS_MAX_FRAME_SIZE 16383", settings(SETTINGS_MAX_FRAME_SIZE, 16383), goAway(PROTOCOL_ERROR)),
        row("6.5.2 SETTINGS_MAX_FRAME_SIZE 2^24", settings(SETTINGS_MAX_FRAME_SIZE, 1 << 24), goAway(PROTOCOL_ERROR)),
        // 6.6 PUSH_PROMISE: a client cannot push.
        row("6.6 / 8.4 PUSH_PROMISE from a client",
            concat(OPEN_1, frame(PUSH_PROMISE, FLAG_END_HEADERS, 1,
                concat(new byte[] {0, 0, 0, 2}, requestBlock("/rsocket/stream")))),
            goAway(PROTOCOL_ERROR)),
        // 6.7 PING.
        row("6.7 PING on a stream", frame(PING, 0, 1, new byte[8]), goAway(PROTOCOL_ERROR)),
        row("6.7 PING of 7 bytes", frame(PING, 0, 0, new byte[7]), goAway(FRAME_SIZE_ERROR)),
        // 6.8 GOAWAY.
        row("6.8 GOAWAY on a stream", frame(GOAWAY, 0, 1, new byte[8]), goAway(PROTOCOL_ERROR)),
        // 6.9 WINDOW_UPDATE.
        row("6.9 WINDOW_UPDATE of 0 on the connection", windowUpdate(0, 0), goAway(PROTOCOL_ERROR)),
        row("6.9 WINDOW_UPDATE of 0 on a stream", concat(OPEN_1, windowUpdate(1, 0)), reset(1, PROTOCOL_ERROR)),
        row("6.9 WINDOW_UPDATE of 3 bytes", frame(WINDOW_UPDATE, 0, 0, new byte[3]), goAway(FRAME_SIZE_ERROR)),
        row("6.9.1 WINDOW_UPDATE overflowing the connection window", windowUpdate(0, Integer.MAX_VALUE),
            goAway(FLOW_CONTROL_ERROR)),
        row("6.9.1 WINDOW_UPDATE overflowing a stream window", concat(OPEN_1, windowUpdate(1, Integer.MAX_VALUE)),
            reset(1, FLOW_CONTROL_ERROR)),
        // 6.10 CONTINUATION.
        row("6.10 CONTINUATION without HEADERS", frame(CONTINUATION, FLAG_END_HEADERS, 1, new byte[0]),
            goAway(PROTOCOL_ERROR)),
        row("6.10 another frame inside a header block",
            concat(frame(HEADERS, 0, 1, requestBlock("/rsocket/stream")), ping(false, 3)),
            goAway(PROTOCOL_ERROR)),
        // 8.1.1 / 8.2 / 8.3: malformed requests are stream errors of type PROTOCOL_ERROR.
        row("8.2 an uppercase field name",
            headers(1, false, Hpack.block(":method", "POST", ":scheme", "http", ":path", "/rsocket/stream",
                "Content-Type", RawH2Peer.CONTENT_TYPE)),
            reset(1, PROTOCOL_ERROR)),
        row("8.2.2 a connection-specific field",
            headers(1, false, Hpack.block(":method", "POST", ":scheme", "http", ":path", "/rsocket/stream",
                "content-type", RawH2Peer.CONTENT_TYPE, "connection", "keep-alive")),
            reset(1, PROTOCOL_ERROR)),
        row("8.2.2 TE other than trailers",
            headers(1, false, Hpack.block(":method", "POST", ":scheme", "http", ":path", "/rsocket/stream",
                "content-type", RawH2Peer.CONTENT_TYPE, "te", "gzip")),
            reset(1, PROTOCOL_ERROR)),
        row("8.3 a pseudo-header after a regular field",
            headers(1, false, Hpack.block(":method", "POST", "content-type", RawH2Peer.CONTENT_TYPE,
                ":scheme", "http", ":path", "/rsocket/stream")),
            reset(1, PROTOCOL_ERROR)),
        row("8.3.1 a request with an empty :path",
            headers(1, false, Hpack.block(":method", "POST", ":scheme", "http", ":path", "",
                "content-type", RawH2Peer.CONTENT_TYPE)),
            reset(1, PROTOCOL_ERROR)),
        row("8.1 trailers with a pseudo-header",
            concat(OPEN_1, headers(1, true, Hpack.block(":path", "/x"))), reset(1, PROTOCOL_ERROR)),
        row("8.1.1 content-length disagreeing with the DATA",
            concat(headers(1, false, Hpack.block(":method", "POST", ":scheme", "http", ":path", "/rsocket/stream",
                    "content-type", RawH2Peer.CONTENT_TYPE, "content-length", "1")),
                rsocketData(1, true, FrameBuilder.requestStream(1, 1).data("x").toBytes())),
            reset(1, PROTOCOL_ERROR)));
  }

  static Stream<Case> mapping() {
    return Stream.of(
        row("mapping: another content-type is 415",
            headers(1, false, requestBlock("POST", "/rsocket/stream", "application/json")), new Status(1, "415")),
        row("mapping: a method other than POST is 405",
            headers(1, true, requestBlock("GET", "/rsocket/stream", RawH2Peer.CONTENT_TYPE)), new Status(1, "405")),
        row("mapping: an unknown /rsocket/ path is 404",
            headers(1, false, requestBlock("/rsocket/x")), new Status(1, "404")),
        row("mapping: a header block over SETTINGS_MAX_HEADER_LIST_SIZE is 431 (RFC 9113 10.5.1)",
            headers(1, true, Hpack.block(":method", "POST", ":scheme", "http", ":path", "/rsocket/stream",
                "content-type", RawH2Peer.CONTENT_TYPE, "x-big", "x".repeat(8500))),
            new Status(1, "431")),
        row("mapping: a first frame that is not a request",
            concat(streamRequestHeaders(1), rsocketData(1, false, FrameBuilder.payload(1, true, false).data("x").toBytes())),
            reset(1, PROTOCOL_ERROR)),
        row("mapping: a request of another interaction than the path's",
            concat(streamRequestHeaders(1), rsocketData(1, false, FrameBuilder.requestResponse(1).data("x").toBytes())),
            reset(1, PROTOCOL_ERROR)),
        row("mapping: END_STREAM before the request frame",
            headers(1, true, requestBlock("/rsocket/stream")), reset(1, PROTOCOL_ERROR)));
  }

  /** 5.1.1: a new stream's id must be above every id the client used; netty answers otherwise. */
  static Stream<Case> lowerStreamId() {
    return Stream.of(
        row("5.1.1 a stream id lower than one already opened",
            concat(requestStream(5, 1, "forever"), streamRequestHeaders(3)), goAway(PROTOCOL_ERROR)));
  }

  /** 8.3.1: a request without :method, :scheme or :path is malformed. */
  static Stream<Case> missingPseudoHeaders() {
    return Stream.of(
        row("8.3.1 a request without :scheme",
            headers(1, false, Hpack.block(":method", "POST", ":path", "/rsocket/stream",
                "content-type", RawH2Peer.CONTENT_TYPE)),
            reset(1, PROTOCOL_ERROR)),
        row("8.3.1 a request without :path",
            headers(1, false, Hpack.block(":method", "POST", ":scheme", "http",
                "content-type", RawH2Peer.CONTENT_TYPE)),
            reset(1, PROTOCOL_ERROR)),
        row("8.3.1 a request without :method",
            headers(1, false, Hpack.block(":scheme", "http", ":path", "/rsocket/stream",
                "content-type", RawH2Peer.CONTENT_TYPE)),
            reset(1, PROTOCOL_ERROR)));
  }

  /**
   * 5.1.2 / 5.4.2 / 5.1 (closed): a client may send frames before it has the server's SETTINGS
   * (3.4), so beyond the stream cap; the server refuses such a stream and must then ignore the
   * frames the client sent on it before it saw the refusal.
   */
  static Stream<Case> refusedStreamData() {
    int max = Http2ServerTransport.DEFAULT_MAX_CONCURRENT_STREAMS;
    return Stream.of(
        row("5.1.2 + 5.4.2 DATA right behind a refused HEADERS is ignored",
            RawH2Peer.repeat(max + 1, i -> requestStream(2 * i + 1, 1, "forever")),
            reset(2 * max + 1, REFUSED_STREAM)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusedStreamData")
  void dataBehindARefusedStreamIsIgnored(Case c) throws Exception {
    check(c);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("lowerStreamId")
  void streamIdGoingBackwards(Case c) throws Exception {
    check(c);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("missingPseudoHeaders")
  void malformedRequestsWithoutPseudoHeaders(Case c) throws Exception {
    check(c);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource({"rfc9113", "mapping"})
  void serverAnswersAsRequired(Case c) throws Exception {
    check(c);
  }

  static void check(Case c) throws Exception {
    try (RawH2Peer p = c.handshake() ? RawH2Peer.handshake(port) : RawH2Peer.connect(port, 0)) {
      p.send(c.bytes());
      if (c.expect() instanceof GoAway g) {
        RawH2Peer.GoAway got = p.awaitGoAway(GUARD);
        assertThat(got).as("GOAWAY (resets: %s)", p.resets).isNotNull();
        assertThat(RawH2Peer.name(got.errorCode())).as("GOAWAY code of %s", got).isEqualTo(g.error().name());
        assertThat(p.awaitClosed(GUARD)).as("closed after the GOAWAY").isTrue();
      } else if (c.expect() instanceof Reset r) {
        p.await(x -> x.resets.containsKey(r.streamId()) || x.goAway != null, GUARD);
        assertThat(p.goAway).as("no connection error").isNull();
        assertThat(p.resets).as("RST_STREAM on stream %d", r.streamId()).containsKey(r.streamId());
        assertThat(RawH2Peer.name(p.resets.get(r.streamId()))).isEqualTo(r.error().name());
        assertThat(p.pingFence(42)).as("the connection still answers PING").isTrue();
      } else if (c.expect() instanceof Status s) {
        p.await(x -> x.headers.containsKey(s.streamId()) || x.goAway != null, GUARD);
        assertThat(p.goAway).as("no connection error").isNull();
        assertThat(p.status(s.streamId())).as(":status of stream %d", s.streamId()).isEqualTo(s.status());
        assertThat(p.pingFence(42)).as("the connection still answers PING").isTrue();
      } else {
        assertThat(p.pingFence(42)).as("the connection still answers PING").isTrue();
        assertThat(p.goAway).as("no GOAWAY").isNull();
        assertThat(p.resets).as("no RST_STREAM").isEmpty();
        assertServed(p, 101);
      }
    }
  }

  /** A request-stream on {@code streamId} gets 200, its 2 items and {@code rsocket-status: 0}. */
  private static void assertServed(RawH2Peer p, int streamId) throws IOException {
    p.send(requestStream(streamId, 10, "count:2"));
    p.await(x -> x.headers.getOrDefault(streamId, java.util.List.of()).size() >= 2 || x.goAway != null, GUARD);
    assertThat(p.status(streamId)).isEqualTo("200");
    assertThat(p.trailer(streamId, "rsocket-status")).isEqualTo("0");
    // Two PAYLOADs of 7 bytes' data each, u24-prefixed: 3 + 6 + 7 bytes each.
    assertThat(p.dataBytes.get(streamId)).isEqualTo(2L * (3 + 6 + 7));
  }

  @Test
  void settingsAreAcknowledged() throws Exception {
    try (RawH2Peer p = RawH2Peer.handshake(port)) {
      p.send(settings(0x99, 7, SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20));
      assertThat(p.awaitFrame(f -> f.type() == SETTINGS && (f.flags() & FLAG_ACK) != 0, GUARD)).isNotNull();
    }
  }

  /**
   * 6.5.3: the ACK of the client's SETTINGS is the server's answer to them. The mapping's server
   * sends SETTINGS of its own when the preface arrives (windows as large as the engine's frames):
   * they go before that ACK, so that a client waiting for its ACK (h2spec) does not meet them later.
   */
  @Test
  void theServersOwnSettingsGoBeforeTheAckOfTheClients() throws Exception {
    try (RawH2Peer p = RawH2Peer.open(port)) {
      p.send(settingsAck()); // of the server's first SETTINGS, whatever it holds
      assertThat(p.pingFence(9)).isTrue();
      int ack = -1;
      for (int i = 0; i < p.frames.size() && ack < 0; i++) {
        RawH2Peer.Frame f = p.frames.get(i);
        if (f.type() == SETTINGS && (f.flags() & FLAG_ACK) != 0) {
          ack = i;
        }
      }
      assertThat(ack).as("the ACK of the client's SETTINGS").isNotNegative();
      assertThat(p.frames.subList(ack, p.frames.size()))
          .as("SETTINGS from the server after its ACK of the client's")
          .noneMatch(f -> f.type() == SETTINGS && (f.flags() & FLAG_ACK) == 0);
    }
  }

  /**
   * The same request header block, sent again and again (as h2load or curl send theirs, literals
   * never indexed) with a {@code content-length}, is served every time: the server answers a block
   * it has seen before from memory, and netty's decoder writes {@code content-length} back into
   * what it is handed, which must therefore be headers of its own.
   */
  @Test
  void theSameRequestBlockWithAContentLengthIsServedEveryTime() throws Exception {
    try (RawH2Peer p = RawH2Peer.handshake(port)) {
      byte[] body = FrameBuilder.lengthPrefixed(FrameBuilder.requestStream(1, 10).data("count:2").toBytes());
      byte[] block =
          Hpack.block(
              ":method", "POST", ":scheme", "http", ":authority", "127.0.0.1", ":path", "/rsocket/stream",
              "content-type", RawH2Peer.CONTENT_TYPE, "content-length", Integer.toString(body.length));
      for (int i = 0; i < 6; i++) {
        int id = 2 * i + 1;
        p.send(concat(headers(id, false, block), data(id, true, body)));
        p.await(x -> x.trailer(id, "rsocket-status") != null || x.goAway != null, GUARD);
        assertThat(p.goAway).as("GOAWAY after request %d", i + 1).isNull();
        assertThat(p.status(id)).as("status of request %d", i + 1).isEqualTo("200");
        assertThat(p.trailer(id, "rsocket-status")).isEqualTo("0");
      }
    }
  }

  @Test
  void aValidRequestIsServed() throws Exception {
    try (RawH2Peer p = RawH2Peer.handshake(port)) {
      assertServed(p, 1);
    }
  }

  @Test
  void pingIsAnsweredWithItsData() throws Exception {
    try (RawH2Peer p = RawH2Peer.handshake(port)) {
      p.send(ping(false, 0x0102030405060708L));
      RawH2Peer.Frame ack = p.awaitFrame(f -> f.type() == PING, GUARD);
      assertThat(ack).isNotNull();
      assertThat(ack.flags() & FLAG_ACK).isEqualTo(FLAG_ACK);
      assertThat(ByteBuffer.wrap(ack.payload()).getLong()).isEqualTo(0x0102030405060708L);
    }
  }

  /** Request-stream: {@code count:K} gets K items of {@code payload} then completes; else endless. */
  static final class CountingResponder implements Responder {
    @Override
    public StreamListener requestResponse(Message request, StreamHandle response) {
      String d = request.dataUtf8();
      request.release();
      response.nextAndComplete(Message.utf8(response.alloc(), "echo:" + d));
      return new Quiet();
    }

    @Override
    public StreamListener requestStream(Message request, StreamHandle stream) {
      String d = request.dataUtf8();
      request.release();
      long total = d.startsWith("count:") ? Long.parseLong(d.substring(6)) : Long.MAX_VALUE;
      return new Quiet() {
        long sent;

        @Override
        public void onRequest(long n) {
          for (long i = 0; i < n && sent < total; i++) {
            sent++;
            ByteBuf b = stream.alloc().buffer(7).writeBytes("payload".getBytes(StandardCharsets.US_ASCII));
            if (sent == total) {
              stream.nextAndComplete(Message.of(b));
            } else {
              stream.next(Message.of(b));
            }
          }
        }
      };
    }
  }

  /** Ignores every signal (and releases what it is given). */
  static class Quiet implements StreamListener {
    @Override
    public void onNext(Message message) {
      message.release();
    }

    @Override
    public void onComplete() {}

    @Override
    public void onError(Throwable cause) {}
  }
}
