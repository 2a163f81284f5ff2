package io.sluice.fuzz;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.exceptions.ApplicationErrorException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A responder that answers every interaction, so that the fuzzer reaches the responder paths of
 * the engine. What it does with a request is picked by the first data byte of the request (so the
 * fuzzer can choose), and it is always bounded: a stream sends at most three items, a channel
 * echoes what arrives and queues at most four messages while it has no demand.
 *
 * <p>First data byte {@code s} of the request:
 *
 * <ul>
 *   <li>request-response: {@code s & 3} = 0 echo, 1 error, 2 never answer, 3 cancel. An echo is
 *       padded by {@code s & 0xC}: 4 to 3000 bytes (written as its own buffer, or fragmented),
 *       8 to 2000 bytes (copied into the write batch: a few fill it), 0xC to 70000 bytes (more
 *       than a whole batch), so small inputs reach the large-payload, fragmentation and
 *       batch-overflow writes.
 *   <li>request-stream: {@code s & 3} items (0: complete at once), twenty times as many when
 *       {@code s & 8} (more than the outbound window, so the pump yields and resumes in later
 *       tasks), then complete, or error when {@code s & 4}.
 *   <li>request-channel: {@code s & 3} = 1 error at once, 2 cancel after echoing one message,
 *       otherwise echo everything and complete after the requester completes.
 * </ul>
 *
 * <p>Every message it receives is released or handed back to the engine. Streams it still holds
 * something for are listed by {@link #holding()}: after the connection closed that list must be
 * empty, because the engine must give every open stream a terminal signal.
 */
class EchoResponder implements Responder {
  static final int BIG_ANSWER = 3000;
  static final int MEDIUM_ANSWER = 2000;
  static final int HUGE_ANSWER = 70_000;
  private static final int MAX_QUEUED = 4;

  private final ByteBufAllocator alloc;
  private final List<Holder> holders = new ArrayList<>();
  private boolean closed;

  EchoResponder(ByteBufAllocator alloc) {
    this.alloc = alloc;
  }

  @Override
  public void onClose(Throwable cause) {
    closed = true;
  }

  /** True once the engine called {@link #onClose}. */
  boolean closed() {
    return closed;
  }

  /** Streams that still hold messages (or owe a terminal signal), described. */
  List<String> holding() {
    List<String> out = new ArrayList<>();
    for (Holder h : holders) {
      if (h.holds()) {
        out.add(h.toString());
      }
    }
    return out;
  }

  static int selector(Message m) {
    ByteBuf d = m.data();
    return d.isReadable() ? d.getUnsignedByte(d.readerIndex()) : 0;
  }

  private Message copy(Message m, int minSize) {
    ByteBuf md = null;
    if (m.hasMetadata()) {
      md = alloc.buffer(m.metadata().readableBytes());
      md.writeBytes(m.metadata(), m.metadata().readerIndex(), m.metadata().readableBytes());
    }
    int n = m.data().readableBytes();
    ByteBuf data = alloc.buffer(Math.max(n, minSize));
    data.writeBytes(m.data(), m.data().readerIndex(), n);
    if (minSize > n) {
      data.writeZero(minSize - n);
    }
    return Message.of(md, data);
  }

  @Override
  public void fireAndForget(Message request) {
    request.release();
  }

  @Override
  public void metadataPush(Message metadata) {
    metadata.release();
  }

  @Override
  public StreamListener requestResponse(Message request, StreamHandle handle) {
    StreamHandle response = CheckedHandle.of(handle);
    int s = selector(request);
    switch (s & 3) {
      case 0:
        {
          int pad = s & 0xC;
          if (pad == 0) {
            response.nextAndComplete(request);
          } else {
            Message big =
                copy(request, pad == 4 ? BIG_ANSWER : pad == 8 ? MEDIUM_ANSWER : HUGE_ANSWER);
            request.release();
            response.nextAndComplete(big);
          }
        }
        return new Ignoring("request-response (answered)");
      case 1:
        request.release();
        response.error(new ApplicationErrorException("echo: failing as asked"));
        return new Ignoring("request-response (failed)");
      case 2:
        {
          HeldRequest held = new HeldRequest(request);
          holders.add(held);
          return held;
        }
      default:
        request.release();
        response.cancel();
        return new Ignoring("request-response (canceled)");
    }
  }

  @Override
  public StreamListener requestStream(Message request, StreamHandle handle) {
    StreamHandle stream = CheckedHandle.of(handle);
    int s = selector(request);
    int count = (s & 3) * ((s & 8) != 0 ? 20 : 1);
    boolean fail = (s & 4) != 0;
    if (count == 0) {
      request.release();
      if (fail) {
        stream.error(new ApplicationErrorException("echo: empty stream fails"));
      } else {
        stream.complete();
      }
      return new Ignoring("request-stream (empty)");
    }
    StreamProducer p = new StreamProducer(request, stream, count, fail);
    holders.add(p);
    return p;
  }

  @Override
  public StreamListener requestChannel(
      Message first, boolean inboundComplete, StreamHandle handle) {
    StreamHandle channel = CheckedHandle.of(handle);
    int s = selector(first);
    if ((s & 3) == 1) {
      first.release();
      channel.error(new ApplicationErrorException("echo: channel fails at once"));
      return new Ignoring("request-channel (failed)");
    }
    ChannelEcho e = new ChannelEcho(first, inboundComplete, channel, (s & 3) == 2);
    holders.add(e);
    if (!inboundComplete) {
      channel.request(2);
    }
    return e;
  }

  /** Something that may hold messages until its stream ends. */
  private interface Holder {
    boolean holds();
  }

  /** A listener for a stream we already finished: releases anything that still arrives. */
  private static final class Ignoring implements StreamListener {
    private final String what;

    Ignoring(String what) {
      this.what = what;
    }

    @Override
    public void onNext(Message message) {
      message.release();
    }

    @Override
    public void onComplete() {}

    @Override
    public void onError(Throwable cause) {}

    @Override
    public String toString() {
      return what;
    }
  }

  /** A request-response we never answer: the request is held until the stream ends. */
  private static final class HeldRequest implements StreamListener, Holder {
    private Message request;

    HeldRequest(Message request) {
      this.request = request;
    }

    private void drop() {
      if (request != null) {
        request.release();
        request = null;
      }
    }

    @Override
    public boolean holds() {
      return request != null;
    }

    @Override
    public void onNext(Message message) {
      message.release();
    }

    @Override
    public void onComplete() {}

    @Override
    public void onError(Throwable cause) {
      drop();
    }

    @Override
    public void onCancel() {
      drop();
    }

    @Override
    public String toString() {
      return "unanswered request-response holding its request";
    }
  }

  /** Sends up to {@code count} copies of the request as demand arrives, then ends the stream. */
  private final class StreamProducer implements StreamListener, Holder {
    private Message request;
    private final StreamHandle stream;
    private int remaining;
    private final boolean fail;

    StreamProducer(Message request, StreamHandle stream, int count, boolean fail) {
      this.request = request;
      this.stream = stream;
      this.remaining = count;
      this.fail = fail;
    }

    private void drop() {
      if (request != null) {
        request.release();
        request = null;
      }
    }

    @Override
    public boolean holds() {
      return request != null;
    }

    @Override
    public void onRequest(long n) {
      while (n-- > 0 && remaining > 0 && request != null) {
        remaining--;
        Message item = copy(request, 0);
        if (remaining == 0) {
          drop();
          if (fail) {
            stream.next(item);
            stream.error(new ApplicationErrorException("echo: stream fails at its end"));
          } else {
            stream.nextAndComplete(item);
          }
          return;
        }
        stream.next(item);
      }
    }

    @Override
    public void onNext(Message message) {
      message.release();
    }

    @Override
    public void onComplete() {}

    @Override
    public void onError(Throwable cause) {
      drop();
    }

    @Override
    public void onCancel() {
      drop();
    }

    @Override
    public String toString() {
      return "request-stream producer with " + remaining + " items left, holding its request";
    }
  }

  /** Echoes each inbound message back as demand allows. */
  private static final class ChannelEcho implements StreamListener, Holder {
    private final ArrayDeque<Message> queue = new ArrayDeque<>();
    private final StreamHandle channel;
    private final boolean cancelAfterFirst;
    private boolean inboundDone;
    private boolean done;
    private boolean draining;
    private long demand;

    ChannelEcho(Message first, boolean inboundComplete, StreamHandle channel, boolean cancel) {
      this.queue.add(first);
      this.inboundDone = inboundComplete;
      this.channel = channel;
      this.cancelAfterFirst = cancel;
    }

    private void dropAll() {
      done = true;
      Message m;
      while ((m = queue.poll()) != null) {
        m.release();
      }
    }

    @Override
    public boolean holds() {
      return !queue.isEmpty();
    }

    private void drain() {
      if (draining) {
        return;
      }
      draining = true;
      try {
        while (!done && demand > 0 && !queue.isEmpty()) {
          demand--;
          channel.next(queue.poll());
          if (cancelAfterFirst) {
            dropAll();
            channel.cancel();
            return;
          }
        }
        if (!done && inboundDone && queue.isEmpty()) {
          done = true;
          channel.complete();
        }
      } finally {
        draining = false;
      }
    }

    @Override
    public void onRequest(long n) {
      demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
      drain();
    }

    @Override
    public void onNext(Message message) {
      if (done || queue.size() >= MAX_QUEUED) {
        message.release();
      } else {
        queue.add(message);
      }
      if (!done) {
        channel.request(1);
      }
      drain();
    }

    @Override
    public void onComplete() {
      inboundDone = true;
      drain();
    }

    @Override
    public void onError(Throwable cause) {
      dropAll();
    }

    @Override
    public void onCancel() {
      dropAll();
    }

    @Override
    public String toString() {
      return "request-channel echo holding " + queue.size() + " messages";
    }
  }
}
