package io.sluice.transport.grpc.internal.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.sluice.Message;
import io.sluice.StreamListener;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.rsocket.CallMetadataCodec;
import io.sluice.transport.http2.internal.H2Handler;
import io.sluice.transport.http2.internal.Http2Options;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A call's inbound side in an embedded channel, fed frames a server would send: bytes go back to
 * the HTTP/2 window only as the listener takes messages, the trailers' status comes after the
 * messages before it, and a unary call answered twice fails.
 */
class ClientCallInboundTest {
  private static final int SIZE = 10 * 1024;
  private static final int WIRE = SIZE + 5;

  private EmbeddedChannel client;
  private EmbeddedChannel server; // only encodes frames for the client to read
  private H2Handler h2;
  private ClientConnection conn;
  private final DefaultHttp2FrameWriter writer = new DefaultHttp2FrameWriter();

  private static final class Recorder implements StreamListener {
    final List<Integer> sizes = new ArrayList<>();
    final List<Object> ends = new ArrayList<>();

    @Override
    public void onNext(Message message) {
      sizes.add(message.data().readableBytes());
      message.release();
    }

    @Override
    public void onComplete() {
      ends.add("complete");
    }

    @Override
    public void onError(Throwable cause) {
      ends.add(cause);
    }
  }

  @BeforeEach
  void connect() {
    h2 = H2Handler.build(false, Http2Options.limits(0, 1 << 20, 8192, false), null);
    client = new EmbeddedChannel(h2);
    server = new EmbeddedChannel(new ChannelOutboundHandlerAdapter());
    writer.writeSettings(ctx(), new io.netty.handler.codec.http2.Http2Settings(), server.newPromise());
    deliver();
    conn = new ClientConnection(h2, AsciiString.of("http"), AsciiString.of("test:1"), 1 << 20, "the test server");
  }

  @AfterEach
  void close() {
    client.finishAndReleaseAll();
    server.finishAndReleaseAll();
  }

  private ChannelHandlerContext ctx() {
    return server.pipeline().firstContext();
  }

  /** Moves what the "server" wrote to the client, and drops what the client wrote. */
  private void deliver() {
    client.runPendingTasks(); // the client's flush
    server.flush();
    for (Object o; (o = server.readOutbound()) != null; ) {
      client.writeInbound(o);
    }
    for (Object o; (o = client.readOutbound()) != null; ) {
      ReferenceCountUtil.release(o);
    }
  }

  private ClientCall start(int kind, long initialRequest, StreamListener listener) {
    Message first =
        Message.of(CallMetadataCodec.encode(client.alloc(), CallMetadata.of("test.Svc", "M")), Unpooled.EMPTY_BUFFER);
    ClientCall call = ClientCall.start(conn, kind, first, true, initialRequest, listener);
    deliver();
    return call;
  }

  private int stream() {
    return h2.connection().local().lastStreamCreated();
  }

  private void responseHeaders() {
    Http2Headers h = new DefaultHttp2Headers().status("200").add("content-type", "application/grpc");
    writer.writeHeaders(ctx(), stream(), h, 0, false, server.newPromise());
  }

  private void messages(int count) {
    ByteBuf data = Unpooled.buffer(count * WIRE);
    for (int i = 0; i < count; i++) {
      data.writeByte(0).writeInt(SIZE).writeZero(SIZE);
    }
    writer.writeData(ctx(), stream(), data, 0, false, server.newPromise());
  }

  private void trailers(String status, String message) {
    Http2Headers t = new DefaultHttp2Headers().add("grpc-status", status);
    if (message != null) {
      t.add("grpc-message", message);
    }
    writer.writeHeaders(ctx(), stream(), t, 0, true, server.newPromise());
  }

  private int unconsumed() {
    Http2Stream s = h2.connection().stream(stream());
    return s == null ? -1 : h2.decoder().flowController().unconsumedBytes(s);
  }

