package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.sluice.internal.frame.FrameType;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FramePrefix;
import io.sluice.transport.FrameReceiver;
import io.sluice.transport.FrameTooLargeException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link DuplexTransport} whose other end is the test: frames the engine writes are parsed (by
 * the u24 prefix on {@link Framing#LENGTH_PREFIXED}, by a {@link TestFramePrefix} on {@link
 * Framing#TRANSPORT_PREFIXED}) and queued as decoded {@link Wire.Sent} copies; frames the test
 * builds are handed to the engine on the loop as one read batch. Writability and reading are under
 * the test's control. Every buffer is released here.
 *
 * <p>On {@link Framing#TRANSPORT_PREFIXED} it treats what it is given as a WebSocket client does
 * (see {@link #scramble}): the bytes of every frame are changed in place in the batches the engine
 * hands over, and copied changed out of payload buffers, which it may not change.
 */
final class FakeTransport implements DuplexTransport {
  static final int DEFAULT_WAIT_SECONDS = (int) Loop.WAIT_SECONDS;

  final EventExecutor loop;
  final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
  private final Framing framing;

  private FrameReceiver receiver;
  private final List<ByteBuf> pending = new ArrayList<>();
  private CompositeByteBuf stream;

  final BlockingQueue<Wire.Sent> sent = new LinkedBlockingQueue<>();
  final CompletableFuture<Void> closed = new CompletableFuture<>();
  /** Largest frame written, without prefix. */
  volatile int largestFrame;
  /** Bytes written since the last flush (what a socket would hold queued). */
  volatile long unflushedBytes;
  final AtomicInteger readEnabledChanges = new AtomicInteger();
  /** TRANSPORT_PREFIXED: what {@link #framePrefix()} returns. */
  volatile FramePrefix framePrefix = new TestFramePrefix();
  /** TRANSPORT_PREFIXED: the capacity of each batch written (a batch that grew is a bug). */
  final List<Integer> batchCapacities = new CopyOnWriteArrayList<>();
  /** TRANSPORT_PREFIXED: the bytes in each batch written. */
  final List<Integer> batchSizes = new CopyOnWriteArrayList<>();
  /** TRANSPORT_PREFIXED: buffers written that continue a frame begun in an earlier buffer. */
  final List<ByteBuf> payloadWrites = new CopyOnWriteArrayList<>();

  // Loop-confined.
  /** Bytes written and not yet taken by the peer; above the high water mark we are unwritable. */
  private long queuedBytes;
  private int highWaterMark = Integer.MAX_VALUE;
  /** False: the peer reads nothing, so flushed bytes stay queued (a peer that never reads). */
  private boolean peerReading = true;
  private boolean writable = true;
  private boolean readEnabled = true;
  private boolean isClosed;
  /** TRANSPORT_PREFIXED: bytes of the frame being written that later writes carry. */
  private int frameRemaining;

  FakeTransport(EventExecutor loop, Framing framing) {
    this.loop = loop;
    this.framing = framing;
  }

  @Override
  public Framing framing() {
    return framing;
  }

  @Override
  public FramePrefix framePrefix() {
    assertThat(framing).as("framePrefix() asked of a %s transport", framing)
        .isEqualTo(Framing.TRANSPORT_PREFIXED);
    return framePrefix;
  }

  @Override
  public EventExecutor executor() {
    return loop;
  }

  @Override
  public ByteBufAllocator alloc() {
    return alloc;
  }

  @Override
  public void start(FrameReceiver receiver) {
    assertThat(loop.inEventLoop()).isTrue();
    this.receiver = receiver;
    this.highWaterMark = receiver.maxQueuedOutboundBytes();
    if (closedBeforeStart) {
      // As NettyDuplexTransport does when its channel closed before the connection started.
      isClosed = true;
      closed.complete(null);
      receiver.onClosed();
    }
  }

  /**
   * When true, {@link #start} finds the transport already closed and reports {@code onClosed()}
   * before it returns, as a netty channel that closed before the connection started does.
   */
  volatile boolean closedBeforeStart;

  /**
   * When true, a flush that finds the transport unwritable makes the peer take everything and
   * reports writability from inside the flush, as netty may (its outbound buffer fires the event
   * from the flush that drained it).
   */
  volatile boolean writableInsideFlush;

  /**
   * When true, the next write that finds the transport unwritable makes the peer take everything
   * and reports writability from inside that write (once), as a resumable session may from its
   * write when its store or its link changes.
   */
  volatile boolean writableInsideWrite;

  @Override
  public void write(ByteBuf buf) {
    assertThat(loop.inEventLoop()).as("write on the loop").isTrue();
    if (isClosed) {
      buf.release();
      return;
    }
    if (framing == Framing.TRANSPORT_PREFIXED) {
      buf = scramble(buf);
    }
    unflushedBytes += buf.readableBytes();
    queuedBytes += buf.readableBytes();
    pending.add(buf);
    if (writable && queuedBytes > highWaterMark) {
      writable = false; // as netty does, synchronously from write()
      receiver.onWritabilityChanged(false);
    } else if (writableInsideWrite && !writable) {
      writableInsideWrite = false;
      queuedBytes = 0;
      peerReading = true;
      writable = true;
      receiver.onWritabilityChanged(true);
    }
  }

  @Override
  public void flush() {
    assertThat(loop.inEventLoop()).as("flush on the loop").isTrue();
    unflushedBytes = 0;
    for (ByteBuf b : pending) {
      if (framing == Framing.FRAME_PER_WRITE) {
        record(b);
        b.release();
      } else {
        if (stream == null) {
          stream = alloc.compositeBuffer(Integer.MAX_VALUE);
        }
        stream.addComponent(true, b);
      }
    }
    pending.clear();
    if (peerReading) {
      peerTook();
    }
    if (stream != null && framing == Framing.TRANSPORT_PREFIXED) {
      parseTransportPrefixed();
      stream.discardReadComponents();
    } else if (stream != null) {
      while (stream.readableBytes() >= 3) {
        int length = stream.getUnsignedMedium(stream.readerIndex());
        if (stream.readableBytes() < 3 + length) {
          break;
        }
        stream.skipBytes(3);
        ByteBuf frame = stream.readRetainedSlice(length);
        try {
          record(frame);
        } finally {
          frame.release();
        }
      }
      stream.discardReadComponents();
    }
    if (writableInsideFlush && !writable && !isClosed) {
      queuedBytes = 0;
      peerReading = true;
      writable = true;
      receiver.onWritabilityChanged(true);
    }
  }

  /**
   * Changes the bytes of every frame (not the prefixes) as a WebSocket client's masking does: in
   * place in a batch, which the engine gave away; into a copy for a buffer that continues a frame
   * (the payload of a large frame: the application's buffer, maybe shared). {@link #flush} undoes
   * it before parsing.
   */
  private ByteBuf scramble(ByteBuf buf) {
    if (frameRemaining > 0) {
      int n = buf.readableBytes();
      assertThat(n).as("payload write within its frame").isLessThanOrEqualTo(frameRemaining);
      payloadWrites.add(buf);
      frameRemaining -= n;
      byte[] bytes = new byte[n];
      buf.getBytes(buf.readerIndex(), bytes);
      xor(bytes);
      buf.release();
      return alloc.buffer(n).writeBytes(bytes);
    }
    batchCapacities.add(buf.capacity());
    batchSizes.add(buf.readableBytes());
    int i = buf.readerIndex();
    int end = buf.writerIndex();
    while (i < end) {
      int prefixLength = TestFramePrefix.prefixLengthAt(buf, i);
      assertThat(end - i).as("a whole prefix in the batch").isGreaterThanOrEqualTo(prefixLength);
      int length = TestFramePrefix.frameLengthAt(buf, i);
      int from = i + prefixLength;
      int n = Math.min(length, end - from);
      byte[] bytes = new byte[n];
      buf.getBytes(from, bytes);
      xor(bytes);
      buf.setBytes(from, bytes);
      i = from + n;
      frameRemaining = length - n;
    }
    return buf;
  }

  private static final int SCRAMBLE = 0x5A;

  private static void xor(byte[] bytes) {
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] ^= SCRAMBLE;
    }
  }

  /** Parses the TRANSPORT_PREFIXED frames in {@link #stream}, undoing {@link #scramble}. */
  private void parseTransportPrefixed() {
    while (stream.isReadable()) {
      int prefixLength = TestFramePrefix.prefixLengthAt(stream, stream.readerIndex());
      if (stream.readableBytes() < prefixLength) {
        break;
      }
      int length = TestFramePrefix.frameLengthAt(stream, stream.readerIndex());
      if (stream.readableBytes() < prefixLength + length) {
        break;
      }
      stream.skipBytes(prefixLength);
      // In bulk: at PARANOID every access to a tracked buffer records where it came from.
      byte[] bytes = new byte[length];
      stream.readBytes(bytes);
      xor(bytes);
      ByteBuf frame = alloc.buffer(length).writeBytes(bytes);
      try {
        record(frame);
      } finally {
        frame.release();
      }
    }
  }

  /** The peer consumed everything queued: writable again, reported in a later loop turn. */
  private void peerTook() {
    queuedBytes = 0;
    if (!writable) {
      loop.execute(
          () -> {
            if (!writable && queuedBytes <= highWaterMark / 2 && !isClosed) {
              writable = true;
              receiver.onWritabilityChanged(true);
            }
          });
    }
  }

  /** Stops or resumes the peer's reading; resuming takes everything queued. */
  void setPeerReading(boolean reading) {
    Loop.run(
        loop,
        () -> {
          peerReading = reading;
          if (reading) {
            peerTook();
          }
        });
  }

  @Override
  public long unsentBytes() {
    return queuedBytes - unflushedBytes; // flushed, not taken by a peer that reads nothing
  }

  long queuedBytes() {
    return Loop.call(loop, () -> queuedBytes);
  }

  private void record(ByteBuf frame) {
    largestFrame = Math.max(largestFrame, frame.readableBytes());
    sent.add(Wire.Sent.decode(frame));
  }

  @Override
  public boolean isWritable() {
    return writable;
  }

  @Override
  public void setReadEnabled(boolean enabled) {
    if (readEnabled != enabled) {
      readEnabledChanges.incrementAndGet();
    }
    readEnabled = enabled;
    if (enabled) {
      loop.execute(this::deliver);
    }
  }

  boolean readEnabled() {
    return Loop.call(loop, () -> readEnabled);
  }

  @Override
  public void close() {
    assertThat(loop.inEventLoop()).isTrue();
    if (isClosed) {
      return;
    }
    flush();
    isClosed = true;
    ByteBuf unreadFrame;
    while ((unreadFrame = inbound.poll()) != null) {
      unreadFrame.release();
    }
    if (stream != null) {
      stream.release();
      stream = null;
    }
    closed.complete(null);
    if (closeReportedAtOnce) {
      receiver.onClosed(); // as the local transport does
      return;
    }
    // Like a socket: the close is reported in a later loop turn.
    loop.execute(
        () -> {
          if (receiver != null) {
            receiver.onClosed();
          }
        });
  }

  /** When true, close() reports onClosed() before it returns, as the local transport does. */
  volatile boolean closeReportedAtOnce;

  /** The peer went away (socket reset): reports the close without a frame. */
  void peerClosed() {
    Loop.run(
        loop,
        () -> {
          if (!isClosed) {
            isClosed = true;
            ByteBuf unreadFrame;
            while ((unreadFrame = inbound.poll()) != null) {
              unreadFrame.release();
            }
            if (stream != null) {
              stream.release();
              stream = null;
            }
            closed.complete(null);
            receiver.onClosed();
          }
        });
  }

  @Override
  public SocketAddress remoteAddress() {
    return InetSocketAddress.createUnresolved("fake-peer", 1);
  }

  // ---- the test's side -------------------------------------------------------------------------

  private final java.util.ArrayDeque<ByteBuf> inbound = new java.util.ArrayDeque<>();

  /**
   * Hands {@code frames} to the engine as one read batch, on the loop, checking their size like a
   * transport does; takes ownership of them. Returns once the engine handled them, or stopped
   * reading: frames not read yet wait until reading is enabled again, as on a socket.
   */
  void inject(ByteBuf... frames) {
    Loop.run(
        loop,
        () -> {
          for (ByteBuf f : frames) {
            inbound.add(f);
          }
          deliver();
        });
  }

  private void deliver() {
    boolean any = false;
    ByteBuf f;
    while (readEnabled && !isClosed && (f = inbound.poll()) != null) {
      any = true;
      try {
        if (f.readableBytes() > receiver.maxFrameSize()) {
          receiver.onTransportError(
              new FrameTooLargeException(f.readableBytes(), receiver.maxFrameSize()));
        } else {
          receiver.onFrame(f);
        }
      } finally {
        f.release();
      }
    }
    if (isClosed) {
      while ((f = inbound.poll()) != null) {
        f.release();
      }
    } else if (any) {
      receiver.onReadComplete();
    }
  }

  /**
   * Lets the loop run until the engine has read every frame handed over and reads again (bounded:
   * reading may pause and resume a few times while what it writes drains).
   */
  void awaitAllRead() {
    for (int i = 0; i < 1000; i++) {
      Loop.settle(loop);
      if (Loop.call(loop, () -> inbound.isEmpty() && readEnabled)) {
        return;
      }
    }
    throw new AssertionError("the engine did not read everything (" + unread() + " frames left)");
  }

  /** Frames handed over but not read by the engine (reading is off). */
  int unread() {
    return Loop.call(loop, inbound::size);
  }

  /**
   * Changes writability as a socket would, on the loop: unwritable means the peer stopped reading
   * (until made writable again, which means it took everything queued).
   */
  void setWritable(boolean w) {
    Loop.run(
        loop,
        () -> {
          peerReading = w;
          if (w) {
            queuedBytes = 0;
          }
          if (writable != w) {
            writable = w;
            receiver.onWritabilityChanged(w);
          }
        });
  }

  /** The next frame the engine sent, waiting up to 10 s. */
  Wire.Sent next() {
    try {
      Wire.Sent s = sent.poll(DEFAULT_WAIT_SECONDS, TimeUnit.SECONDS);
      if (s == null) {
        fail("no frame sent within " + DEFAULT_WAIT_SECONDS + " s");
      }
      return s;
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  /** The next frame, which must be of {@code type}. */
  Wire.Sent next(int type) {
    Wire.Sent s = next();
    assertThat(FrameType.name(s.type())).as("frame type of %s", s).isEqualTo(FrameType.name(type));
    return s;
  }

  /** The next frame that is not a KEEPALIVE, which must be of {@code type}. */
  Wire.Sent nextSkippingKeepAlives(int type) {
    for (; ; ) {
      Wire.Sent s = next();
      if (s.type() == FrameType.KEEPALIVE && type != FrameType.KEEPALIVE) {
        continue;
      }
      assertThat(FrameType.name(s.type())).as("frame type of %s", s).isEqualTo(FrameType.name(type));
      return s;
    }
  }

  /**
   * Asserts the engine has sent nothing more: lets every task queued on the loop run first (flush
   * tasks, cross-thread commands), so what the engine would send in reaction to what it saw is out.
   */
  void assertNothingSent() {
    Loop.settle(loop);
    assertThat(sent).as("frames sent").isEmpty();
  }

  /** Drops everything sent so far (after letting the loop settle). */
  List<Wire.Sent> drain() {
    Loop.settle(loop);
    List<Wire.Sent> out = new ArrayList<>();
    sent.drainTo(out);
    return out;
  }

  void awaitClosed() {
    Loop.await(closed);
  }

  boolean isClosed() {
    return closed.isDone();
  }
}
