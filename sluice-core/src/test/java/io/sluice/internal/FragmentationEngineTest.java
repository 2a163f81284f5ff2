package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufUtil;
import io.sluice.ErrorCode;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.transport.DuplexTransport.Framing;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Fragmentation on the wire (MTU) and reassembly of what a peer fragments. */
class FragmentationEngineTest extends EngineTestBase {

  /** Reads the fragments of one message and checks them against the fragmentation rules. */
  private Message reassemble(int streamId, int firstType, int mtu, Framing framing) {
    List<Wire.Sent> frames = new ArrayList<>();
    for (; ; ) {
      Wire.Sent f = transport.nextSkippingKeepAlives(frames.isEmpty() ? firstType : FrameType.PAYLOAD);
      assertThat(f.streamId()).isEqualTo(streamId);
      frames.add(f);
      boolean follows = f.has(Frames.FLAG_FOLLOWS) && !f.has(Frames.FLAG_COMPLETE);
      if (!follows) {
        break;
      }
    }
    int prefix = framing == Framing.LENGTH_PREFIXED ? 3 : 0;
    ByteArrayOutputStream md = new ByteArrayOutputStream();
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    boolean sawData = false;
    boolean anyMetadata = false;
    for (int i = 0; i < frames.size(); i++) {
      Wire.Sent f = frames.get(i);
      boolean last = i == frames.size() - 1;
      assertThat(f.size() + prefix).as("fragment %s of %s within the MTU", i, f).isLessThanOrEqualTo(mtu);
      assertThat(f.has(Frames.FLAG_FOLLOWS)).as("F on fragment %s", i).isEqualTo(!last);
      if (i > 0) {
        assertThat(f.type()).isEqualTo(FrameType.PAYLOAD);
      }
      if (!last) {
        assertThat(f.has(Frames.FLAG_COMPLETE)).as("no C before the last fragment").isFalse();
        int progress = (f.metadata() == null ? 0 : f.metadata().length) + f.data().length;
        assertThat(progress).as("fragment %s makes progress", i).isPositive();
      }
      if (f.metadata() != null) {
        assertThat(sawData).as("metadata after data in fragment %s", i).isFalse();
        anyMetadata = true;
        md.writeBytes(f.metadata());
      }
      if (f.data().length > 0) {
        sawData = true;
      }
      data.writeBytes(f.data());
    }
    return Message.of(
        anyMetadata ? Wire.bytes(md.toByteArray()) : null, Wire.bytes(data.toByteArray()));
  }

  private static void assertContent(Message m, byte[] md, byte[] data) {
    try {
      if (md == null) {
        assertThat(m.hasMetadata()).isFalse();
      } else {
        assertThat(ByteBufUtil.getBytes(m.metadata())).isEqualTo(md);
      }
      assertThat(ByteBufUtil.getBytes(m.data())).isEqualTo(data);
    } finally {
      m.release();
    }
  }

  enum Kind {
    FNF(FrameType.REQUEST_FNF),
    RESPONSE(FrameType.REQUEST_RESPONSE),
    STREAM(FrameType.REQUEST_STREAM),
    CHANNEL(FrameType.REQUEST_CHANNEL);

    final int type;

