package io.sluice.transport.grpc;

import static io.sluice.transport.http2.RawH2Peer.concat;
import static io.sluice.transport.http2.RawH2Peer.data;
import static io.sluice.transport.http2.RawH2Peer.headers;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.StringValue;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.transport.http2.RawH2Peer;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A unary call's OK answer (headers, message, trailers), which the server writes in one go past
 * netty's connection encoder when it can: on the wire it must be what the encoder would have
 * written (within the peer's flow-control windows and frame size, with the HPACK size update it
 * is owed), fall back to the encoder when they do not allow it, and hold only what may be held.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WholeAnswerTest {
  private static final Duration GUARD = Duration.ofSeconds(20);
  private static final String HELD = "test.Held";
  private GrpcServer.Running server;
  /** Serves {@link #held()}, with a bound of 5 early resets. */
  private GrpcServer.Running heldServer;

  @BeforeAll
  void start() {
    server = GrpcServer.create("127.0.0.1", 0).withServices(new EchoService().registry()).start();
    heldServer =
        GrpcServer.create("127.0.0.1", 0)
            .withServices(held())
            .withMaxEarlyResets(5, Duration.ofSeconds(10))
            .start();
  }

  @AfterAll
  void stop() throws Exception {
    for (GrpcServer.Running s : List.of(server, heldServer)) {
      s.close();
      s.onClose().get();
    }
  }

  /**
   * {@code AnswerThenWait} (unary) answers its request and ends only when cancelled; {@code
   * EarlyAnswer} (client streaming) answers its first message and ends when the caller ends;
   * {@code AnswerThenFail} answers and ends INVALID_ARGUMENT; {@code AnswerWithTrailers} answers
   * and ends OK with a trailer; {@code Answer} answers and ends OK.
   */
  private static ServiceRegistry held() {
    ServiceDefinition def =
        ServiceDefinition.builder(HELD)
            .add(heldMethod("AnswerThenWait", MethodKind.UNARY), WholeAnswerTest::answerThenWait)
            .add(heldMethod("EarlyAnswer", MethodKind.CLIENT_STREAMING), WholeAnswerTest::earlyAnswer)
            .add(heldMethod("AnswerThenFail", MethodKind.UNARY), WholeAnswerTest::answerThenFail)
            .add(heldMethod("AnswerWithTrailers", MethodKind.UNARY), WholeAnswerTest::answerWithTrailers)
            .add(heldMethod("Answer", MethodKind.UNARY), WholeAnswerTest::answer)
            .build();
    return ServiceRegistry.builder().add(def).build();
  }

  private static MethodDescriptor<StringValue, StringValue> heldMethod(String name, MethodKind kind) {
    return MethodDescriptor.<StringValue, StringValue>builder()
        .service(HELD)
        .method(name)
        .kind(kind)
        .requestParser(StringValue.parser())
        .responseParser(StringValue.parser())
        .build();
  }

  private static ServerCall.Listener<StringValue> answerThenWait(ServerCall<StringValue, StringValue> call) {
    call.request(1);
    return new EchoService.Adapter<>() {
      @Override
      public void onMessage(StringValue message) {
        call.sendMessage(message);
      }
    };
  }

  private static ServerCall.Listener<StringValue> answerThenFail(ServerCall<StringValue, StringValue> call) {
    call.request(1);
    return new EchoService.Adapter<>() {
      @Override
      public void onMessage(StringValue message) {
        call.sendMessage(message);
        call.close(io.sluice.rpc.Status.of(io.sluice.rpc.Status.Code.INVALID_ARGUMENT, "after the answer"));
      }
    };
  }

  private static ServerCall.Listener<StringValue> answer(ServerCall<StringValue, StringValue> call) {
    call.request(1);
    return new EchoService.Adapter<>() {
      @Override
      public void onMessage(StringValue message) {
        call.sendMessage(message);
        call.close(io.sluice.rpc.Status.OK);
      }
    };
  }

  private static ServerCall.Listener<StringValue> answerWithTrailers(ServerCall<StringValue, StringValue> call) {
    call.request(1);
    return new EchoService.Adapter<>() {
      @Override
      public void onMessage(StringValue message) {
        call.sendMessage(message);
        call.close(io.sluice.rpc.Status.OK, io.sluice.rpc.Headers.of("x-trailer", "t"));
      }
    };
  }

  private static ServerCall.Listener<StringValue> earlyAnswer(ServerCall<StringValue, StringValue> call) {
    call.request(Long.MAX_VALUE);
    return new EchoService.Adapter<>() {
      boolean answered;

      @Override
      public void onMessage(StringValue message) {
        if (!answered) {
          answered = true;
          call.sendMessage(message);
        }
      }

      @Override
      public void onHalfClose() {
        call.close(io.sluice.rpc.Status.OK);
      }
    };
  }

  private static byte[] heldRequest(String method) {
    return RawH2Peer.Hpack.block(
        ":method", "POST", ":scheme", "http", ":authority", "127.0.0.1", ":path", "/" + HELD + "/" + method,
        "content-type", "application/grpc", "te", "trailers");
  }

  private static byte[] request() {
    return RawH2Peer.Hpack.block(
        ":method", "POST", ":scheme", "http", ":authority", "127.0.0.1", ":path", "/" + EchoService.NAME + "/Unary",
        "content-type", "application/grpc", "te", "trailers");
  }

  /** A unary request (or its echoed answer): the 5-byte prefix and a StringValue of {@code value}. */
  private static byte[] unary(String value) {
    byte[] body = StringValue.of(value).toByteArray();
    return ByteBuffer.allocate(5 + body.length).put((byte) 0).putInt(body.length).put(body).array();
  }

  /** A unary call on {@code streamId}, its message in DATA frames of at most 16 KiB (the default frame size). */
  private static byte[] call(int streamId, String value) {
    byte[] m = unary(value);
    List<byte[]> frames = new ArrayList<>();
    frames.add(headers(streamId, false, request()));
    for (int at = 0; at == 0 || at < m.length; at += 16_384) {
      int end = Math.min(m.length, at + 16_384);
      frames.add(data(streamId, end == m.length, Arrays.copyOfRange(m, at, end)));
    }
    return concat(frames.toArray(new byte[0][]));
  }

  private static boolean ended(RawH2Peer p, int streamId) {
    for (RawH2Peer.Frame f : p.frames) {
      if (f.streamId() == streamId && f.type() == RawH2Peer.HEADERS && (f.flags() & RawH2Peer.FLAG_END_STREAM) != 0) {
        return true;
      }
    }
    return false;
  }

  private static int endedCount(RawH2Peer p) {
    int n = 0;
    for (RawH2Peer.Frame f : p.frames) {
      if (f.type() == RawH2Peer.HEADERS && (f.flags() & RawH2Peer.FLAG_END_STREAM) != 0) {
        n++;
      }
    }
    return n;
  }

  private static long dataBytes(RawH2Peer p) {
    return p.dataBytes.values().stream().mapToLong(Long::longValue).sum();
  }

  private static List<RawH2Peer.Frame> framesOf(RawH2Peer p, int streamId) {
    List<RawH2Peer.Frame> out = new ArrayList<>();
    for (RawH2Peer.Frame f : p.frames) {
      if (f.streamId() == streamId) {
        out.add(f);
      }
    }
    return out;
  }

  /** Stream {@code id}'s answer is an OK answer echoing {@code value}: headers, DATA, trailers. */
  private static void assertOkAnswer(RawH2Peer p, int id, String value) {
    List<Http2Headers> blocks = p.headers.get(id);
    assertThat(blocks).as("header blocks of stream %d", id).hasSize(2);
    assertThat(blocks.get(0).status().toString()).isEqualTo("200");
    assertThat(blocks.get(0).get("content-type").toString()).isEqualTo("application/grpc");
    assertThat(blocks.get(0).get("grpc-status")).isNull();
    assertThat(blocks.get(1).get("grpc-status").toString()).isEqualTo("0");
    assertThat(blocks.get(1).status()).isNull();
    assertThat(p.dataBytes.get(id)).isEqualTo((long) unary(value).length);
    List<RawH2Peer.Frame> frames = framesOf(p, id);
    RawH2Peer.Frame first = frames.get(0);
    RawH2Peer.Frame last = frames.get(frames.size() - 1);
    assertThat(first.type()).isEqualTo(RawH2Peer.HEADERS);
    assertThat(first.flags() & RawH2Peer.FLAG_END_STREAM).as("END_STREAM on the response headers").isZero();
    assertThat(last.type()).isEqualTo(RawH2Peer.HEADERS);
    assertThat(last.flags() & RawH2Peer.FLAG_END_STREAM).as("END_STREAM on the trailers").isNotZero();
    for (RawH2Peer.Frame f : frames.subList(1, frames.size() - 1)) {
      assertThat(f.type()).isEqualTo(RawH2Peer.DATA);
      assertThat(f.flags() & RawH2Peer.FLAG_END_STREAM).isZero();
    }
    byte[] start = frames.get(1).payload(); // the peer keeps the first 256 bytes of a DATA frame
    assertThat(start).isEqualTo(Arrays.copyOf(unary(value), start.length));
  }

  @Test
  void aSmallAnswerIsHeadersDataTrailers() throws Exception {
    try (RawH2Peer p = RawH2Peer.handshake(server.port())) {
      p.send(concat(call(1, "hi"), call(3, "")));
      assertThat(p.await(peer -> ended(peer, 1) && ended(peer, 3), GUARD)).isTrue();
      assertOkAnswer(p, 1, "hi");
      assertOkAnswer(p, 3, "");
      assertThat(p.resets).isEmpty();
    }
  }

  @Test
  void aLargerAnswerIsWholeAndOneAboveTheFrameSizeGoesThroughTheEncoder() throws Exception {
    String large = "x".repeat(3000); // written as it is, not copied
    String huge = "y".repeat(20_000); // above the peer's 16 KiB frame size: netty splits it
    try (RawH2Peer p = RawH2Peer.handshake(server.port())) {
      p.send(concat(call(1, large), call(3, huge)));
      assertThat(p.await(peer -> ended(peer, 1) && ended(peer, 3), GUARD)).isTrue();
      assertOkAnswer(p, 1, large);
      assertOkAnswer(p, 3, huge);
      assertThat(framesOf(p, 3)).as("headers, two DATA frames, trailers").hasSize(4);
    }
  }

  @Test
  void aStreamWindowSmallerThanTheAnswerHoldsTheRestAndTheTrailers() throws Exception {
    String value = "z".repeat(100);
    try (RawH2Peer p = RawH2Peer.handshake(server.port(), RawH2Peer.SETTINGS_INITIAL_WINDOW_SIZE, 10)) {
      p.send(call(1, value));
      assertThat(p.await(peer -> peer.dataBytes.getOrDefault(1, 0L) >= 10, GUARD)).isTrue();
      assertThat(p.pingFence(1)).isTrue();
      assertThat(p.dataBytes.get(1)).as("DATA within the stream window").isEqualTo(10L);
      assertThat(ended(p, 1)).as("trailers before the rest of the message").isFalse();
      p.send(RawH2Peer.windowUpdate(1, 1 << 20));
      assertThat(p.await(peer -> ended(peer, 1), GUARD)).isTrue();
      assertOkAnswer(p, 1, value);
    }
  }

  @Test
  void answersPastTheConnectionWindowWaitForItsUpdate() throws Exception {
    String value = "w".repeat(1000); // 1,008 bytes framed: 65 answers fit the 65,535-byte window
    int calls = 80;
    int framed = unary(value).length;
    try (RawH2Peer p = RawH2Peer.handshake(server.port())) {
      byte[][] all = new byte[calls][];
      for (int i = 0; i < calls; i++) {
        all[i] = call(1 + 2 * i, value);
      }
      p.send(concat(all));
      assertThat(p.await(peer -> dataBytes(peer) >= 65_535, GUARD)).isTrue();
      assertThat(p.pingFence(2)).isTrue();
      assertThat(dataBytes(p)).as("DATA within the connection window").isEqualTo(65_535L);
      assertThat(endedCount(p)).as("answers that fit whole").isEqualTo(65_535 / framed);
      p.send(RawH2Peer.windowUpdate(0, 1 << 20));
      assertThat(p.await(peer -> endedCount(peer) == calls, GUARD)).isTrue();
      for (int i = 0; i < calls; i++) {
        assertOkAnswer(p, 1 + 2 * i, value);
      }
      assertThat(p.resets).isEmpty();
      assertThat(p.goAway).isNull();
    }
  }

  @Test
  void anAnswerLargerThanWhatIsLeftOfTheConnectionWindowWaitsForItsUpdate() throws Exception {
    String first = "v".repeat(65_000);
    String second = "u".repeat(1000);
    long left = 65_535 - unary(first).length; // 526 bytes
    try (RawH2Peer p = RawH2Peer.handshake(server.port())) {
      p.send(call(1, first));
      assertThat(p.await(peer -> ended(peer, 1), GUARD)).isTrue();
      p.send(call(3, second));
      assertThat(p.await(peer -> peer.dataBytes.getOrDefault(3, 0L) >= left, GUARD)).isTrue();
      assertThat(p.pingFence(3)).isTrue();
      assertThat(p.dataBytes.get(3)).as("DATA within what is left of the connection window").isEqualTo(left);
      assertThat(ended(p, 3)).isFalse();
      p.send(RawH2Peer.windowUpdate(0, 1 << 20));
      assertThat(p.await(peer -> ended(peer, 3), GUARD)).isTrue();
      assertOkAnswer(p, 1, first);
      assertOkAnswer(p, 3, second);
    }
  }

  @Test
  void aClientStreamingCallersAnswerIsNotHeldUntilItsEnd() throws Exception {
    // The caller waits for the answer before it ends its stream: holding the answer until the
    // call's end would leave both sides waiting.
    try (RawH2Peer p = RawH2Peer.handshake(heldServer.port())) {
      p.send(concat(headers(1, false, heldRequest("EarlyAnswer")), data(1, false, unary("first"))));
      assertThat(p.await(peer -> peer.dataBytes.getOrDefault(1, 0L) > 0, GUARD))
          .as("the answer before the caller's end")
          .isTrue();
      p.send(data(1, true, new byte[0]));
      assertThat(p.await(peer -> ended(peer, 1), GUARD)).isTrue();
      assertOkAnswer(p, 1, "first");
    }
  }

  @Test
  void cancellingAnsweredUnaryCallsIsNotARapidReset() throws Exception {
    // The answers wait for their calls' end (which a cancel brings): the streams have sent no
    // HEADERS yet, but they are answered, so the resets are not early ones (bound: 5).
    try (RawH2Peer p = RawH2Peer.handshake(heldServer.port())) {
      int calls = 10;
      byte[][] all = new byte[calls][];
      byte[][] resets = new byte[calls][];
      for (int i = 0; i < calls; i++) {
        int id = 1 + 2 * i;
        all[i] = concat(headers(id, false, heldRequest("AnswerThenWait")), data(id, true, unary("x")));
        resets[i] = RawH2Peer.rstStream(id, Http2Error.CANCEL);
      }
      p.send(concat(all));
      assertThat(p.pingFence(1)).isTrue();
      assertThat(p.headers).as("nothing written while the calls go on").isEmpty();
      p.send(concat(resets));
      assertThat(p.pingFence(2)).isTrue();
      assertThat(p.goAway).as("the server's GOAWAY").isNull();
      assertThat(p.closed).isFalse();
    }
  }

  @Test
  void anAnswerEndedOtherwiseThanPlainOkGoesOutWithItsEnd() throws Exception {
    try (RawH2Peer p = RawH2Peer.handshake(heldServer.port())) {
      p.send(
          concat(
              headers(1, false, heldRequest("AnswerThenFail")), data(1, true, unary("a")),
              headers(3, false, heldRequest("AnswerWithTrailers")), data(3, true, unary("b"))));
      assertThat(p.await(peer -> ended(peer, 1) && ended(peer, 3), GUARD)).isTrue();
      assertThat(p.dataBytes.get(1)).isEqualTo((long) unary("a").length);
      assertThat(p.trailer(1, "grpc-status")).isEqualTo("3");
      assertThat(p.trailer(1, "grpc-message")).isEqualTo("after the answer");
      assertThat(p.headers.get(1)).hasSize(2);
      assertOkAnswer(p, 3, "b");
      assertThat(p.trailer(3, "x-trailer")).isEqualTo("t");
    }
  }

  @Test
  void aPeerThatShrinksItsHpackTableGetsTheSizeUpdateItIsOwed() throws Exception {
    // After SETTINGS_HEADER_TABLE_SIZE 0 the server's next header block must open with a dynamic
    // table size update (RFC 7541 4.2); this peer's decoder rejects a block without it.
    try (RawH2Peer p = RawH2Peer.handshake(server.port(), RawH2Peer.SETTINGS_HEADER_TABLE_SIZE, 0)) {
      p.decoderTableSize(0);
      p.send(concat(call(1, "a"), call(3, "b")));
      assertThat(p.await(peer -> ended(peer, 1) && ended(peer, 3), GUARD)).isTrue();
      assertOkAnswer(p, 1, "a");
      assertOkAnswer(p, 3, "b");
      assertThat(p.goAway).isNull();
    }
  }

  /** Calls {@code method} with {@code value} on stream {@code id} and waits for its end. */
  private static void callAndWait(RawH2Peer p, int id, String method, String value) throws Exception {
    p.send(concat(headers(id, false, heldRequest(method)), data(id, true, unary(value))));
    assertThat(p.await(peer -> ended(peer, id), GUARD)).as("stream %d ended", id).isTrue();
  }

  /** The header block of stream {@code id}'s HEADERS frame {@code n} (0: response headers). */
  private static byte[] headerBlock(RawH2Peer p, int id, int n) {
    return framesOf(p, id).stream().filter(f -> f.type() == RawH2Peer.HEADERS).toList().get(n).payload();
  }

  private static boolean indexedOnly(byte[] block) {
    for (byte b : block) {
      if ((b & 0x80) == 0) {
        return false;
      }
    }
    return true;
  }

  @Test
  void laterAnswersCarryTheEncodersIndexedBlocks() throws Exception {
    try (RawH2Peer p = RawH2Peer.handshake(heldServer.port())) {
      for (int id = 1; id <= 9; id += 2) {
        callAndWait(p, id, "Answer", "a" + id);
        assertOkAnswer(p, id, "a" + id);
      }
      assertThat(indexedOnly(headerBlock(p, 1, 0))).as("the first answer adds its fields to the table").isFalse();
      for (int id = 3; id <= 9; id += 2) {
        assertThat(indexedOnly(headerBlock(p, id, 0))).as("headers of stream %d", id).isTrue();
        assertThat(indexedOnly(headerBlock(p, id, 1))).as("trailers of stream %d", id).isTrue();
      }
      assertThat(headerBlock(p, 9, 0)).isEqualTo(headerBlock(p, 5, 0));
      assertThat(headerBlock(p, 9, 1)).isEqualTo(headerBlock(p, 5, 1));
    }
  }

  @Test
  void anAnswerAfterOtherHeaderBlocksChangedTheTableIsEncodedAnew() throws Exception {
    // The trailer and the error message are literals the encoder adds to its table, which moves
    // the indexes of the fields the OK answers use: a block kept from before would name others.
    try (RawH2Peer p = RawH2Peer.handshake(heldServer.port())) {
      int id = 1;
      for (String between : List.of("AnswerWithTrailers", "AnswerThenFail", "AnswerWithTrailers")) {
        for (int i = 0; i < 3; i++, id += 2) {
          callAndWait(p, id, "Answer", "b" + id);
          assertOkAnswer(p, id, "b" + id);
        }
        callAndWait(p, id, between, "c" + id);
        id += 2;
      }
      for (int i = 0; i < 3; i++, id += 2) {
        callAndWait(p, id, "Answer", "d" + id);
        assertOkAnswer(p, id, "d" + id);
      }
      assertThat(p.trailer(7, "x-trailer")).isEqualTo("t");
      assertThat(p.trailer(15, "grpc-status")).isEqualTo("3");
      assertThat(p.goAway).isNull();
    }
  }

  @Test
  void anHpackTableSizeChangedMidConnectionIsHonoured() throws Exception {
    try (RawH2Peer p = RawH2Peer.handshake(heldServer.port())) {
      int id = 1;
      for (long size : new long[] {4096, 0, 4096, 64}) {
        if (id > 1) { // applied by the server before the fence's answer, and by this decoder after it
          p.send(RawH2Peer.settings(RawH2Peer.SETTINGS_HEADER_TABLE_SIZE, (int) size));
          assertThat(p.pingFence(id)).isTrue();
          p.decoderTableSize(size);
        }
        for (int i = 0; i < 3; i++, id += 2) {
          callAndWait(p, id, "Answer", "e" + id);
          assertOkAnswer(p, id, "e" + id);
        }
      }
      assertThat(p.goAway).isNull();
    }
  }
}
