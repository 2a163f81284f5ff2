package io.sluice.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A reconnect storm, measured: 200 balancer clients of one server at its connection cap, which
 * takes each connection and closes it without a word. Every client must back off: its connects stay
 * within what the backoff schedule allows for the time observed, where a client that reconnected at
 * once after each close would make hundreds. Counts only; how long the run took only sets the
 * bound. Two such servers: Sluice's own at {@code withMaxConnections}, which closes on accept (the
 * client then mostly fails while connecting), and one that closes once the client's SETUP arrived
 * (as a proxy in front of a full server, or one without a backend, does): that connection was up,
 * and its clean close must not bring the client straight back.
 */
class BalancerStormTest {
  private static final int CLIENTS = 200;
  // A first step longer than a connect takes on a loaded machine: a client that reconnects at once
  // is then told from one that waits even when connects are slow (200 clients on two cores
  // connect about once a second each).
  private static final Duration INITIAL = Duration.ofSeconds(1);
  private static final Duration MAX = Duration.ofSeconds(5);

  /** Closes every connection once its first bytes arrived. */
  @ChannelHandler.Sharable
  private static final class CloseOnFirstRead extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ReferenceCountUtil.release(msg);
      ctx.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"sluice at its cap", "closes after setup"})
  void twoHundredClientsOfAServerAtItsConnectionCapBackOff(String kind) throws Exception {
    EventLoopGroup proxyLoop = null;
    Channel proxy = null;
    ServerTransport.Bound server = null;
    SocketAddress address;
    if (kind.equals("sluice at its cap")) {
      server =
          Connections.serve(
                  TcpServerTransport.create("127.0.0.1", 0).withMaxConnections(1),
                  ConnectionOptions.defaults(),
                  (setup, requester) -> new Responder() {})
              .get(10, TimeUnit.SECONDS);
      address = server.address();
    } else {
      proxyLoop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
      proxy =
          new ServerBootstrap()
              .group(proxyLoop)
              .channel(NioServerSocketChannel.class)
              .childHandler(new CloseOnFirstRead())
              .bind("127.0.0.1", 0)
              .sync()
              .channel();
      address = proxy.localAddress();
    }
    DefaultEventExecutorGroup control =
        new DefaultEventExecutorGroup(2, new DefaultThreadFactory("storm-balancers", true));
    List<Balancer> clients = new ArrayList<>();
    Requester holder = null;
    try {
      if (server != null) {
        // The one connection the server takes; a request answered (with an error: the responder
        // has none) shows the server accepted it, so the cap is reached before the clients start.
        holder = BalancerTcpTest.connect(address).get(10, TimeUnit.SECONDS);
        Recorder answered = new Recorder();
        holder.requestResponse(Message.utf8("are you there"), answered);
        answered.await();
      }

      AtomicIntegerArray connects = new AtomicIntegerArray(CLIENTS);
      AtomicInteger total = new AtomicInteger();
      long t0 = System.nanoTime();
      for (int i = 0; i < CLIENTS; i++) {
        int id = i;
        clients.add(
            Balancer.builder()
                .addresses(AddressSource.fixed(address))
                .connector(
                    a -> {
                      connects.incrementAndGet(id);
                      total.incrementAndGet();
                      return BalancerTcpTest.connect(a);
                    })
                .backoff(INITIAL, MAX)
                .executor(control)
                .build());
      }
      // Until every client has come back at least twice (bounded).
      for (int w = 0; w < 6000 && !allAtLeast(connects, 3); w++) {
        Thread.sleep(10);
      }
      assertThat(allAtLeast(connects, 3)).as("every client reconnected twice").isTrue();
      int[] seen = new int[CLIENTS];
      for (int i = 0; i < CLIENTS; i++) {
        seen[i] = connects.get(i);
      }
      long elapsed = System.nanoTime() - t0; // read after the counts: the bound only grows
      int bound = BalancerConnectionsTest.maxConnects(elapsed, INITIAL, MAX);
      int most = 0;
      int sum = 0;
      for (int c : seen) {
        most = Math.max(most, c);
        sum += c;
      }
      System.out.printf(
          "storm (%s): %d clients, %d connects in %d ms (%.0f/s), at most %d for one client"
              + " (bound %d)%n",
          kind, CLIENTS, sum, TimeUnit.NANOSECONDS.toMillis(elapsed), sum * 1e9 / elapsed, most,
          bound);
      assertThat(most)
          .as("connects of the busiest client in %d ms", TimeUnit.NANOSECONDS.toMillis(elapsed))
          .isLessThanOrEqualTo(bound);
      assertThat(sum).isLessThanOrEqualTo(CLIENTS * bound);
    } finally {
      for (Balancer b : clients) {
        b.dispose();
      }
      for (Balancer b : clients) {
        b.onClose().get(10, TimeUnit.SECONDS);
      }
      if (holder != null) {
        holder.dispose();
        holder.onClose().handle((v, e) -> null).get(10, TimeUnit.SECONDS);
      }
      if (server != null) {
        server.close();
        server.onClose().get(10, TimeUnit.SECONDS);
      }
      if (proxy != null) {
        proxy.close().await(10, TimeUnit.SECONDS);
        proxyLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
      }
      control.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }
  }

  private static boolean allAtLeast(AtomicIntegerArray a, int n) {
    for (int i = 0; i < a.length(); i++) {
      if (a.get(i) < n) {
        return false;
      }
    }
    return true;
  }
}
