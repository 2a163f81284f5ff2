package io.sluice.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.internal.SluiceConnection;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.test.FrameBuilder;
import io.sluice.transport.netty.internal.NettyDuplexTransport;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression test for a finding of the fuzz harness: with leasing, {@code ready()} completed on
 * the first LEASE before the lease's request count and TTL were recorded, so a request made as
 * soon as the connection was ready (from a dependent of {@code ready()}, e.g. the future {@code
 * Connections.connect} returns, on the event loop) was refused with "lease exhausted or expired".
 */
class LeaseReadyTest {
  @Test
  void aRequestMadeWhenReadyCompletesUsesTheNewLease() {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.config().setAllocator(PooledByteBufAllocator.DEFAULT);
    NettyDuplexTransport t = new NettyDuplexTransport(ch);
    ch.pipeline().addLast(t);
    SluiceConnection c =
        SluiceConnection.client(
            t,
            ConnectionOptions.builder().lease(true).build(),
            ClientSetup.defaults(),
            r -> new Responder() {});
    List<Throwable> errors = new ArrayList<>();
    c.ready()
        .thenRun(
            () ->
                c.requestResponse(
                    Message.utf8(c.alloc(), "hi"),
                    new StreamListener() {
                      @Override
                      public void onNext(Message m) {
                        m.release();
                      }

                      @Override
                      public void onComplete() {}

                      @Override
                      public void onError(Throwable cause) {
                        errors.add(cause);
                      }
                    }));
    try {
      ch.writeInbound(
          FrameBuilder.lease(30_000, 10).buildLengthPrefixed(PooledByteBufAllocator.DEFAULT));
      ch.runPendingTasks();
      assertThat(c.ready()).isCompleted();
      assertThat(errors).isEmpty();
      assertThat(sentTypes(ch)).contains(FrameType.name(FrameType.REQUEST_RESPONSE));
    } finally {
      c.dispose();
      ch.runPendingTasks();
      ch.finishAndReleaseAll();
    }
  }

  private static List<String> sentTypes(EmbeddedChannel ch) {
    List<String> types = new ArrayList<>();
    for (ByteBuf b; (b = ch.readOutbound()) != null; ) {
      try {
        while (b.readableBytes() >= 3) {
          int length = b.readUnsignedMedium();
          ByteBuf f = b.readSlice(length);
          types.add(FrameType.name(Frames.type(f)));
        }
      } finally {
        b.release();
      }
    }
    return types;
  }
}