  @Test
  void bytesGoBackToTheWindowAsMessagesAreTaken() {
    Recorder r = new Recorder();
    ClientCall call = start(ClientCall.REQUEST_STREAM, 1, r);
    responseHeaders();
    messages(3);
    deliver();
    assertThat(r.sizes).containsExactly(SIZE);
    assertThat(unconsumed()).isEqualTo(2 * WIRE); // held, not given back, until asked for
    call.request(1);
    deliver();
    assertThat(r.sizes).hasSize(2);
    assertThat(unconsumed()).isEqualTo(WIRE);
    trailers("0", null);
    deliver();
    assertThat(r.ends).as("the end waits for the message before it").isEmpty();
    call.request(5);
    deliver();
    assertThat(r.sizes).hasSize(3);
    assertThat(r.ends).containsExactly("complete");
  }

  @Test
  void anErrorStatusComesAfterTheMessagesBeforeIt() {
    Recorder r = new Recorder();
    ClientCall call = start(ClientCall.REQUEST_STREAM, 1, r);
    responseHeaders();
    messages(2);
    trailers("5", "no%20such thing");
    deliver();
    assertThat(r.sizes).hasSize(1);
    assertThat(r.ends).isEmpty();
    call.request(1);
    deliver();
    assertThat(r.sizes).hasSize(2);
    assertThat(r.ends).singleElement().isInstanceOfSatisfying(
        StatusException.class, e -> assertThat(e.status()).isEqualTo(Status.of(Status.Code.NOT_FOUND, "no such thing")));
  }

  @Test
  void aUnaryCallAnsweredTwiceFails() {
    Recorder r = new Recorder();
    start(ClientCall.REQUEST_RESPONSE, 1, r);
    responseHeaders();
    messages(2);
    deliver();
    assertThat(r.sizes).hasSize(1);
    assertThat(r.ends).singleElement().isInstanceOfSatisfying(
        StatusException.class, e -> assertThat(e.status().code()).isEqualTo(Status.Code.INTERNAL));
    assertThat(h2.connection().stream(stream())).as("reset").isNull();
  }

  @Test
  void trailersOnlyAndNonGrpcAnswers() {
    Recorder r = new Recorder();
    start(ClientCall.REQUEST_RESPONSE, 1, r);
    Http2Headers only = new DefaultHttp2Headers().status("200").add("content-type", "application/grpc").add("grpc-status", "12");
    writer.writeHeaders(ctx(), stream(), only, 0, true, server.newPromise());
    deliver();
    assertThat(r.ends).singleElement().isInstanceOfSatisfying(
        StatusException.class, e -> assertThat(e.status().code()).isEqualTo(Status.Code.UNIMPLEMENTED));

    Recorder html = new Recorder();
    start(ClientCall.REQUEST_RESPONSE, 1, html);
    Http2Headers h = new DefaultHttp2Headers().status("503").add("content-type", "text/html");
    writer.writeHeaders(ctx(), stream(), h, 0, true, server.newPromise());
    deliver();
    assertThat(html.ends).singleElement().isInstanceOfSatisfying(
        StatusException.class, e -> assertThat(e.status().code()).isEqualTo(Status.Code.UNAVAILABLE));
  }

  @Test
  void informationalHeadersBeforeTheAnswerAreSkipped() {
    Recorder r = new Recorder();
    start(ClientCall.REQUEST_RESPONSE, 1, r);
    writer.writeHeaders(ctx(), stream(), new DefaultHttp2Headers().status("100"), 0, false, server.newPromise());
    writer.writeHeaders(ctx(), stream(), new DefaultHttp2Headers().status("103").add("link", "</x>"), 0, false, server.newPromise());
    responseHeaders();
    messages(1);
    trailers("0", null);
    deliver();
    assertThat(r.sizes).containsExactly(SIZE);
    assertThat(r.ends).containsExactly("complete");
  }

  @Test
  void cancelSignalsNothingMore() {
    Recorder r = new Recorder();
    ClientCall call = start(ClientCall.REQUEST_STREAM, 1, r);
    responseHeaders();
    messages(2);
    deliver();
    call.cancel();
    deliver();
    call.request(1);
    trailers("0", null);
    deliver();
    assertThat(r.sizes).hasSize(1);
    assertThat(r.ends).isEmpty();
  }
}
