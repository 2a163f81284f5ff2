package io.sluice.benchmarks.many;

import com.google.protobuf.ByteString;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.stub.StreamObserver;
import io.sluice.benchmarks.grpc.GrpcImpl;
import io.sluice.benchmarks.grpc.proto.BenchGrpc;
import io.sluice.benchmarks.grpc.proto.Bytes;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * grpc-java's own client as the {@code grpc-java} impl sets it up (grpc-netty-shaded, plaintext,
 * direct executor, {@link GrpcImpl#WINDOW}-byte flow-control window, NIO), one {@link
 * ManagedChannel} per connection, all channels on one event loop; unary {@code Unary} calls
 * through the generated async stub. The request is one immutable {@link Bytes} message.
 */
final class GrpcManyClient implements ManyClient {
  private static final long CONNECT_NANOS = TimeUnit.SECONDS.toNanos(10);

  @Override
  public void start(int port, int[] callsPerConnection, int requestSize, CallStats calls)
      throws InterruptedException {
    Bytes request = Bytes.newBuilder().setData(ByteString.copyFrom(new byte[requestSize])).build();
    EventLoopGroup loop = new NioEventLoopGroup(1, new DefaultThreadFactory("grpc-client-loop", true));
    ManagedChannel[] channels = new ManagedChannel[callsPerConnection.length];
    for (int i = 0; i < channels.length; i++) {
      channels[i] =
          NettyChannelBuilder.forAddress("127.0.0.1", port)
              .usePlaintext()
              .directExecutor()
              .flowControlWindow(GrpcImpl.WINDOW)
              .eventLoopGroup(loop)
              .channelType(NioSocketChannel.class)
              .build();
      awaitReady(channels[i], i);
    }
    // Retries hop through the loop too, as the calls' own callbacks run there.
    Executor onLoop = loop.next();
    for (int i = 0; i < channels.length; i++) {
      BenchGrpc.BenchStub stub = BenchGrpc.newStub(channels[i]);
      for (int k = 0; k < callsPerConnection[i]; k++) {
        new Call(stub, onLoop, request, calls).start();
      }
    }
  }

  /** Connects now (a channel connects lazily) and waits, at most 10 s, until it is ready. */
  private static void awaitReady(ManagedChannel channel, int index) throws InterruptedException {
    long deadline = System.nanoTime() + CONNECT_NANOS;
    while (channel.getState(true) != ConnectivityState.READY) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("gRPC channel " + index + " not ready within 10 s: "
            + channel.getState(false));
      }
      Thread.sleep(5);
    }
  }

  /** One call in flight at a time, restarted when it ends. */
  private static final class Call implements StreamObserver<Bytes> {
    private final BenchGrpc.BenchStub stub;
    private final Executor loop;
    private final Bytes request;
    private final CallStats calls;
    private final Runnable restart = this::start;
    private long started;
    private int size;

    Call(BenchGrpc.BenchStub stub, Executor loop, Bytes request, CallStats calls) {
      this.stub = stub;
      this.loop = loop;
      this.request = request;
      this.calls = calls;
    }

    void start() {
      size = -1;
      started = System.nanoTime();
      stub.unary(request, this);
    }

    @Override
    public void onNext(Bytes value) {
      size = value.getData().size();
    }

    @Override
    public void onError(Throwable t) {
      calls.failed(t);
      calls.later(loop, restart);
    }

    @Override
    public void onCompleted() {
      calls.completed(System.nanoTime() - started, size);
      start();
    }
  }
}
