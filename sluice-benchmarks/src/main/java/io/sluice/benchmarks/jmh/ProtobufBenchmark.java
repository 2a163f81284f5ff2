package io.sluice.benchmarks.jmh;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.benchmarks.rpc.Payload;
import io.sluice.rpc.rsocket.ProtoMessages;
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
 * The protobuf work one unary RPC call does on both ends, and nothing else: the client encodes
 * the request, the server parses it and encodes the answer, the client parses the answer (the
 * {@code Payload} message of the benchmark harness's {@code sluice-rpc} impl). It is the floor
 * under what RPC adds to a raw request-response: compare its time per operation with the CPU a raw
 * call costs both ends ({@code ./sluice bench --compare-flavors}, server + client ns per call).
 *
 * <ul>
 *   <li>{@code sluice}: through {@link ProtoMessages}, the way RPC does it (encode into a new
 *       buffer; parse from a slice of a pooled direct buffer, as a frame arrives from the socket).
 *   <li>{@code plain}: protobuf-java's own shortest path ({@code toByteArray} and {@code
 *       parseFrom(byte[])}), the least any protobuf-java user pays.
 * </ul>
 *
 * <pre>{@code ./sluice jmh -prof gc ProtobufBenchmark}</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ProtobufBenchmark {
  @Param({"8", "128"})
  int size;

  private Payload request;
  private ByteBuf encoded; // the request's encoding, for frameCopiesOnly
  private ByteBuf frame; // pooled direct, like a socket read buffer: the message sits at an offset
  private final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;

  @Setup(Level.Trial)
  public void setUp() {
    request = Payload.newBuilder().setData(ByteString.copyFrom(new byte[size])).build();
    frame = alloc.directBuffer(1024);
    encoded = io.netty.buffer.Unpooled.wrappedBuffer(request.toByteArray());
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    frame.release();
  }

  /** Puts {@code encoded} into the frame buffer at a frame-like offset and returns a slice of it. */
  private ByteBuf arrive(ByteBuf encoded) {
    frame.clear().writerIndex(9); // a stream id, frame type and metadata length come first
    frame.writeBytes(encoded);
    encoded.release();
    return frame.slice(9, frame.readableBytes() - 9);
  }

  @Benchmark
  public Payload sluice() {
    Payload onServer = ProtoMessages.parse(Payload.parser(), arrive(ProtoMessages.encode(alloc, request)));
    return ProtoMessages.parse(Payload.parser(), arrive(ProtoMessages.encode(alloc, onServer)));
  }

  /** What {@link #sluice} spends moving bytes through the frame buffer (raw calls pay it too). */
  @Benchmark
  public ByteBuf frameCopiesOnly() {
    arrive(encoded.retainedDuplicate());
    return arrive(encoded.retainedDuplicate());
  }

  @Benchmark
  public Payload plain() throws InvalidProtocolBufferException {
    Payload onServer = Payload.parseFrom(request.toByteArray());
    return Payload.parseFrom(onServer.toByteArray());
  }
}
