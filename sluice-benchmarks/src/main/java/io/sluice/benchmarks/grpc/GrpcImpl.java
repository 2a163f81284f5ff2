package io.sluice.benchmarks.grpc;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.sluice.benchmarks.grpc.proto.BenchGrpc;
import io.sluice.benchmarks.grpc.proto.Bytes;
import io.sluice.benchmarks.harness.Counter;
import io.sluice.benchmarks.harness.Impl;
import io.sluice.benchmarks.harness.Spec;
import java.net.InetSocketAddress;

/**
 * grpc-java 1.85 over grpc-netty-shaded, set up as its performance guide recommends: direct
 * executor on both sides (handlers never block), a 1,000,000-byte flow-control window, one NIO
 * event loop per side, protobuf {@code bytes} messages built once and reused (they are immutable),
 * and outbound streams paced by {@code isReady()}/{@code onReady} so nothing queues without bound.
 * rr = unary, stream = server streaming, channel = bidi streaming (echo), fnf = client streaming.
 */
public final class GrpcImpl implements Impl {
  private static final int WINDOW = 1_000_000;
  private static final String SERVER_LOOP = "grpc-server-loop";

  private static Bytes message(int size) {
    return Bytes.newBuilder().setData(ByteString.copyFrom(new byte[size])).build();
  }

  @Override
  public String serverLoopPrefix() {
    return SERVER_LOOP;
  }

  @Override
  public int serve(String interaction, int size, Counter fnfReceived) throws Exception {
    Bytes response = message(size);
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .bossEventLoopGroup(new NioEventLoopGroup(1, new DefaultThreadFactory("grpc-boss", true)))
            .workerEventLoopGroup(new NioEventLoopGroup(1, new DefaultThreadFactory(SERVER_LOOP, true)))
            .channelType(NioServerSocketChannel.class)
            .directExecutor()
            .flowControlWindow(WINDOW)
            .addService(new Service(response, fnfReceived))
            .build()
            .start();
    return server.getPort();
  }

  private static ManagedChannel connect(int port) {
    return NettyChannelBuilder.forAddress("127.0.0.1", port)
        .usePlaintext()
        .directExecutor()
        .flowControlWindow(WINDOW)
        .eventLoopGroup(new NioEventLoopGroup(1, new DefaultThreadFactory("grpc-client-loop", true)))
        .channelType(NioSocketChannel.class)
        .build();
  }

  @Override
  public void load(int port, String interaction, int size, int window, Counter received) {
    Bytes request = message(size);
    BenchGrpc.BenchStub stub = BenchGrpc.newStub(connect(port));
    switch (interaction) {
      case "stream":
        stub.stream(request, new CountingObserver(received));
        break;
      case "channel":
        stub.channel(new Sender(request, received, false));
        break;
      case "fnf":
        stub.fnf(new Sender(request, received, true));
        break;
      case "rr":
        for (int i = 0; i < window; i++) {
          new UnaryLoop(stub, request, received).next();
        }
        break;
      default:
        throw new IllegalArgumentException(interaction);
    }
  }

  @Override
  public void latency(int port, String interaction, int size, int concurrency, LatencySink sink) {
    Bytes request = message(size);
    Bytes streamRequest =
        Bytes.newBuilder().setData(ByteString.copyFrom(new byte[] {(byte) Spec.STREAM24})).build();
    BenchGrpc.BenchStub stub = BenchGrpc.newStub(connect(port));
    boolean stream = interaction.equals("stream24");
    for (int i = 0; i < concurrency; i++) {
      new TimedOp(stub, stream ? streamRequest : request, stream, sink).start();
    }
  }

  private static final class Service extends BenchGrpc.BenchImplBase {
    private final Bytes response;
    private final Counter fnfReceived;

    Service(Bytes response, Counter fnfReceived) {
      this.response = response;
      this.fnfReceived = fnfReceived;
    }

    @Override
    public void unary(Bytes request, StreamObserver<Bytes> out) {
      out.onNext(response);
      out.onCompleted();
    }

