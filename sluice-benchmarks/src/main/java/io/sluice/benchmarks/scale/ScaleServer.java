package io.sluice.benchmarks.scale;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoopGroup;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.benchmarks.harness.Args;
import io.sluice.benchmarks.harness.ScaleServerStats;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpServerTransport;
import io.sluice.transport.netty.internal.EventLoops;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The Sluice server of {@code ./sluice bench --scale} ({@code BenchMain scale-server --addresses
 * K}): one event loop, default {@link ConnectionOptions}, listening on 127.0.0.1 and on
 * 127.0.0.2..K at the same port; prints {@code SCALE_LISTENING <port>}, then answers the
 * orchestrator through {@link ScaleServerStats}. Every request-channel is a sink: it grants
 * unbounded credit once and records each message's delivery latency.
 */
public final class ScaleServer {
  private ScaleServer() {}

  /** Runs the server child until its stdin ends. */
  public static int run(String[] argv, PrintStream out) throws Exception {
    Args a = Args.parse(argv, 1, Set.of("addresses"), Set.of());
    int addresses = a.getInt("addresses", 1, 1, 250);
    ScaleServerStats stats = new ScaleServerStats();
    EventLoopGroup loop = EventLoops.newGroup(1, "sluice-server-loop");
    int port = 0;
    for (int i = 1; i <= addresses; i++) {
      ServerTransport t =
          TcpServerTransport.create(ScaleAddresses.host(i - 1), port).withEventLoopGroup(loop);
      ServerTransport.Bound bound =
          Connections.serve(t, ConnectionOptions.defaults(), (setup, requester) -> {
                stats.connection(1);
                requester.onClose().whenComplete((v, e) -> stats.connection(-1));
                return new SinkResponder(stats);
              })
              .get(10, TimeUnit.SECONDS);
      port = ((InetSocketAddress) bound.address()).getPort();
    }
    out.println("SCALE_LISTENING " + port);
    out.flush();
    stats.serve(System.in, out);
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    return 0;
  }

  /** Takes request-channels only; confined to the connection's event loop. */
  private static final class SinkResponder implements Responder {
    private final ScaleServerStats stats;

    SinkResponder(ScaleServerStats stats) {
      this.stats = stats;
    }

    @Override
    public StreamListener requestChannel(Message first, boolean inboundComplete, StreamHandle channel) {
      stats.streamOpened();
      Sink sink = new Sink(stats);
      sink.onNext(first);
      if (!inboundComplete) {
        channel.request(Long.MAX_VALUE);
      }
      return sink;
    }
  }

  /** One stream's inbound half: records and releases what arrives; sends nothing. */
  private static final class Sink implements StreamListener {
    private final ScaleServerStats stats;
    private boolean ended;

    Sink(ScaleServerStats stats) {
      this.stats = stats;
    }

    @Override
    public void onNext(Message message) {
      ByteBuf d = message.data();
      if (d.readableBytes() >= Long.BYTES) {
        stats.delivered(d.getLong(d.readerIndex()));
      }
      message.release();
    }

    @Override
    public void onComplete() {
      end(false);
    }

    @Override
    public void onError(Throwable cause) {
      end(true);
    }

    @Override
    public void onCancel() {
      end(true);
    }

    private void end(boolean failure) {
      if (!ended) {
        ended = true;
        stats.streamEnded(failure);
      }
    }
  }
}
