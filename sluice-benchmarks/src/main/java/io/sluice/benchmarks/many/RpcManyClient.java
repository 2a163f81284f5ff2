package io.sluice.benchmarks.many;

import com.google.protobuf.ByteString;
import io.netty.channel.EventLoopGroup;
import io.sluice.benchmarks.rpc.Payload;
import io.sluice.benchmarks.rpc.ReactorBenchClient;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.internal.EventLoops;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Sluice RPC as the {@code sluice-rpc} impl uses it: the generated {@link ReactorBenchClient} of
 * {@code sluice.bench.rpc.Bench} over {@link SluiceClient} (default options, TCP), unary {@code
 * Response} calls, every connection on one client event loop. The request is one immutable {@link
 * Payload} of {@code requestSize} bytes shared by every call.
 */
final class RpcManyClient implements ManyClient {
  private static final Duration CONNECT = Duration.ofSeconds(10);

  @Override
  public void start(int port, int[] callsPerConnection, int requestSize, CallStats calls) {
    Payload request =
        Payload.newBuilder().setData(ByteString.copyFrom(new byte[requestSize])).build();
    EventLoopGroup loop = EventLoops.newGroup(1, "sluice-client-loop");
    TcpClientTransport transport =
        TcpClientTransport.create("127.0.0.1", port).withEventLoopGroup(loop);
    ReactorRequester[] connections = new ReactorRequester[callsPerConnection.length];
    for (int i = 0; i < connections.length; i++) {
      connections[i] = SluiceClient.builder(transport).connect().block(CONNECT);
      if (connections[i] == null) {
        throw new IllegalStateException("connection " + i + " did not open");
      }
    }
    for (int i = 0; i < connections.length; i++) {
      ReactorBenchClient bench = new ReactorBenchClient(connections[i]);
      Executor executor = connections[i].unwrap().executor();
      int n = callsPerConnection[i];
      executor.execute(() -> {
        for (int k = 0; k < n; k++) {
          new Call(bench, executor, request, calls).start();
        }
      });
    }
  }

  /**
   * One call in flight at a time, restarted when it ends; its three callbacks are made once, as a
   * user who cares writes it.
   */
  private static final class Call {
    private final ReactorBenchClient bench;
    private final Executor executor;
    private final Payload request;
    private final CallStats calls;
    private long started;
    private int size;
    private final Consumer<Payload> onValue = p -> size = p.getData().size();
    private final Consumer<Throwable> onError = this::failed;
    private final Runnable onComplete = this::completed;
    private final Runnable restart = this::start;

    Call(ReactorBenchClient bench, Executor executor, Payload request, CallStats calls) {
      this.bench = bench;
      this.executor = executor;
      this.request = request;
      this.calls = calls;
    }

    void start() {
      size = -1;
      started = System.nanoTime();
      bench.response(request).subscribe(onValue, onError, onComplete);
    }

    private void completed() {
      calls.completed(System.nanoTime() - started, size);
      start();
    }

    private void failed(Throwable cause) {
      calls.failed(cause);
      calls.later(executor, restart);
    }
  }
}