    @Override
    public void stream(Bytes request, StreamObserver<Bytes> out) {
      ServerCallStreamObserver<Bytes> call = (ServerCallStreamObserver<Bytes>) out;
      if (request.getData().size() == 1 && request.getData().byteAt(0) == Spec.STREAM24) {
        for (int i = 0; i < Spec.STREAM24; i++) {
          out.onNext(response);
        }
        out.onCompleted();
        return;
      }
      boolean[] done = new boolean[1];
      call.setOnCancelHandler(() -> done[0] = true);
      call.setOnReadyHandler(
          () -> {
            while (!done[0] && call.isReady()) {
              call.onNext(response);
            }
          });
    }

    @Override
    public StreamObserver<Bytes> channel(StreamObserver<Bytes> out) {
      return new StreamObserver<>() {
        @Override
        public void onNext(Bytes value) {
          out.onNext(value);
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {
          out.onCompleted();
        }
      };
    }

    @Override
    public StreamObserver<Bytes> fnf(StreamObserver<Bytes> out) {
      return new StreamObserver<>() {
        @Override
        public void onNext(Bytes value) {
          fnfReceived.increment();
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {
          out.onNext(Bytes.getDefaultInstance());
          out.onCompleted();
        }
      };
    }
  }

  private static final class CountingObserver implements StreamObserver<Bytes> {
    private final Counter received;

    CountingObserver(Counter received) {
      this.received = received;
    }

    @Override
    public void onNext(Bytes value) {
      received.increment();
    }

    @Override
    public void onError(Throwable t) {
      System.err.println("grpc call failed: " + t);
    }

    @Override
    public void onCompleted() {}
  }

  /** Client half of a client/bidi stream: sends while the transport is ready, counts replies. */
  private static final class Sender implements ClientResponseObserver<Bytes, Bytes> {
    private final Bytes request;
    private final Counter received;
    private final boolean countSent;

    Sender(Bytes request, Counter received, boolean countSent) {
      this.request = request;
      this.received = received;
      this.countSent = countSent;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<Bytes> call) {
      call.setOnReadyHandler(
          () -> {
            while (call.isReady()) {
              call.onNext(request);
            }
          });
    }

    @Override
    public void onNext(Bytes value) {
      if (!countSent) {
        received.increment();
      }
    }

    @Override
    public void onError(Throwable t) {
      System.err.println("grpc call failed: " + t);
    }

    @Override
    public void onCompleted() {}
  }

  /** One unary call outstanding; each reply starts the next. */
  private static final class UnaryLoop implements StreamObserver<Bytes> {
    private final BenchGrpc.BenchStub stub;
    private final Bytes request;
    private final Counter received;

    UnaryLoop(BenchGrpc.BenchStub stub, Bytes request, Counter received) {
      this.stub = stub;
      this.request = request;
      this.received = received;
    }

    void next() {
      stub.unary(request, this);
    }

    @Override
    public void onNext(Bytes value) {
      received.increment();
    }

    @Override
    public void onError(Throwable t) {
      System.err.println("grpc call failed: " + t);
    }

    @Override
    public void onCompleted() {
      next();
    }
  }

  private static final class TimedOp implements StreamObserver<Bytes> {
    private final BenchGrpc.BenchStub stub;
    private final Bytes request;
    private final boolean stream;
    private final LatencySink sink;
    private long started;

    TimedOp(BenchGrpc.BenchStub stub, Bytes request, boolean stream, LatencySink sink) {
      this.stub = stub;
      this.request = request;
      this.stream = stream;
      this.sink = sink;
    }

    void start() {
      started = System.nanoTime();
      if (stream) {
        stub.stream(request, this);
      } else {
        stub.unary(request, this);
      }
    }

    @Override
    public void onNext(Bytes value) {}

    @Override
    public void onError(Throwable t) {
      System.err.println("grpc call failed: " + t);
    }

    @Override
    public void onCompleted() {
      sink.record(System.nanoTime() - started);
      start();
    }
  }
}