    Kind(int type) {
      this.type = type;
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void requestsAreFragmentedAtTheMtu(Kind kind) {
    for (Framing framing : Framing.values()) {
      for (int mtu : new int[] {64, 100, 1024}) {
        client(opts().mtu(mtu).build(), r -> new Responder() {}, framing);
        byte[] md = Wire.pattern(3 * mtu + 17, 1);
        byte[] data = Wire.pattern(5 * mtu + 3, 2);
        Message m = Message.of(Wire.bytes(md), Wire.bytes(data));
        Recorder r = new Recorder();
        Loop.run(
            loop,
            () -> {
              switch (kind) {
                case FNF:
                  conn.fireAndForget(m, r);
                  break;
                case RESPONSE:
                  conn.requestResponse(m, r);
                  break;
                case STREAM:
                  conn.requestStream(m, 7, r);
                  break;
                default:
                  conn.requestChannel(m, false, 7, r);
              }
            });
        Loop.settle(loop);
        Wire.Sent first = transport.sent.peek();
        assertThat(first).isNotNull();
        assertContent(reassemble(1, kind.type, mtu, framing), md, data);
        if (kind == Kind.STREAM || kind == Kind.CHANNEL) {
          assertThat(first.requestN()).isEqualTo(7);
        }
        assertThat(first.has(Frames.FLAG_METADATA)).isTrue();
        transport.assertNothingSent();
        assertThat(m.refCnt()).isZero();
        Loop.run(loop, () -> conn.dispose());
        conn = null;
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Framing.class)
  void payloadsAreFragmentedAtTheMtu(Framing framing) {
    int mtu = 128;
    byte[] md = Wire.pattern(1000, 3);
    byte[] data = Wire.pattern(3000, 4);
    Responder responder =
        new Responder() {
          @Override
          public StreamListener requestStream(Message request, StreamHandle stream) {
            request.release();
            return new Recorder() {
              @Override
              public void onRequest(long n) {
                stream.next(Message.of(Wire.bytes(md), Wire.bytes(data)));
                stream.next(Message.of(null, Wire.bytes(data)));
                stream.nextAndComplete(Message.of(Wire.bytes(md), Wire.bytes(new byte[0])));
              }
            };
          }
        };
    server(opts().mtu(mtu).build(), responder, framing);
    transport.inject(Wire.setup());
    transport.inject(Wire.requestStream(1, 3, "go"));
    assertContent(reassemble(1, FrameType.PAYLOAD, mtu, framing), md, data);
    assertContent(reassemble(1, FrameType.PAYLOAD, mtu, framing), null, data);
    assertContent(reassemble(1, FrameType.PAYLOAD, mtu, framing), md, new byte[0]);
    transport.assertNothingSent();
  }

  @Test
  void lastFragmentCarriesCompleteAndEveryFragmentCarriesNext() {
    int mtu = 64;
    Responder responder =
        new Responder() {
          @Override
          public StreamListener requestResponse(Message request, StreamHandle response) {
            request.release();
            response.nextAndComplete(Message.of(null, Wire.bytes(Wire.pattern(200, 9))));
            return new Recorder();
          }
        };
    server(opts().mtu(mtu).build(), responder);
    transport.inject(Wire.setup());
    transport.inject(Wire.requestResponse(1, null, "q"));
    List<Wire.Sent> frames = transport.drain();
    assertThat(frames.size()).isGreaterThan(3);
    for (int i = 0; i < frames.size(); i++) {
      Wire.Sent f = frames.get(i);
      assertThat(f.type()).isEqualTo(FrameType.PAYLOAD);
      assertThat(f.has(Frames.FLAG_NEXT)).as("N on %s", f).isTrue();
      boolean last = i == frames.size() - 1;
      assertThat(f.has(Frames.FLAG_COMPLETE)).as("C on %s", f).isEqualTo(last);
      assertThat(f.has(Frames.FLAG_FOLLOWS)).as("F on %s", f).isEqualTo(!last);
    }
  }

  @Test
  void frameExactlyAtTheMtuIsNotFragmented() {
    int mtu = 64;
    client(opts().mtu(mtu).build(), r -> new Responder() {}, Framing.LENGTH_PREFIXED);
    // 3 (prefix) + 6 (header) + 55 data = 64
    Message m = Message.of(null, Wire.bytes(Wire.pattern(55, 1)));
    Loop.run(loop, () -> conn.fireAndForget(m, new Recorder()));
    Wire.Sent f = transport.next(FrameType.REQUEST_FNF);
    assertThat(f.has(Frames.FLAG_FOLLOWS)).isFalse();
    assertThat(f.size() + 3).isEqualTo(mtu);
    Message m2 = Message.of(null, Wire.bytes(Wire.pattern(56, 1)));
    Loop.run(loop, () -> conn.fireAndForget(m2, new Recorder()));
    assertThat(transport.next(FrameType.REQUEST_FNF).has(Frames.FLAG_FOLLOWS)).isTrue();
    assertThat(transport.next(FrameType.PAYLOAD).has(Frames.FLAG_FOLLOWS)).isFalse();
  }

  @Test
  void noFragmentationWhenMtuIsZero() {
    client(opts().mtu(0).build());
    byte[] data = Wire.pattern(200_000, 5);
    Message m = Message.of(null, Wire.bytes(data));
    Loop.run(loop, () -> conn.fireAndForget(m, new Recorder()));
    Wire.Sent f = transport.next(FrameType.REQUEST_FNF);
    assertThat(f.has(Frames.FLAG_FOLLOWS)).isFalse();
    assertThat(f.data()).isEqualTo(data);
  }

  // ---- reassembly ---------------------------------------------------------------------------

  /** A responder that hands every request to the test. */
  static final class Capturing implements Responder {
    final BlockingQueue<Object[]> requests = new LinkedBlockingQueue<>();

    private StreamListener capture(String kind, Message m, StreamHandle h, boolean complete) {
      requests.add(
          new Object[] {
            kind,
            m.hasMetadata() ? ByteBufUtil.getBytes(m.metadata()) : null,
            ByteBufUtil.getBytes(m.data()),
            h,
            complete
          });
      m.release();
      return new Recorder();
    }

    @Override
    public void fireAndForget(Message request) {
      capture("fnf", request, null, false);
    }

    @Override
    public StreamListener requestResponse(Message request, StreamHandle response) {
      return capture("response", request, response, false);
    }

    @Override
    public StreamListener requestStream(Message request, StreamHandle stream) {
      return capture("stream", request, stream, false);
    }

    @Override
    public StreamListener requestChannel(Message first, boolean complete, StreamHandle channel) {
      return capture("channel", first, channel, complete);
    }

    Object[] take() {
      try {
        Object[] r = requests.poll(Loop.WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(r).isNotNull();
        return r;
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }
  }

  static byte[] slice(byte[] b, int from, int to) {
    return java.util.Arrays.copyOfRange(b, from, to);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void fragmentedRequestsAreReassembled(Kind kind) {
    Capturing responder = new Capturing();
    acceptedServer(opts().build(), responder);
    byte[] md = Wire.pattern(250, 1);
    byte[] data = Wire.pattern(400, 2);
    int n = kind == Kind.STREAM || kind == Kind.CHANNEL ? 5 : 0;
    transport.inject(
        Wire.frame(1, kind.type, Frames.FLAG_FOLLOWS, n, slice(md, 0, 100), null),
        Wire.frame(1, FrameType.PAYLOAD, Frames.FLAG_FOLLOWS | Frames.FLAG_NEXT, 0, slice(md, 100, 250), slice(data, 0, 50)));
    assertThat(responder.requests).isEmpty();
    transport.inject(
        Wire.frame(1, FrameType.PAYLOAD, Frames.FLAG_FOLLOWS | Frames.FLAG_NEXT, 0, null, slice(data, 50, 300)),
        Wire.frame(1, FrameType.PAYLOAD, Frames.FLAG_NEXT, 0, null, slice(data, 300, 400)));
    Object[] got = responder.take();
    assertThat(got[1]).isEqualTo(md);
    assertThat(got[2]).isEqualTo(data);
    transport.assertNothingSent();
    if (kind == Kind.STREAM || kind == Kind.CHANNEL) {
      // The initial N of the first fragment becomes the handler's demand.
      StreamHandle h = (StreamHandle) got[3];
      for (int i = 0; i < 5; i++) {
        h.next(msg("r" + i));
      }
      assertThat(transport.drain()).hasSize(5);
    }
    if (kind == Kind.FNF) {
      assertThat(Loop.call(loop, conn::activeStreams)).isZero();
    }
  }

  @Test
  void requestNDuringReassemblyOfTheRequestAddsToItsInitialN() {
    Producers.Counting producer = new Producers.Counting(-1);
    acceptedServer(opts().build(), producer);
    transport.inject(
        Wire.frame(1, FrameType.REQUEST_STREAM, Frames.FLAG_FOLLOWS, 2, null, Wire.b("he")),
        Wire.requestN(1, 3));
    transport.assertNothingSent();
    assertThat(producer.events).isEmpty();
    transport.inject(Wire.frame(1, FrameType.PAYLOAD, Frames.FLAG_NEXT, 0, null, Wire.b("llo")));
    assertThat(producer.take()).isEqualTo("request-stream:hello");
    List<Wire.Sent> sent = transport.drain();
    assertThat(sent).hasSize(5).allSatisfy(p -> assertThat(p.type()).isEqualTo(FrameType.PAYLOAD));
    assertThat(producer.requested).hasValue(5);
  }

  @Test
  void fragmentedChannelRequestWithCompleteOnTheLastFragment() {
    Capturing responder = new Capturing();
    acceptedServer(opts().build(), responder);
    transport.inject(
        Wire.frame(1, FrameType.REQUEST_CHANNEL, Frames.FLAG_FOLLOWS, 1, null, Wire.b("abc")),
        Wire.frame(1, FrameType.PAYLOAD, Frames.FLAG_NEXT | Frames.FLAG_COMPLETE, 0, null, Wire.b("def")));
    Object[] got = responder.take();
    assertThat(new String((byte[]) got[2])).isEqualTo("abcdef");
    assertThat(got[4]).as("inbound complete").isEqualTo(true);
  }

  @Test
  void fragmentedPayloadCountsOnceAgainstCredit() {
    client(opts().build());
    Recorder r = new Recorder();
    Loop.run(loop, () -> conn.requestStream(msg("s"), 1, r));
    transport.next(FrameType.REQUEST_STREAM);
    transport.inject(
        Wire.frame(1, FrameType.PAYLOAD, Frames.FLAG_FOLLOWS | Frames.FLAG_NEXT, 0, Wire.b("m1"), Wire.b("d1")),
        Wire.frame(1, FrameType.PAYLOAD, Frames.FLAG_FOLLOWS | Frames.FLAG_NEXT, 0, Wire.b("m2"), Wire.b("d2")),
        Wire.frame(1, FrameType.PAYLOAD, Frames.FLAG_NEXT | Frames.FLAG_COMPLETE, 0, null, Wire.b("d3")));
    Ev e = r.take("next");
    assertThat(e.metadata()).isEqualTo("m1m2");
    assertThat(e.data()).isEqualTo("d1d2d3");
    r.take("complete");
    transport.assertNothingSent();
  }

  @Test
  void fragmentsOfTwoStreamsInterleave() {
    client(opts().build());
    Recorder a = new Recorder();
    Recorder b = new Recorder();
    Loop.run(
        loop,
        () -> {
          conn.requestStream(msg("a"), 5, a);
          conn.requestStream(msg("b"), 5, b);
        });
    transport.next(FrameType.REQUEST_STREAM);
    transport.next(FrameType.REQUEST_STREAM);
    int fn = Frames.FLAG_FOLLOWS | Frames.FLAG_NEXT;
    transport.inject(
        Wire.frame(1, FrameType.PAYLOAD, fn, 0, null, Wire.b("a1")),
        Wire.frame(3, FrameType.PAYLOAD, fn, 0, null, Wire.b("b1")),
        Wire.frame(1, FrameType.PAYLOAD, Frames.FLAG_NEXT, 0, null, Wire.b("a2")),
        Wire.frame(3, FrameType.PAYLOAD, fn, 0, null, Wire.b("b2")),
        Wire.frame(3, FrameType.PAYLOAD, Frames.FLAG_NEXT, 0, null, Wire.b("b3")));
    assertThat(a.take("next").data()).isEqualTo("a1a2");
    assertThat(b.take("next").data()).isEqualTo("b1b2b3");
  }

  @Test
  void followsWithCompleteIsNotAFragment() {
    client(opts().build());
    Recorder r = new Recorder();
    Loop.run(loop, () -> conn.requestStream(msg("s"), 5, r));
    transport.next(FrameType.REQUEST_STREAM);
    transport.inject(
        Wire.frame(1, FrameType.PAYLOAD, Frames.FLAG_FOLLOWS | Frames.FLAG_NEXT | Frames.FLAG_COMPLETE, 0, null, Wire.b("only")));
    assertThat(r.take("next").data()).isEqualTo("only");
    r.take("complete");
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void reassemblyBeyondTheLimitFailsTheStreamOnlyWithInvalid(boolean request) {
    if (request) {
      Capturing responder = new Capturing();
      acceptedServer(opts().maxReassembledSize(100).build(), responder);
      transport.inject(
          Wire.frame(1, FrameType.REQUEST_RESPONSE, Frames.FLAG_FOLLOWS, 0, null, Wire.pattern(60, 1)),
          Wire.frame(1, FrameType.PAYLOAD, Frames.FLAG_FOLLOWS | Frames.FLAG_NEXT, 0, null, Wire.pattern(60, 2)),
          Wire.frame(1, FrameType.PAYLOAD, Frames.FLAG_NEXT, 0, null, Wire.pattern(60, 3)));
      Wire.Sent e = transport.next(FrameType.ERROR);
      assertThat(e.streamId()).isEqualTo(1);
      assertThat(ErrorCode.name(e.errorCode())).isEqualTo("INVALID");
      transport.assertNothingSent();
      assertThat(responder.requests).isEmpty();
      // Still usable: a small request goes through.
      transport.inject(Wire.requestResponse(3, null, "small"));
      Object[] got = responder.take();
      assertThat(new String((byte[]) got[2])).isEqualTo("small");
    } else {
      client(opts().maxReassembledSize(100).build());
      Recorder r = new Recorder();
      Loop.run(loop, () -> conn.requestStream(msg("s"), 5, r));
      transport.next(FrameType.REQUEST_STREAM);
      transport.inject(
          Wire.frame(1, FrameType.PAYLOAD, Frames.FLAG_FOLLOWS | Frames.FLAG_NEXT, 0, Wire.pattern(50, 1), Wire.pattern(30, 1)),
          Wire.frame(1, FrameType.PAYLOAD, Frames.FLAG_FOLLOWS | Frames.FLAG_NEXT, 0, null, Wire.pattern(30, 2)));
      Ev e = r.take("error");
      assertThat(e.code()).isEqualTo(ErrorCode.INVALID);
      assertThat(transport.next(FrameType.CANCEL).streamId()).isEqualTo(1);
      transport.inject(Wire.frame(1, FrameType.PAYLOAD, Frames.FLAG_NEXT, 0, null, Wire.pattern(30, 3)));
      transport.assertNothingSent();
      assertThat(r.events).isEmpty();
      Recorder r2 = new Recorder();
      Loop.run(loop, () -> conn.requestResponse(msg("q"), r2));
      transport.next(FrameType.REQUEST_RESPONSE);
      transport.inject(Wire.payload(3, Frames.FLAG_NEXT | Frames.FLAG_COMPLETE, null, "fine"));
      assertThat(r2.take("next").data()).isEqualTo("fine");
    }
    assertThat(transport.isClosed()).isFalse();
  }

  @Test
  void emptyFollowsFragmentIsInvalid() {
    Capturing responder = new Capturing();
    acceptedServer(opts().build(), responder);
    transport.inject(
        Wire.frame(1, FrameType.REQUEST_RESPONSE, Frames.FLAG_FOLLOWS, 0, null, Wire.b("abc")),
        Wire.frame(1, FrameType.PAYLOAD, Frames.FLAG_FOLLOWS | Frames.FLAG_NEXT, 0, null, new byte[0]));
    Wire.Sent e = transport.next(FrameType.ERROR);
    assertThat(e.streamId()).isEqualTo(1);
    assertThat(e.errorCode()).isEqualTo(ErrorCode.INVALID);
    assertThat(responder.requests).isEmpty();
  }

  @Test
  void cancelDuringReassemblyReleasesTheFragments() {
    Capturing responder = new Capturing();
    acceptedServer(opts().build(), responder);
    transport.inject(
        Wire.frame(1, FrameType.REQUEST_STREAM, Frames.FLAG_FOLLOWS, 3, Wire.b("md"), Wire.pattern(100, 1)),
        Wire.frame(1, FrameType.PAYLOAD, Frames.FLAG_FOLLOWS | Frames.FLAG_NEXT, 0, null, Wire.pattern(100, 2)));
    transport.inject(Wire.cancel(1));
    transport.inject(Wire.frame(1, FrameType.PAYLOAD, Frames.FLAG_NEXT, 0, null, Wire.pattern(100, 3)));
    transport.assertNothingSent();
    assertThat(responder.requests).isEmpty();
    assertThat(Loop.call(loop, conn::activeStreams)).isZero();
  }

  @Test
  void connectionCloseDuringReassemblyReleasesTheFragments() {
    Capturing responder = new Capturing();
    acceptedServer(opts().build(), responder);
    transport.inject(
        Wire.frame(1, FrameType.REQUEST_CHANNEL, Frames.FLAG_FOLLOWS, 3, Wire.b("md"), Wire.pattern(100, 1)));
    transport.peerClosed();
    Loop.settle(loop);
    assertThat(responder.requests).isEmpty();
    // The fragments held for reassembly are released (the leak check would report them).
  }

  /**
   * A flush made while the fragments of one message are encoded (a full batch goes out) can make
   * the transport writable from inside the flush, as netty does. A blocked stream pumped right
   * there whose producer answers at once would put its next frame between the fragments of the
   * message before it: the peer would rebuild garbage. The stream here is that very stream.
   */
  @Test
  void aWritabilityChangeInsideAMidMessageFlushPutsNoFrameBetweenTheFragments() {
    writabilityInsideAMidMessageBatch(false, Framing.LENGTH_PREFIXED);
  }

  /**
   * On a transport that takes one frame per write each fragment is its own write: a writability
   * change reported from inside one of them must not pump a producer before the next fragment.
   */
  @Test
  void aWritabilityChangeInsideTheWriteOfAFragmentPutsNoFrameBetweenTheFragments() {
    writabilityInsideAMidMessageBatch(true, Framing.FRAME_PER_WRITE);
  }

  /**
   * As above, the writability reported from inside the write of the full batch, before its flush
   * (a resumable session reports it from its write when its store or its link changes).
   */
  @Test
  void aWritabilityChangeInsideAMidMessageWritePutsNoFrameBetweenTheFragments() {
    writabilityInsideAMidMessageBatch(true, Framing.LENGTH_PREFIXED);
  }

  /**
   * A payload too large to copy goes as its own buffers behind a head written into the batch. A
   * writability change reported from inside the write of that batch must not pump a producer whose
   * frame would land in the batch the transport now holds, or between the head and the payload.
   */
  @Test
  void aWritabilityChangeInsideTheWriteOfALargePayloadPutsNoFrameInsideIt() {
    client(opts().build(), r -> new Responder() {}, Framing.LENGTH_PREFIXED);
    StreamHandle[] handle = new StreamHandle[1];
    int[] grants = new int[1];
    StreamListener producer =
        new Recorder() {
          @Override
          public void onRequest(long n) {
            super.onRequest(n);
            if (++grants[0] > 1) {
              handle[0].next(msg("after"));
            }
          }
        };
    handle[0] = Loop.call(loop, () -> conn.requestChannel(msg("first"), false, 1, producer));
    int id = transport.next(FrameType.REQUEST_CHANNEL).streamId();
    transport.inject(Wire.requestN(id, 1));
    Loop.settle(loop);
    transport.setWritable(false);
    transport.inject(Wire.requestN(id, 10)); // more credit while unwritable: the stream blocks
    Loop.settle(loop);
    assertThat(grants[0]).isEqualTo(1);
    transport.writableInsideWrite = true;

    int size = 10 * 1024; // above the copy threshold, under the MTU: head in the batch, then the payload
    handle[0].next(Message.of(null, Wire.bytes(Wire.pattern(size, 9))));

    List<Wire.Sent> frames = new ArrayList<>();
    for (Wire.Sent f : transport.drain()) {
      if (f.streamId() == id) {
        frames.add(f);
      }
    }
    assertThat(grants[0]).as("the blocked stream was pumped").isGreaterThan(1);
    assertThat(frames).as("the large PAYLOAD, then what the producer sent after it").hasSizeGreaterThan(1);
    assertThat(frames.get(0).data()).isEqualTo(Wire.pattern(size, 9));
    assertThat(frames.subList(1, frames.size()))
        .allSatisfy(f -> assertThat(f.dataUtf8()).isEqualTo("after"));
  }

  private void writabilityInsideAMidMessageBatch(boolean insideWrite, Framing framing) {
    client(opts().build(), r -> new Responder() {}, framing);
    StreamHandle[] handle = new StreamHandle[1];
    int[] grants = new int[1];
    StreamListener producer =
        new Recorder() {
          @Override
          public void onRequest(long n) {
            super.onRequest(n);
            if (++grants[0] > 1) {
              handle[0].next(msg("after")); // a producer that answers each grant at once
            }
          }
        };
    handle[0] = Loop.call(loop, () -> conn.requestChannel(msg("first"), false, 1, producer));
    int id = transport.next(FrameType.REQUEST_CHANNEL).streamId();
    transport.inject(Wire.requestN(id, 1)); // the producer holds one message of credit
    Loop.settle(loop);
    assertThat(grants[0]).isEqualTo(1);
    transport.setWritable(false);
    transport.inject(Wire.requestN(id, 10)); // more credit while unwritable: the stream blocks
    Loop.settle(loop);
    assertThat(grants[0]).isEqualTo(1);
    if (insideWrite) {
      transport.writableInsideWrite = true;
    } else {
      transport.writableInsideFlush = true;
    }

    int size = 300 * 1024; // several fragments at the 64 KiB MTU, so batches fill mid-message
    handle[0].next(Message.of(null, Wire.bytes(Wire.pattern(size, 7)))); // queued from this thread

    List<Wire.Sent> frames = new ArrayList<>();
    for (Wire.Sent f : transport.drain()) {
      if (f.streamId() == id) {
        frames.add(f);
      }
    }
    assertThat(grants[0]).as("the blocked stream was pumped").isGreaterThan(1);
    int fragments = 0;
    int bytes = 0;
    for (Wire.Sent f : frames) {
      boolean follows = f.has(Frames.FLAG_FOLLOWS);
      fragments++;
      bytes += f.data().length;
      if (!follows) {
        break;
      }
    }
    assertThat(bytes)
        .as("the frames up to the first without FOLLOWS are the fragments of one message: %s", frames)
        .isEqualTo(size);
    assertThat(fragments).isGreaterThan(2);
    assertThat(frames.subList(fragments, frames.size()))
        .as("what the producer sent after it")
        .isNotEmpty()
        .allSatisfy(f -> assertThat(f.dataUtf8()).isEqualTo("after"));
  }
}
