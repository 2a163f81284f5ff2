package io.sluice.transport.grpc.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.transport.http2.internal.ReadBudget;
import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * Cuts the bytes of one gRPC stream into messages: each a 5-byte prefix (compressed flag, u32
 * length) and its bytes, decompressed when flagged.
 *
 * <p><b>Limits and flow control.</b> Bytes {@link #add added} between messages stay here,
 * untouched, until {@link #next} is called: a caller that calls it only while its consumer wants a
 * message (request-n) leaves them uncounted as consumed, so the HTTP/2 window stays shut on them
 * and the peer's unread bytes are bounded by the window. {@link #next} copies bytes into the
 * message being read and counts them as {@link #takeConsumed consumed}, so a message larger than
 * the window still flows in; a message whose prefix announces more than the limit is refused
 * before its bytes are read, and decompression stops at the limit ({@link GrpcEncoding#decompress}). The bytes of a
 * message being read are reserved from the connection's {@link ReadBudget}, shared by its calls,
 * until the message is whole; and they are copies, so a message that arrives slowly does not pin
 * the (larger) network buffers its pieces came in. Bytes {@link #add added} while a message asked
 * for is being read ({@link #next} returned null in it), with nothing queued before them, are copied
 * straight into it and counted as consumed by {@link #add} itself: a long message costs one copy,
 * not one into a chunk and one out of it; the caller takes them with {@link #takeConsumed} after its
 * next {@link #next}, as it does for the others.
 *
 * <p><b>A long message</b> is gathered in pieces of its own, each a quarter as long as the message
 * so far (the first as long as the bytes at hand; none but the last shorter than {@value #CHUNK}):
 * no byte is copied twice as it grows, the pieces never hold more than one and a quarter times the bytes
 * received plus {@value #CHUNK} (a prefix may lie about the length), their number grows with the
 * logarithm of the length (about 35 for 16 MiB), and no other call shares them: a message longer
 * than {@value #LONG} bytes takes them from unpooled heap, since pooled ones are carved from chunks
 * other calls share, and a call still reading would keep the chunks of those the read budget cut.
 * A message of more than one piece is returned as a {@code CompositeByteBuf} of them.
 *
 * <p><b>Threads.</b> One thread at a time (a stream's event loop). <b>Buffers.</b> {@link #add}
 * copies bytes into the message being read as above; of the others it copies small inputs, and
 * inputs that fill less than half of the buffer they were cut from, and retains slices of the
 * rest until they are taken into a message (the caller keeps its own reference), so bytes held
 * here never pin much more memory than they are;
 * {@link #next} returns a buffer the caller owns: a message under {@value #COPY_BELOW} bytes whole in
 * one buffer here is a slice of it, which keeps that buffer (one of the chunks, a copy of an input,
 * or an input at least half of its read buffer) while the caller holds the message, as a frame's
 * data over TCP keeps its read buffer; {@link #close} releases everything held.
 */
public final class MessageDeframer {
  /** Inputs below this are copied into a shared chunk, so tiny DATA frames cost no buffer each. */
  private static final int COPY_BELOW = 2048;

  private static final int CHUNK = 8192;

  /** Messages longer than this are gathered in unpooled pieces. */
  static final int LONG = 32 << 10;

  private final ByteBufAllocator alloc;
  private final ByteBufAllocator longAlloc;
  private final int maxMessageSize;
  private final GrpcEncoding encoding;
  private final ReadBudget budget;
  /** Bytes of the message being read reserved from {@link #budget}. */
  private long reserved;
  private final ArrayDeque<ByteBuf> chunks = new ArrayDeque<>();
  /** The last chunk when it is ours (a copy target with room left), else null. */
  private ByteBuf tail;
  private long buffered;
  private long consumed;

  private final byte[] prefix = new byte[MessageFramer.PREFIX];
  private int prefixRead;
  private boolean compressed;
  private int length = -1; // of the message being read; -1 while its prefix is
  /** The message being read: its pieces, the last one {@link #piece}; empty between messages. */
  private final ArrayList<ByteBuf> pieces = new ArrayList<>(4);
  private ByteBuf piece;
  /** Bytes of the message being read written into its pieces. */
  private int written;
  private boolean closed;

  /**
   * @param maxMessageSize the largest message accepted, before and after decompression
   * @param encoding how flagged messages are compressed (the stream's {@code grpc-encoding});
   *     with {@link GrpcEncoding#IDENTITY} a message flagged compressed is an error
   */
  public MessageDeframer(ByteBufAllocator alloc, int maxMessageSize, GrpcEncoding encoding) {
    this(alloc, maxMessageSize, encoding, ReadBudget.UNLIMITED);
  }

  /**
   * @param budget the connection's budget for messages being read, shared by its calls
   * @see #MessageDeframer(ByteBufAllocator, int, GrpcEncoding)
   */
  public MessageDeframer(ByteBufAllocator alloc, int maxMessageSize, GrpcEncoding encoding, ReadBudget budget) {
    this(alloc, UnpooledByteBufAllocator.DEFAULT, maxMessageSize, encoding, budget);
  }

  /** With {@code longAlloc} for the pieces of messages longer than {@link #LONG}. */
  MessageDeframer(
      ByteBufAllocator alloc,
      ByteBufAllocator longAlloc,
      int maxMessageSize,
      GrpcEncoding encoding,
      ReadBudget budget) {
    if (maxMessageSize < 0) {
      throw new IllegalArgumentException("maxMessageSize must not be negative, got " + maxMessageSize);
    }
    this.alloc = alloc;
    this.longAlloc = longAlloc;
    this.maxMessageSize = maxMessageSize;
    this.encoding = encoding;
    this.budget = budget;
  }

  /** Adds the readable bytes of {@code data} (borrowed: the caller still releases it). */
  public void add(ByteBuf data) {
    int n = data.readableBytes();
    if (n == 0 || closed) {
      return;
    }
    if (length >= 0 && buffered == 0 && written < length) {
      // The message being read was asked for, and nothing waits before these bytes.
      int take = Math.min(n, length - written);
      if (budget.reserve(take)) {
        reserved += take;
        write(data, data.readerIndex(), take);
        consumed += take;
        if (take == n) {
          return;
        }
        data = data.slice(data.readerIndex() + take, n - take);
        n -= take;
      } // else queued: the next read fails the call, as for any byte over the budget
    }
    buffered += n;
    if (n >= COPY_BELOW) {
      // A DATA payload is a slice of the buffer it was read into: kept as a slice, it keeps that
      // whole buffer. So only one that fills at least half of it is kept so (as the engine keeps
      // fragments); a smaller one is copied, or a peer could pin a 64 KiB read buffer with each
      // 2 KiB of DATA, the rest of each read being frames no window counts.
      if (n >= rootCapacity(data) >>> 1) {
        chunks.add(data.retainedSlice());
      } else {
        chunks.add(alloc.heapBuffer(n, n).writeBytes(data, data.readerIndex(), n));
      }
      tail = null;
      return;
    }
    if (tail == null || tail.writableBytes() < n) {
      tail = alloc.heapBuffer(CHUNK, CHUNK);
      chunks.add(tail);
    }
    tail.writeBytes(data, data.readerIndex(), n);
  }

  /**
   * The capacity of the buffer {@code b} was cut from: a slice's parent (through a leak detector's
   * wrapper too, which wraps the slice, not the parent).
   */
  private static int rootCapacity(ByteBuf b) {
    ByteBuf root = b;
    for (ByteBuf u; (u = root.unwrap()) != null; ) {
      root = u;
    }
    return root.capacity();
  }

  /** Bytes added and not yet taken into a message: what the peer sent that nobody asked for yet. */
  public long buffered() {
    return buffered;
  }

  /** Bytes taken into messages since the last call: the caller gives them back to the window. */
  public int takeConsumed() {
    long c = consumed;
    consumed = 0;
    return (int) c;
  }

  /**
   * True when a message has begun (part of its prefix was read by {@link #next}) and has not
   * ended: at the end of the stream, with nothing {@link #buffered}, the stream was cut mid-message.
   */
  public boolean isMidMessage() {
    return prefixRead > 0 || length >= 0;
  }

  /**
   * The next whole message, or null when its bytes have not all come yet.
   *
   * @throws StatusException INTERNAL for a bad prefix or a compressed message without encoding,
   *     RESOURCE_EXHAUSTED for a message over the limit or one the connection's {@link ReadBudget}
   *     has no room for (the deframer is then closed)
   */
  public ByteBuf next() {
    if (closed) {
      return null;
    }
    try {
      if (length < 0) {
        ByteBuf head = prefixRead == 0 && buffered >= MessageFramer.PREFIX ? head() : null;
        if (head != null && head.readableBytes() >= MessageFramer.PREFIX) {
          // The whole prefix in one buffer (nearly always): read at once, not byte by byte.
          int r = head.readerIndex();
          int flag = head.getByte(r) & 0xFF;
          long len = head.getUnsignedInt(r + 1);
          if (flag == 0
              && len < COPY_BELOW
              && len <= maxMessageSize
              && len <= head.readableBytes() - MessageFramer.PREFIX) {
            // A small message whole in one buffer: a slice of it, no buffer of its own, no copy.
            // Its bytes pass through the budget as any message's would: with the budget held by
            // the calls still reading, even a small call fails.
            if (!budget.reserve(len)) {
              throw overBudget();
            }
            budget.release(len);
            int n = MessageFramer.PREFIX + (int) len;
            ByteBuf message = head.retainedSlice(r + MessageFramer.PREFIX, (int) len);
            head.skipBytes(n);
            took(n);
            releaseEmptied();
            return message;
          }
          head.skipBytes(MessageFramer.PREFIX);
          took(MessageFramer.PREFIX);
          startMessage(flag, len);
        } else {
          while (prefixRead < MessageFramer.PREFIX && buffered > 0) {
            prefix[prefixRead++] = readByte();
          }
          if (prefixRead < MessageFramer.PREFIX) {
            return null;
          }
          prefixRead = 0;
          long len =
              ((prefix[1] & 0xFFL) << 24) | ((prefix[2] & 0xFF) << 16) | ((prefix[3] & 0xFF) << 8) | (prefix[4] & 0xFF);
          startMessage(prefix[0] & 0xFF, len);
        }
      }
      while (written < length && buffered > 0) {
        ByteBuf head = head();
        int take = Math.min(length - written, head.readableBytes());
        if (!budget.reserve(take)) {
          throw overBudget();
        }
        reserved += take;
        write(head, head.readerIndex(), take);
        head.skipBytes(take);
        took(take);
      }
      releaseEmptied();
      if (written < length) {
        return null;
      }
      ByteBuf message =
          pieces.size() == 1 ? pieces.get(0) : alloc.compositeHeapBuffer(pieces.size()).addComponents(true, pieces);
      pieces.clear();
      piece = null;
      budget.release(reserved);
      reserved = 0;
      length = -1;
      prefixRead = 0;
      if (!compressed) {
        return message;
      }
      try {
        return encoding.decompress(alloc, message, maxMessageSize);
      } finally {
        message.release();
      }
    } catch (StatusException e) {
      close();
      throw e;
    }
  }

  private StatusException overBudget() {
    return new StatusException(
        Status.of(
            Status.Code.RESOURCE_EXHAUSTED,
            "the request messages being read on this connection would hold more than " + budget.max() + " bytes"));
  }

  private void startMessage(int flag, long len) {
    if (flag > 1) {
      throw new StatusException(
          Status.of(Status.Code.INTERNAL, "malformed gRPC message: flags byte " + flag + " (only 0 and 1 exist)"));
    }
    if (flag == 1 && encoding == GrpcEncoding.IDENTITY) {
      throw new StatusException(
          Status.of(
              Status.Code.INTERNAL,
              "a message is flagged compressed but the stream's grpc-encoding is identity or absent"));
    }
    if (len > maxMessageSize) {
      throw new StatusException(
          Status.of(
              Status.Code.RESOURCE_EXHAUSTED,
              "gRPC message of " + len + " bytes exceeds the limit of " + maxMessageSize + " bytes"));
    }
    compressed = flag == 1;
    length = (int) len;
    written = 0;
    // As long as the bytes at hand (a prefix may lie about the length), never beyond the length.
    int first = (int) Math.min(length, Math.max(CHUNK, buffered));
    addPiece(first);
  }

  /** A new last piece of {@code cap} bytes for the message being read (see A long message). */
  private void addPiece(int cap) {
    piece = (length > LONG ? longAlloc : alloc).heapBuffer(cap, cap);
    pieces.add(piece);
  }

  /**
   * Copies {@code n} bytes of {@code src} from {@code index} into the message being read (the
   * caller has reserved them), adding a piece a quarter as long as the message so far when the last
   * is full.
   */
  private void write(ByteBuf src, int index, int n) {
    while (n > 0) {
      if (!piece.isWritable()) {
        addPiece(Math.min(length - written, Math.max(CHUNK, written >>> 2)));
      }
      int k = Math.min(n, piece.writableBytes());
      piece.writeBytes(src, index, k);
      index += k;
      n -= k;
      written += k;
    }
  }

  private byte readByte() {
    byte b = head().readByte();
    took(1);
    return b;
  }

  /**
   * The first chunk with bytes (there is one while {@link #buffered} is positive), releasing the
   * emptied ones before it. Our own last chunk stays while it is the last: later input is written
   * after what it held (messages may still hold slices of those bytes, never written over).
   */
  private ByteBuf head() {
    ByteBuf head = chunks.peek();
    while (!head.isReadable()) {
      if (head == tail) {
        throw new IllegalStateException("no buffered bytes");
      }
      chunks.poll().release();
      head = chunks.peek();
    }
    return head;
  }

  /** Releases the emptied chunks at the front now, not at the next read: nothing pins them. */
  private void releaseEmptied() {
    for (ByteBuf h; (h = chunks.peek()) != null && h != tail && !h.isReadable(); ) {
      chunks.poll().release();
    }
  }

  private void took(int n) {
    buffered -= n;
    consumed += n;
  }

  /** Releases everything held; later input is ignored. Idempotent. */
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (ByteBuf b; (b = chunks.poll()) != null; ) {
      b.release();
    }
    tail = null;
    buffered = 0;
    for (ByteBuf p : pieces) {
      p.release();
    }
    pieces.clear();
    piece = null;
    budget.release(reserved);
    reserved = 0;
  }
}
