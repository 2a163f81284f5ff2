package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.Connections;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.transport.DuplexTransport.Framing;
import io.sluice.transport.FramePrefix;
import io.sluice.transport.ServerTransport;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * {@link Framing#TRANSPORT_PREFIXED}: the engine writes the transport's {@link FramePrefix} in
 * front of each frame, many frames to a batch, as it writes the u24 length for TCP. The {@link
 * FakeTransport} changes every frame's bytes in the batches it is given (as a WebSocket client
 * masks them) and copies what it may not change, so these tests also check who owns what.
 */
class TransportPrefixEngineTest extends EngineTestBase {
  /** Data of message {@code i}: 1 to 400 bytes, so prefixes of both lengths (6 and 7 bytes). */
  private static byte[] data(int i) {
    return Wire.pattern(1 + (i * 37) % 400, i);
  }

  /** Streams {@code count} messages, message i with data {@code data.apply(i)}, as requested. */
  private static final class Counting implements Responder {
    final int count;
    final IntFunction<byte[]> data;

    Counting(int count, IntFunction<byte[]> data) {
      this.count = count;
      this.data = data;
    }

    @Override
    public StreamListener requestStream(Message request, StreamHandle stream) {
      request.release();
      return new StreamListener() {
        int sent;

        @Override
        public void onRequest(long n) {
          for (long k = 0; k < n && sent < count; k++) {
            Message m = Message.of(Wire.bytes(data.apply(sent++)));
            if (sent == count) {
              stream.nextAndComplete(m);
            } else {
              stream.next(m);
            }
          }
        }

        @Override
        public void onNext(Message message) {
          message.release();
        }

        @Override
        public void onComplete() {}

        @Override
        public void onError(Throwable cause) {}
      };
    }
  }

  private List<Wire.Sent> stream(int count, IntFunction<byte[]> data) {
    // A window that lets one task produce more than a batch holds, so that batches fill up.
    server(
        opts().outboundWindow(8192).build(),
        new Counting(count, data),
        Framing.TRANSPORT_PREFIXED);
    transport.inject(Wire.setup());
    transport.inject(Wire.requestStream(1, Integer.MAX_VALUE, "go"));
    transport.awaitAllRead();
    return transport.drain();
  }

  @Test
  void smallFramesGoManyToABatchEachBehindTheTransportsPrefix() {
    int count = 4000; // about 800 KiB: a dozen batches
    List<Wire.Sent> sent = stream(count, TransportPrefixEngineTest::data);

    assertThat(sent).hasSize(count);
    for (int i = 0; i < count; i++) {
      Wire.Sent s = sent.get(i);
      assertThat(s.type()).as("frame %s", i).isEqualTo(FrameType.PAYLOAD);
      assertThat(s.streamId()).isEqualTo(1);
      assertThat(s.data()).as("data of message %s", i).isEqualTo(data(i));
      assertThat(s.has(Frames.FLAG_COMPLETE)).isEqualTo(i == count - 1);
    }
    // Many frames per buffer, and room for the longest prefix kept in each: no batch ever had to
    // grow past the 64 KiB it was made with.
    assertThat(transport.batchCapacities).hasSizeBetween(10, count / 100).containsOnly(64 * 1024);
    assertThat(transport.payloadWrites).isEmpty();
  }

  @Test
  void aFullBatchKeepsRoomForTheLongestPrefix() {
    // Frames of 16 bytes behind 6-byte prefixes: 2978 fill 65516 bytes of a 64 KiB batch, and 20
    // are left, enough for the next frame behind a u24 length (19) but not behind the longest
    // prefix the transport may write (8 + 16). The engine must start a new batch, not write past
    // the end of this one (which would make the buffer grow, or the frame move).
    int count = 3 * 2978;
    List<Wire.Sent> sent = stream(count, i -> Wire.pattern(10, i));
    assertThat(sent).hasSize(count);
    assertThat(sent.get(count - 1).data()).isEqualTo(Wire.pattern(10, count - 1));
    assertThat(transport.batchSizes).as("bytes in each batch").contains(65516);
    assertThat(transport.batchCapacities).containsOnly(64 * 1024);
  }

  @Test
  void aLargePayloadFollowsItsHeadAsItIsAndIsNotChanged() {
    client(opts().build(), r -> new Responder() {}, Framing.TRANSPORT_PREFIXED);
    byte[] mdBytes = Wire.pattern(3000, 1);
    byte[] dataBytes = Wire.pattern(30_000, 2);
    ByteBuf metadata = Wire.bytes(mdBytes);
    ByteBuf data = Wire.bytes(dataBytes);
    data.retain(); // the application keeps it (shared), so the transport may not change it
    try {
      Recorder r = new Recorder();
      Loop.run(loop, () -> conn.fireAndForget(Message.of(metadata, data), r));
      Wire.Sent f = transport.next(FrameType.REQUEST_FNF);
      assertThat(f.metadata()).isEqualTo(mdBytes);
      assertThat(f.data()).isEqualTo(dataBytes);
      // Not copied into the batch: the head ends a batch, the payload buffers follow as they are.
      assertThat(transport.payloadWrites).hasSize(2);
      assertThat(transport.payloadWrites.get(0)).isSameAs(metadata);
      assertThat(transport.payloadWrites.get(1)).isSameAs(data);
      assertThat(ByteBufUtil.getBytes(data)).as("the application's buffer").isEqualTo(dataBytes);
      assertThat(data.refCnt()).isEqualTo(1);
    } finally {
      data.release();
    }
  }

  @Test
  void aTransportPrefixedTransportWithoutAPrefixIsAClearError() {
    transport = new FakeTransport(loop, Framing.TRANSPORT_PREFIXED);
    transport.framePrefix = null;
    assertThatThrownBy(
            () ->
                Loop.call(
                    loop,
                    () -> SluiceConnection.server(transport, opts().build(), (s, r) -> null)))
        .hasMessageContaining("FakeTransport says its framing is TRANSPORT_PREFIXED")
        .hasMessageContaining("framePrefix() is null");
  }

  @Test
  void aServedTransportTheEngineCannotUseIsClosed() throws Exception {
    transport = new FakeTransport(loop, Framing.TRANSPORT_PREFIXED);
    transport.framePrefix = null;
    ServerTransport server =
        onConnection -> {
          loop.execute(() -> onConnection.accept(transport));
          return new CompletableFuture<>(); // never bound: the test needs only the connection
        };
    Connections.serve(server, opts().build(), (s, r) -> null);
    // Not left open with nobody reading it (a peer would wait on it until its own timeout).
    transport.closed.get(10, TimeUnit.SECONDS);
  }

  @Test
  void aPrefixLongerThanAnyFramingNeedsIsAClearErrorAndTheSetupPayloadIsReleased() {
    transport = new FakeTransport(loop, Framing.TRANSPORT_PREFIXED);
    transport.framePrefix =
        new FramePrefix() {
          @Override
          public int maxLength() {
            return 1000;
          }

          @Override
          public void write(ByteBuf out, int frameLength) {}
        };
    Message setupPayload = Message.of(Wire.utf8("md"), Wire.utf8("data"));
    ClientSetup setup = ClientSetup.of(Wire.MIME, Wire.MIME, setupPayload);
    assertThatThrownBy(
            () ->
                Loop.call(
                    loop,
                    () ->
                        SluiceConnection.client(
                            transport, opts().build(), setup, r -> new Responder() {})))
        .hasMessageContaining("framePrefix().maxLength() must be 1 to 64, got 1000");
    assertThat(setupPayload.refCnt()).isZero();
  }
}
