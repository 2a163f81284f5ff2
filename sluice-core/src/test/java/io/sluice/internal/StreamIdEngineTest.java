package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.ErrorCode;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.internal.frame.FrameType;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Stream id allocation: parity, step, wrap-around, and ids a peer must not use. */
class StreamIdEngineTest extends EngineTestBase {

  @Test
  void clientIdsAreOddFromOneStepTwo() {
    client(opts().build());
    Loop.run(
        loop,
        () -> {
          conn.requestResponse(msg("a"), new Recorder());
          conn.requestStream(msg("b"), 1, new Recorder());
          conn.requestChannel(msg("c"), false, 1, new Recorder());
          conn.fireAndForget(msg("d"), new Recorder());
          conn.requestResponse(msg("e"), new Recorder());
        });
    assertThat(transport.next(FrameType.REQUEST_RESPONSE).streamId()).isEqualTo(1);
    assertThat(transport.next(FrameType.REQUEST_STREAM).streamId()).isEqualTo(3);
    assertThat(transport.next(FrameType.REQUEST_CHANNEL).streamId()).isEqualTo(5);
    assertThat(transport.next(FrameType.REQUEST_FNF).streamId()).isEqualTo(7);
    assertThat(transport.next(FrameType.REQUEST_RESPONSE).streamId()).isEqualTo(9);
  }

  @Test
  void serverIdsAreEvenFromTwoStepTwo() {
    AtomicReference<Requester> serverRequester = new AtomicReference<>();
    transport = new FakeTransport(loop, io.sluice.transport.DuplexTransport.Framing.FRAME_PER_WRITE);
    conn =
        Loop.call(
            loop,
            () ->
                SluiceConnection.server(
                    transport,
                    opts().build(),
                    (setup, requester) -> {
                      serverRequester.set(requester);
                      return new Responder() {};
                    }));
    transport.inject(Wire.setup());
    Requester r = serverRequester.get();
    assertThat(r).isSameAs(conn);
    Loop.run(
        loop,
        () -> {
          r.requestResponse(msg("a"), new Recorder());
          r.requestStream(msg("b"), 1, new Recorder());
          r.fireAndForget(msg("c"), new Recorder());
        });
    assertThat(transport.next(FrameType.REQUEST_RESPONSE).streamId()).isEqualTo(2);
    assertThat(transport.next(FrameType.REQUEST_STREAM).streamId()).isEqualTo(4);
    assertThat(transport.next(FrameType.REQUEST_FNF).streamId()).isEqualTo(6);
  }

  @Test
  void clientIdsWrapAroundAndSkipLiveOnes() {
    client(opts().build());
    Recorder live1 = new Recorder();
    Loop.run(loop, () -> conn.requestStream(msg("one"), 1, live1));
    assertThat(transport.next(FrameType.REQUEST_STREAM).streamId()).isEqualTo(1);
    Loop.run(
        loop,
        () -> {
          conn.nextStreamIdForTest(Integer.MAX_VALUE - 2);
          conn.requestStream(msg("a"), 1, new Recorder());
          conn.requestStream(msg("b"), 1, new Recorder());
          conn.requestStream(msg("c"), 1, new Recorder()); // wraps: 1 is live, so 3
          conn.requestStream(msg("d"), 1, new Recorder());
        });
    assertThat(transport.next(FrameType.REQUEST_STREAM).streamId()).isEqualTo(Integer.MAX_VALUE - 2);
    assertThat(transport.next(FrameType.REQUEST_STREAM).streamId()).isEqualTo(Integer.MAX_VALUE);
    assertThat(transport.next(FrameType.REQUEST_STREAM).streamId()).isEqualTo(3);
    assertThat(transport.next(FrameType.REQUEST_STREAM).streamId()).isEqualTo(5);
    // A finished id is free again after a wrap.
    transport.inject(Wire.payload(1, io.sluice.internal.frame.Frames.FLAG_COMPLETE, null, null));
    live1.take("complete");
    Loop.run(
        loop,
        () -> {
          conn.nextStreamIdForTest(Integer.MAX_VALUE);
          conn.requestResponse(msg("x"), new Recorder()); // MAX is live: wraps to 1, free now
        });
    assertThat(transport.next(FrameType.REQUEST_RESPONSE).streamId()).isEqualTo(1);
  }

