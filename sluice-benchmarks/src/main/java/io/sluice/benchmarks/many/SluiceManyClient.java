package io.sluice.benchmarks.many;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.internal.EventLoops;
import java.util.concurrent.TimeUnit;

/**
 * Sluice raw: the core SPI as the {@code sluice} impl uses it ({@link Connections#connect}, default
 * {@link ConnectionOptions}, TCP, a {@link StreamListener} per call in flight), every connection
 * on one client event loop. The request is one immutable buffer shared by every call.
 */
final class SluiceManyClient implements ManyClient {
  @Override
  public void start(int port, int[] callsPerConnection, int requestSize, CallStats calls)
      throws Exception {
    ByteBuf request =
        Unpooled.unreleasableBuffer(Unpooled.directBuffer(requestSize).writeZero(requestSize));
    EventLoopGroup loop = EventLoops.newGroup(1, "sluice-client-loop");
    TcpClientTransport transport =
        TcpClientTransport.create("127.0.0.1", port).withEventLoopGroup(loop);
    Requester[] connections = new Requester[callsPerConnection.length];
    for (int i = 0; i < connections.length; i++) {
      connections[i] =
          Connections.connect(
                  transport, ConnectionOptions.defaults(), ClientSetup.defaults(),
                  r -> new Responder() {})
              .get(10, TimeUnit.SECONDS);
    }
    for (int i = 0; i < connections.length; i++) {
      Requester r = connections[i];
      int n = callsPerConnection[i];
      r.executor().execute(() -> {
        for (int k = 0; k < n; k++) {
          new Call(r, request, calls).start();
        }
      });
    }
  }

  /** One call in flight at a time, restarted when it ends; confined to the connection's loop. */
  private static final class Call implements StreamListener {
    private final Requester requester;
    private final ByteBuf request;
    private final CallStats calls;
    private final Runnable restart = this::start;
    private long started;
    private int size;

    Call(Requester requester, ByteBuf request, CallStats calls) {
      this.requester = requester;
      this.request = request;
      this.calls = calls;
    }

    void start() {
      size = -1;
      started = System.nanoTime();
      requester.requestResponse(Message.of(request), this);
    }

    @Override
    public void onNext(Message message) {
      size = message.data().readableBytes();
      message.release();
    }

    @Override
    public void onComplete() {
      calls.completed(System.nanoTime() - started, size);
      start();
    }

    @Override
    public void onError(Throwable cause) {
      calls.failed(cause);
      calls.later(requester.executor(), restart);
    }
  }
}
