package io.sluice.benchmarks.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.FrameValidator;
import io.sluice.internal.frame.Frames;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The frame codecs alone: encoding a PAYLOAD frame (u24 length, header, data) into a batch buffer,
 * and the inbound first phase (validate) plus reading the header and slicing the data.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FrameCodecBenchmark {
  @Param({"8", "140"})
  int size;

  private ByteBuf data;
  private ByteBuf batch;
  private ByteBuf frame;

  @Setup(Level.Trial)
  public void setUp() {
    data = Unpooled.directBuffer(size).writeZero(size);
    batch = PooledByteBufAllocator.DEFAULT.directBuffer(64 * 1024);
    frame = PooledByteBufAllocator.DEFAULT.directBuffer(64);
    Frames.writeHeader(frame, 1, FrameType.PAYLOAD, Frames.FLAG_NEXT);
    Frames.writePayload(frame, null, data);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    data.release();
    batch.release();
    frame.release();
  }

  @Benchmark
  public int encodePayloadFrame() {
    if (batch.writableBytes() < 64 + size) {
      batch.clear();
    }
    Frames.writeU24(batch, Frames.HEADER_SIZE + size);
    Frames.writeHeader(batch, 1, FrameType.PAYLOAD, Frames.FLAG_NEXT);
    Frames.writePayload(batch, null, data);
    return batch.writerIndex();
  }

  @Benchmark
  public int decodePayloadFrame() {
    if (FrameValidator.validate(frame) != null) {
      throw new IllegalStateException();
    }
    int id = Frames.streamId(frame);
    int type = Frames.type(frame);
    int flags = Frames.flags(frame);
    ByteBuf d = Frames.data(frame);
    return id + type + flags + d.readableBytes();
  }
}
