package io.sluice.transport.grpc.internal.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.sluice.Message;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.rsocket.CallMetadataCodec;
import io.sluice.transport.http2.internal.H2Handler;
import io.sluice.transport.http2.internal.Http2Options;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A channel call's outbound demand follows the server's HTTP/2 window, checked in an embedded
 * channel (everything runs inline, so no timing): while the server grants no window beyond HTTP/2's
 * initial 65,535 bytes, the client's request publisher is asked for a bounded number of messages;
 * a WINDOW_UPDATE lets it go on.
 */
class ClientCallFlowControlTest {
  private static final int SIZE = 16 * 1024;

  private EmbeddedChannel ch;
  private ClientConnection conn;

  /** Records the signals; sends a message for each request granted, as a flavor's outbound does. */
  private static final class Sender implements StreamListener {
    StreamHandle handle;
    long granted;
    long sent;
    final List<Throwable> errors = new ArrayList<>();
    private long owed;
    private boolean sending;

    @Override
    public void onNext(Message message) {
      message.release();
    }

    @Override
    public void onComplete() {}

    @Override
    public void onError(Throwable cause) {
      errors.add(cause);
    }

    @Override
    public void onRequest(long n) {
      granted += n;
      owed += n;
      if (sending || handle == null) {
        return; // the loop below sends it
      }
      sending = true;
      try {
        // Bounded: a client that grants without end would be stopped here, and the test fails.
        for (int i = 0; i < 10_000 && owed > 0; i++) {
          owed--;
          sent++;
          handle.next(Message.of(Unpooled.wrappedBuffer(new byte[SIZE])));
        }
      } finally {
        sending = false;
      }
    }
  }

  @BeforeEach
  void connect() {
    H2Handler h2 = H2Handler.build(false, Http2Options.limits(0, 1 << 20, 8192, false), null);
    ch = new EmbeddedChannel(h2);
    ch.writeInbound(frame(4, 0, 0, Unpooled.EMPTY_BUFFER)); // the server's SETTINGS: defaults
    conn = new ClientConnection(h2, AsciiString.of("http"), AsciiString.of("test:1"), 1 << 20, "the test server");
  }

  @AfterEach
  void close() {
    ch.finishAndReleaseAll();
  }

  /** An HTTP/2 frame as the server would send it (RFC 9113 4.1). */
  private static ByteBuf frame(int type, int flags, int stream, ByteBuf payload) {
    ByteBuf b = Unpooled.buffer(9 + payload.readableBytes());
    b.writeMedium(payload.readableBytes()).writeByte(type).writeByte(flags).writeInt(stream).writeBytes(payload);
    payload.release();
    return b;
  }

  private static ByteBuf windowUpdate(int stream, int increment) {
    return frame(8, 0, stream, Unpooled.buffer(4).writeInt(increment));
  }

  private void dropWritten() {
    ch.runPendingTasks(); // the client's flush
    for (Object o; (o = ch.readOutbound()) != null; ) {
      ReferenceCountUtil.release(o);
    }
  }

  @Test
  void requestsAreGrantedOnlyAsTheServersWindowTakesThem() {
    Sender sender = new Sender();
    Message first =
        Message.of(CallMetadataCodec.encode(ch.alloc(), CallMetadata.of("test.Svc", "Upload")), Unpooled.wrappedBuffer(new byte[SIZE]));
    ClientCall call = ClientCall.start(conn, ClientCall.REQUEST_CHANNEL, first, false, 1, sender);
    sender.handle = call;
    sender.onRequest(0); // sends what was granted while the handle was not known yet
    dropWritten();

    // 65,535 bytes of window (stream and connection) take four messages of 16 KiB; what is
    // granted beyond waits unsent, and no more is granted once 32 KiB wait.
    long bound = (65_535L + ClientCall.OUTBOUND_LOW_WATER) / SIZE + ClientCall.OUTBOUND_BATCH + 1;
    assertThat(sender.errors).isEmpty();
    assertThat(sender.sent).isEqualTo(sender.granted).isBetween(4L, bound);
    long before = sender.granted;

    ch.writeInbound(windowUpdate(0, 4 << 20));
    int stream = ch.pipeline().get(H2Handler.class).connection().local().lastStreamCreated();
    ch.writeInbound(windowUpdate(stream, 4 << 20));
    dropWritten();
    assertThat(sender.granted).as("granted once the window opened").isGreaterThan(before);
    long opened = (4L << 20) + 65_535L;
    assertThat(sender.granted).isBetween(opened / SIZE, (opened + ClientCall.OUTBOUND_LOW_WATER) / SIZE + ClientCall.OUTBOUND_BATCH + 2);
    assertThat(sender.errors).isEmpty();
    call.cancel();
    dropWritten();
  }
}
