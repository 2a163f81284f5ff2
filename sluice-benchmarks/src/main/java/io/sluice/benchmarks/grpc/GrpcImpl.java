package io.sluice.benchmarks.grpc;

import com.google.protobuf.ByteString;
import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.ServerChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollSocketChannel;
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
import io.sluice.benchmarks.grpc.proto.Text;
import io.sluice.benchmarks.harness.Counter;
import io.sluice.benchmarks.harness.Impl;
import io.sluice.benchmarks.harness.Spec;
import io.sluice.benchmarks.harness.StreamTexts;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * grpc-java 1.85 over grpc-netty-shaded, set up as its performance guide recommends: direct
 * executor on both sides (handlers never block), a 1,000,000-byte flow-control window, one NIO
 * event loop per side, protobuf {@code bytes} messages built once and reused (they are immutable),
 * and outbound streams paced by {@code isReady()}/{@code onReady} so nothing queues without bound.
 * rr = unary, stream = server streaming, channel = bidi streaming (echo), fnf = client streaming;
 * texts24 (latency) = the server-streaming call {@code Texts}, the 24 texts of {@link StreamTexts}.
 * Named {@code grpc-java/epoll} ({@link #parse}), the loops are grpc-netty-shaded's own epoll
 * instead of NIO.
 */
public final class GrpcImpl implements Impl {
  /** The flow-control window of both sides, in bytes (set as grpc-java's performance guide suggests). */
  public static final int WINDOW = 1_000_000;

  private static final String SERVER_LOOP = "grpc-server-loop";

  /** The impl on epoll: {@code grpc-java/epoll}. */
  public static final String EPOLL = "grpc-java/epoll";

  private final boolean epoll;

  /** On NIO: the impl {@code grpc-java}. */
  public GrpcImpl() {
    this(false);
  }

  private GrpcImpl(boolean epoll) {
    this.epoll = epoll;
  }

  /** {@code grpc-java} (NIO) or {@link #EPOLL}; null for any other name. */
  public static GrpcImpl parse(String name) {
    if (name.equals("grpc-java")) {
      return new GrpcImpl();
    }
    return name.equals(EPOLL) ? new GrpcImpl(true) : null;
  }

  /** Whether grpc-netty-shaded's epoll loads here (its native library is inside its jar). */
  public static boolean epollAvailable() {
    return Epoll.isAvailable();
  }

  private EventLoopGroup group(String name) {
    DefaultThreadFactory threads = new DefaultThreadFactory(name, true);
    if (epoll) {
      Epoll.ensureAvailability();
      return new EpollEventLoopGroup(1, threads);
    }
    return new NioEventLoopGroup(1, threads);
  }

  private Class<? extends ServerChannel> serverChannel() {
    return epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  private Class<? extends Channel> channel() {
    return epoll ? EpollSocketChannel.class : NioSocketChannel.class;
  }

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
    return serve(new Service(response, fnfReceived));
  }

  /**
   * Serves {@code service} on 127.0.0.1 (an ephemeral port, returned) set up as this impl's own:
   * direct executor, the same window, one event loop ({@link #serverLoopPrefix()}).
   */
  int serve(BindableService service) throws Exception {
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .bossEventLoopGroup(group("grpc-boss"))
            .workerEventLoopGroup(group(SERVER_LOOP))
            .channelType(serverChannel())
            .directExecutor()
            .flowControlWindow(WINDOW)
            .addService(service)
            .build()
            .start();
    return server.getPort();
  }

  /** A channel to 127.0.0.1:{@code port} set up as this impl's client (executor, window, loop). */
  ManagedChannel connect(int port) {
    return NettyChannelBuilder.forAddress("127.0.0.1", port)
        .usePlaintext()
        .directExecutor()
        .flowControlWindow(WINDOW)
        .eventLoopGroup(group("grpc-client-loop"))
        .channelType(channel())
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
    if (interaction.equals(Spec.TEXTS24)) {
      Bytes textsRequest = Bytes.getDefaultInstance();
      for (int i = 0; i < concurrency; i++) {
        new TimedTexts(stub, textsRequest, sink).start();
      }
      return;
    }
    boolean stream = interaction.equals("stream24");
    for (int i = 0; i < concurrency; i++) {
      new TimedOp(stub, stream ? streamRequest : request, stream, sink).start();
    }
  }

  /** The texts of {@link StreamTexts} as messages, built once (they are immutable). */
  private static List<Text> textMessages() {
    List<Text> texts = new ArrayList<>();
    for (String t : StreamTexts.texts()) {
      texts.add(Text.newBuilder().setText(t).build());
    }
    return List.copyOf(texts);
  }

  private static final class Service extends BenchGrpc.BenchImplBase {
    private final Bytes response;
    private final List<Text> texts = textMessages();
    private final Counter fnfReceived;

    Service(Bytes response, Counter fnfReceived) {
      this.response = response;
      this.fnfReceived = fnfReceived;
    }

    @Override
    public void texts(Bytes request, StreamObserver<Text> out) {
      // 24 messages of at most 100 characters fit the flow-control window: no isReady() pacing.
      for (Text t : texts) {
        out.onNext(t);
      }
      out.onCompleted();
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

  /** One {@code Texts} call at a time, timed from the call to its end, restarted on completion. */
  private static final class TimedTexts implements StreamObserver<Text> {
    private final BenchGrpc.BenchStub stub;
    private final Bytes request;
    private final LatencySink sink;
    private long started;
    private int received;

    TimedTexts(BenchGrpc.BenchStub stub, Bytes request, LatencySink sink) {
      this.stub = stub;
      this.request = request;
      this.sink = sink;
    }

    void start() {
      received = 0;
      started = System.nanoTime();
      stub.texts(request, this);
    }

    @Override
    public void onNext(Text value) {
      received++;
    }

    @Override
    public void onError(Throwable t) {
      System.err.println("grpc call failed: " + t);
    }

    @Override
    public void onCompleted() {
      long nanos = System.nanoTime() - started;
      if (received != StreamTexts.COUNT) {
        // Ends the client: the orchestrator reports it ended early, with this line above.
        System.err.println("call completed after " + received + " messages, not " + StreamTexts.COUNT);
        System.exit(1);
      }
      sink.record(nanos);
      start();
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
