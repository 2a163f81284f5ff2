package io.sluice.transport.grpc;

import static io.sluice.transport.http2.RawH2Peer.concat;
import static io.sluice.transport.http2.RawH2Peer.data;
import static io.sluice.transport.http2.RawH2Peer.headers;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.StringValue;
import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.transport.http2.RawH2Peer;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Small streamed responses made in one loop turn are gathered into one buffer of the call and
 * written when the connection flushes: on the wire every message must still come whole and in the
 * order it was sent, before a larger one sent after it (written apart), and before the trailers,
 * whatever the status.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GatheredResponsesTest {
  private static final Duration GUARD = Duration.ofSeconds(20);
  private static final String SERVICE = "test.Gathered";
  /**
   * Longer than the responses the server gathers (1 KiB at most): written apart; and than the
   * connection's gathered small writes (2 KiB), so it reaches the socket as it is.
   */
  private static final String LARGE = "x".repeat(3000);
  private GrpcServer.Running server;

  @BeforeAll
  void start() {
    MethodDescriptor<StringValue, StringValue> burst =
        MethodDescriptor.<StringValue, StringValue>builder()
            .service(SERVICE)
            .method("Burst")
            .kind(MethodKind.SERVER_STREAMING)
            .requestParser(StringValue.parser())
            .responseParser(StringValue.parser())
            .build();
    MethodDescriptor<StringValue, StringValue> twoAnswers =
        MethodDescriptor.<StringValue, StringValue>builder()
            .service(SERVICE)
            .method("TwoAnswers")
            .kind(MethodKind.CLIENT_STREAMING)
            .requestParser(StringValue.parser())
            .responseParser(StringValue.parser())
            .build();
    ServiceDefinition def =
        ServiceDefinition.builder(SERVICE)
            .add(burst, GatheredResponsesTest::burst)
            .add(twoAnswers, GatheredResponsesTest::twoAnswers)
            .build();
    server = GrpcServer.create("127.0.0.1", 0).withServices(ServiceRegistry.builder().add(def).build()).start();
  }

  @AfterAll
  void stop() throws Exception {
    server.close();
    server.onClose().get();
  }

  /** The messages {@code burst} sends for a request of {@code value}. */
  private static List<String> sent(String value) {
    List<String> out = new ArrayList<>();
    int small = value.startsWith("many") ? 2000 : 40;
    for (int i = 0; i < small; i++) {
      out.add("m" + i);
    }
    out.add(LARGE);
    for (int i = 0; i < 5; i++) {
      out.add("after" + i);
    }
    return out;
  }

  /**
   * Sends {@link #sent} all at once from its request's delivery (on the event loop), then ends OK,
   * or INVALID_ARGUMENT for a request of "...fail".
   */
  private static ServerCall.Listener<StringValue> burst(ServerCall<StringValue, StringValue> call) {
    call.request(1);
    return new EchoService.Adapter<>() {
      @Override
      public void onMessage(StringValue request) {
        for (String m : sent(request.getValue())) {
          call.sendMessage(StringValue.of(m));
        }
        call.close(
            request.getValue().endsWith("fail") ? Status.of(Status.Code.INVALID_ARGUMENT, "after the burst") : Status.OK);
      }
    };
  }

  /** A method of one response that sends two (on the event loop): the second is refused. */
  private static ServerCall.Listener<StringValue> twoAnswers(ServerCall<StringValue, StringValue> call) {
    call.request(1);
    return new EchoService.Adapter<>() {
      @Override
      public void onMessage(StringValue request) {
        call.sendMessage(StringValue.of("first"));
        call.sendMessage(StringValue.of("second"));
      }
    };
  }

  private static byte[] call(int streamId, String value) {
    return call(streamId, "Burst", value);
  }

  private static byte[] call(int streamId, String method, String value) {
    byte[] body = StringValue.of(value).toByteArray();
    byte[] m = ByteBuffer.allocate(5 + body.length).put((byte) 0).putInt(body.length).put(body).array();
    byte[] block =
        RawH2Peer.Hpack.block(
            ":method", "POST", ":scheme", "http", ":authority", "127.0.0.1", ":path", "/" + SERVICE + "/" + method,
            "content-type", "application/grpc", "te", "trailers");
    return concat(headers(streamId, false, block), data(streamId, true, m));
  }

  private static boolean ended(RawH2Peer p, int streamId) {
    List<Http2Headers> blocks = p.headers.get(streamId);
    return blocks != null && blocks.size() == 2;
  }

  /** The messages in the DATA frames of {@code streamId}, and that nothing of it follows its trailers. */
  private static List<String> received(RawH2Peer p, int streamId) throws InvalidProtocolBufferException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    boolean trailersSeen = false;
    int headerFrames = 0;
    for (RawH2Peer.Frame f : p.frames) {
      if (f.streamId() != streamId) {
        continue;
      }
      assertThat(trailersSeen).as("a frame after the trailers of stream %d", streamId).isFalse();
      if (f.type() == RawH2Peer.DATA) {
        assertThat(headerFrames).as("DATA after the response headers").isEqualTo(1);
        bytes.writeBytes(f.payload());
      } else if (f.type() == RawH2Peer.HEADERS) {
        headerFrames++;
        trailersSeen = (f.flags() & RawH2Peer.FLAG_END_STREAM) != 0;
      }
    }
    assertThat(trailersSeen).as("trailers end stream %d", streamId).isTrue();
    ByteBuffer in = ByteBuffer.wrap(bytes.toByteArray());
    List<String> out = new ArrayList<>();
    while (in.hasRemaining()) {
      assertThat(in.get()).as("compressed flag").isZero();
      byte[] m = new byte[in.getInt()];
      in.get(m);
      out.add(StringValue.parseFrom(m).getValue());
    }
    return out;
  }

  @Test
  void aRefusedResponseIsNotWrittenAndWhatCameBeforeItIs() throws Exception {
    try (RawH2Peer p = RawH2Peer.handshake(server.port())) {
      p.keepData = Integer.MAX_VALUE;
      p.send(call(1, "TwoAnswers", "go"));
      assertThat(p.await(peer -> ended(peer, 1), GUARD)).isTrue();
      assertThat(received(p, 1)).containsExactly("first");
      assertThat(p.headers.get(1).get(1).get("grpc-status").toString()).isEqualTo("13");
      assertThat(p.headers.get(1).get(1).get("grpc-message").toString()).contains("sent more than one response");
    }
  }

  @Test
  void gatheredMessagesComeWholeInOrderBeforeALargerOneAndTheTrailers() throws Exception {
    try (RawH2Peer p = RawH2Peer.handshake(server.port())) {
      p.keepData = Integer.MAX_VALUE;
      p.send(concat(call(1, "few"), call(3, "few, then fail"), call(5, "many")));
      assertThat(p.await(peer -> ended(peer, 1) && ended(peer, 3) && ended(peer, 5), GUARD)).isTrue();
      assertThat(received(p, 1)).isEqualTo(sent("few"));
      assertThat(p.headers.get(1).get(1).get("grpc-status").toString()).isEqualTo("0");
      assertThat(received(p, 3)).isEqualTo(sent("few, then fail"));
      assertThat(p.headers.get(3).get(1).get("grpc-status").toString()).isEqualTo("3");
      assertThat(received(p, 5)).as("more than a gathering buffer holds").isEqualTo(sent("many"));
      assertThat(p.headers.get(5).get(1).get("grpc-status").toString()).isEqualTo("0");
      assertThat(p.resets).isEmpty();
    }
  }
}
