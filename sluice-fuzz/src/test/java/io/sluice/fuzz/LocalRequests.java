package io.sluice.fuzz;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;

/**
 * Requests the fuzzed connection starts towards the fuzzer (its peer), so that the fuzzer's frames
 * also reach the requester paths: a request-response, a request-stream and a request-channel
 * (initial demand 2 each, further demand of one per message received, bounded), a
 * fire-and-forget and a metadata push. A client's streams get ids 1, 3, 5 (then 7 for the FNF); a
 * server's 2, 4, 6 (then 8). The seed corpus answers on those ids.
 */
final class LocalRequests {
  /** Most further demand a local stream or channel grants (one per message received). */
  static final int MAX_EXTRA_DEMAND = 16;
  /** Messages the local channel sends after its first one. */
  static final int CHANNEL_MESSAGES = 3;

  private LocalRequests() {}

  static void start(Requester requester, ByteBufAllocator alloc) {
    CheckedHandle.call(
        () -> {
          requester.requestResponse(Message.utf8(alloc, "rr"), new Receiver(null));
          Receiver stream = new Receiver(null);
          stream.handle =
              CheckedHandle.of(requester.requestStream(Message.utf8(alloc, "m", "rs"), 2, stream));
          ChannelSender channel = new ChannelSender(alloc);
          channel.handle =
              CheckedHandle.of(
                  requester.requestChannel(Message.utf8(alloc, "rc"), false, 2, channel));
          requester.fireAndForget(Message.utf8(alloc, "fnf"), new Receiver(null));
          requester.metadataPush(
              Message.of(Message.utf8(alloc, "mp").data(), Unpooled.EMPTY_BUFFER),
              new Receiver(null));
        });
  }

  /** Releases what it receives and asks for one more message each time, up to a bound. */
  static class Receiver implements StreamListener {
    StreamHandle handle;
    private int extra;

    Receiver(StreamHandle handle) {
      this.handle = handle;
    }

    @Override
    public void onNext(Message message) {
      message.release();
      if (handle != null && extra < MAX_EXTRA_DEMAND) {
        extra++;
        handle.request(1);
      }
    }

    @Override
    public void onComplete() {}

    @Override
    public void onError(Throwable cause) {}
  }

  /** A channel requester that sends a few messages as the peer grants demand, then completes. */
  static final class ChannelSender extends Receiver {
    private final ByteBufAllocator alloc;
    private int sent;

    ChannelSender(ByteBufAllocator alloc) {
      super(null);
      this.alloc = alloc;
    }

    @Override
    public void onRequest(long n) {
      if (handle == null) {
        return;
      }
      while (n-- > 0 && sent < CHANNEL_MESSAGES) {
        sent++;
        if (sent == CHANNEL_MESSAGES) {
          handle.nextAndComplete(Message.utf8(alloc, "c" + sent));
        } else {
          handle.next(Message.utf8(alloc, "c" + sent));
        }
      }
    }
  }
}
