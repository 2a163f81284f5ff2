package io.sluice.rpc.rsocket;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Parser;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.FastThreadLocal;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The small-message parse path of {@link ProtoMessages}: one reusable protobuf decoder per thread,
 * so that parsing a message of up to {@link ProtoMessages#SMALL_MESSAGE} bytes allocates no decoder
 * object, no copy of the frame and no {@code ByteString} around it: only the parsed message.
 *
 * <p>protobuf-java makes a new {@link CodedInputStream} per message and cannot reset one over new
 * bytes. Its stream-backed decoder, though, lives on: each thread keeps one over a small {@link
 * InputStream} of its own that is pointed at the frame's bytes for the duration of one parse. The
 * decoder reads them (a direct frame at its address) into its 4 KiB array and parses from there,
 * copying {@code bytes} and string fields out, so a parsed message never refers to the array.
 *
 * <p>Measured (an in-memory request-stream of 8-byte messages, both ends on one thread): 104 bytes
 * less per message, CPU per message within the run-to-run noise; a decoder over the frame's NIO
 * view allocates more and costs more. Encoding stays on protobuf's array encoder into a new
 * exact-size array: a reusable stream encoder saved its 40 bytes per message but cost 10-20 ns
 * more per 8-byte message, and a pooled target buffer 30-60 ns more.
 *
 * <p><b>Threads.</b> Each thread uses its own decoder; a nested use on the same thread (a custom
 * {@link Parser} that calls back into {@link ProtoMessages}) gets a fresh one. Virtual threads
 * (JDK 21+) take the allocating path of {@link ProtoMessages} instead, so that thousands of them do not each hold 4 KiB.
 * After a failure the thread's decoder is replaced, as its state is then unknown.
 */
final class ProtoCodecs {
  private ProtoCodecs() {}

  /** The decoder's array: a small message always fits whole. */
  static final int BUFFER = ProtoMessages.SMALL_MESSAGE;

  private static final FastThreadLocal<Decoder> DECODER =
      new FastThreadLocal<Decoder>() {
        @Override
        protected Decoder initialValue() {
          return new Decoder();
        }
      };

  /** {@code Thread.isVirtual()} where the JDK has it (21+), else null. */
  private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

  private static MethodHandle isVirtualHandle() {
    try {
      return MethodHandles.publicLookup()
          .findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /** True when the calling thread may keep a decoder: not a virtual thread. */
  static boolean keepsDecoder() {
    if (IS_VIRTUAL == null) {
      return true;
    }
    try {
      return !(boolean) IS_VIRTUAL.invokeExact(Thread.currentThread());
    } catch (Throwable e) {
      return false;
    }
  }

  /** Parses the {@code len} (at most {@link #BUFFER}) readable bytes of {@code data}. */
  static <T> T parseSmall(Parser<T> parser, ByteBuf data, int len) {
    Decoder d = DECODER.get();
    if (d.busy) {
      d = new Decoder();
    }
    try {
      return d.parse(parser, data, len);
    } catch (Throwable ex) {
      // Whatever stopped the parse (an Error from a custom parser too) may have left bytes of
      // this message in the decoder's buffer: the thread gets a new decoder.
      if (d == DECODER.getIfExists()) {
        DECODER.set(new Decoder());
      }
      throw ex;
    }
  }

  /** A thread's decoder: protobuf's stream decoder over a source that reads the frame's bytes. */
  private static final class Decoder extends InputStream {
    private final CodedInputStream in = CodedInputStream.newInstance(this, BUFFER);
    private ByteBuf source;
    private int index;
    private int end;
    boolean busy;

    <T> T parse(Parser<T> parser, ByteBuf data, int len) {
      source = data;
      index = data.readerIndex();
      end = index + len;
      busy = true;
      try {
        in.resetSizeCounter();
        T value = parser.parseFrom(in);
        in.checkLastTagWas(0);
        if (index != end || !in.isAtEnd()) {
          // Not reached for a parse that succeeds (it reads to the end), but a decoder that
          // stopped early would carry the rest into the next message: never reuse it then.
          throw new InvalidProtocolBufferException("the message was not read to its end");
        }
        return value;
      } catch (InvalidProtocolBufferException e) {
        throw ProtoMessages.cannotParse(e);
      } catch (IOException e) {
        throw ProtoMessages.cannotParse(new InvalidProtocolBufferException(e));
      } finally {
        source = null;
        busy = false;
      }
    }

    @Override
    public int read() {
      if (index >= end) {
        return -1;
      }
      return source.getByte(index++) & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (len == 0) {
        return 0;
      }
      int n = Math.min(len, end - index);
      if (n <= 0) {
        return -1;
      }
      ProtoMessages.copyOut(source, index, b, off, n);
      index += n;
      return n;
    }

    @Override
    public int available() {
      return end - index;
    }

    @Override
    public long skip(long n) {
      int k = (int) Math.max(0, Math.min(n, end - index));
      index += k;
      return k;
    }
  }
}