  @Test
  void serverIdsWrapAroundAndSkipLiveOnes() {
    AtomicReference<Requester> serverRequester = new AtomicReference<>();
    transport = new FakeTransport(loop, io.sluice.transport.DuplexTransport.Framing.FRAME_PER_WRITE);
    conn =
        Loop.call(
            loop,
            () ->
                SluiceConnection.server(
                    transport,
                    opts().build(),
                    (setup, requester) -> {
                      serverRequester.set(requester);
                      return new Responder() {};
                    }));
    transport.inject(Wire.setup());
    Loop.run(
        loop,
        () -> {
          conn.requestStream(msg("live"), 1, new Recorder());
          conn.nextStreamIdForTest(Integer.MAX_VALUE - 1);
          conn.requestStream(msg("a"), 1, new Recorder());
          conn.requestStream(msg("b"), 1, new Recorder());
        });
    assertThat(transport.next(FrameType.REQUEST_STREAM).streamId()).isEqualTo(2);
    assertThat(transport.next(FrameType.REQUEST_STREAM).streamId()).isEqualTo(Integer.MAX_VALUE - 1);
    assertThat(transport.next(FrameType.REQUEST_STREAM).streamId()).isEqualTo(4);
  }

  @Test
  void requestWithTheReceiversOwnParityIsAConnectionError() {
    acceptedServer(opts().build(), new Producers.Counting(-1));
    transport.inject(Wire.requestResponse(2, null, "even from a client"));
    Wire.Sent e = transport.next(FrameType.ERROR);
    assertThat(e.streamId()).isZero();
    assertThat(e.errorCode()).isEqualTo(ErrorCode.CONNECTION_ERROR);
    transport.awaitClosed();
  }

  @Test
  void requestOnStreamZeroIsAConnectionError() {
    acceptedServer(opts().build(), new Producers.Counting(-1));
    transport.inject(Wire.requestStream(0, 1, "zero"));
    Wire.Sent e = transport.next(FrameType.ERROR);
    assertThat(e.streamId()).isZero();
    assertThat(e.errorCode()).isEqualTo(ErrorCode.CONNECTION_ERROR);
    transport.awaitClosed();
  }

  @Test
  void requestOnAnIdInUseIsIgnored() {
    Producers.Counting producer = new Producers.Counting(-1);
    producer.emit = false;
    acceptedServer(opts().build(), producer);
    transport.inject(Wire.requestStream(1, 1, "first"));
    assertThat(producer.take()).isEqualTo("request-stream:first");
    transport.inject(Wire.requestStream(1, 1, "again"), Wire.requestResponse(1, null, "again"));
    transport.assertNothingSent();
    Loop.settle(loop);
    assertThat(producer.events).isEmpty();
    StreamHandle h = producer.handle();
    h.nextAndComplete(msg("done"));
    assertThat(transport.next(FrameType.PAYLOAD).dataUtf8()).isEqualTo("done");
  }

  @Test
  void clientAcceptsEvenIdsOnly() {
    Producers.Counting producer = new Producers.Counting(1);
    client(opts().build(), r -> producer);
    transport.inject(Wire.requestResponse(2, null, "from server"));
    assertThat(transport.next(FrameType.PAYLOAD).dataUtf8()).isEqualTo("rr:from server");
    transport.inject(Wire.requestResponse(3, null, "odd"));
    Wire.Sent e = transport.next(FrameType.ERROR);
    assertThat(e.streamId()).isZero();
    assertThat(e.errorCode()).isEqualTo(ErrorCode.CONNECTION_ERROR);
  }
}
