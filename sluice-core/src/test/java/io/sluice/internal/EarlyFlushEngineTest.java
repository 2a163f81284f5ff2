package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.internal.frame.FrameType;
import io.sluice.transport.DuplexTransport.Framing;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * When answers leave while a read batch is being handled: once {@link
 * FrameWriter#EARLY_FLUSH_FRAMES} answers wait in the batch buffer, they are flushed after the
 * inbound frame being handled, so the peer works on them while we handle the rest of the batch (request-response
 * pipelines otherwise run both ends in turn); below that, everything leaves with the batch's one
 * flush.
 */
class EarlyFlushEngineTest extends EngineTestBase {
  /** Answers every request-response at once with {@code size} bytes; notes what was flushed. */
  private final class Answering implements Responder {
    final int size;
    final List<Integer> answersFlushedAtEachRequest = new CopyOnWriteArrayList<>();

    Answering(int size) {
      this.size = size;
    }

    @Override
    public StreamListener requestResponse(Message request, StreamHandle response) {
      request.release();
      answersFlushedAtEachRequest.add(transport.sent.size());
      // Pooled, so the leak detector tracks it: the core must release it once it is written.
      response.nextAndComplete(Message.of(Wire.ALLOC.buffer(size).writeZero(size)));
      return StreamListener.DISCARDING;
    }
  }

  private static ByteBuf[] requests(int count) {
    ByteBuf[] frames = new ByteBuf[count];
    for (int i = 0; i < count; i++) {
      frames[i] = Wire.requestResponse(1 + 2 * i, null, "q" + i);
    }
    return frames;
  }

  private Answering acceptedPrefixedServer(int size) {
    Answering handler = new Answering(size);
    server(opts().build(), handler, Framing.LENGTH_PREFIXED);
    transport.inject(Wire.setup());
    transport.assertNothingSent();
    return handler;
  }

  @Test
  void answersLeavePartWayThroughAReadBatchOnceEnoughWait() {
    int size = 100;
    int perFlush = FrameWriter.EARLY_FLUSH_FRAMES;
    int count = 3 * perFlush + perFlush / 2;
    Answering handler = acceptedPrefixedServer(size);
    transport.inject(requests(count));
    Loop.settle(loop);

    // Request i sees every answer flushed before it: the answers leave in runs of perFlush.
    assertThat(handler.answersFlushedAtEachRequest).hasSize(count);
    for (int i = 0; i < count; i++) {
      assertThat(handler.answersFlushedAtEachRequest.get(i))
          .as("answers flushed when request %d is handled", i)
          .isEqualTo(i / perFlush * perFlush);
    }
    List<Wire.Sent> sent = transport.drain();
    assertThat(sent).hasSize(count).allSatisfy(s -> {
      assertThat(s.type()).isEqualTo(FrameType.PAYLOAD);
      assertThat(s.data()).hasSize(size);
    });
    assertThat(sent).extracting(Wire.Sent::streamId).doesNotHaveDuplicates();
  }

  @Test
  void noEarlyFlushWhileThePeerHasNotTakenWhatWasSentBefore() {
    // A peer that reads nothing is not waiting for our answers: flushing part-way through each
    // batch would only hand the kernel more small writes. The answers wait for the batch's end.
    int size = 100;
    int perFlush = FrameWriter.EARLY_FLUSH_FRAMES;
    Answering handler = acceptedPrefixedServer(size);
    transport.setPeerReading(false);
    transport.inject(Wire.requestResponse(1, null, "first"));
    Loop.settle(loop);
    assertThat(transport.drain()).hasSize(1); // flushed, never taken by the peer

    int count = 3 * perFlush;
    ByteBuf[] more = new ByteBuf[count];
    for (int i = 0; i < count; i++) {
      more[i] = Wire.requestResponse(3 + 2 * i, null, "q" + i);
    }
    transport.inject(more);
    Loop.settle(loop);
    assertThat(handler.answersFlushedAtEachRequest.subList(1, 1 + count)).containsOnly(0);
    assertThat(transport.drain()).hasSize(count);
  }

  @Test
  void aBatchWhoseAnswersStayBelowTheThresholdIsFlushedOnceAtItsEnd() {
    int size = 8;
    int count = FrameWriter.EARLY_FLUSH_FRAMES - 1;
    Answering handler = acceptedPrefixedServer(size);
    transport.inject(requests(count));
    Loop.settle(loop);

    assertThat(handler.answersFlushedAtEachRequest).hasSize(count).containsOnly(0);
    assertThat(transport.drain()).hasSize(count);
  }
}
