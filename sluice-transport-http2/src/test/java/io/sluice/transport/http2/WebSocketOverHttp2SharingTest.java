package io.sluice.transport.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FramePrefix;
import io.sluice.transport.FrameReceiver;
import io.sluice.transport.ServerTransport;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The point of RFC 8441: one TCP connection carries many RSocket connections, each independent of
 * the others. Several connects of one client transport share one TCP connection (the server sees
 * them all from one remote address); closing one leaves the others working; one that stops
 * reading stops only its own stream (its HTTP/2 window), not the others; a server that allows
 * fewer concurrent streams makes the client open more TCP connections.
 */
class WebSocketOverHttp2SharingTest {
  private static final Duration WAIT = Duration.ofSeconds(20); // hang guard only

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final Set<SocketAddress> remotes = ConcurrentHashMap.newKeySet();
  private final AtomicInteger accepted = new AtomicInteger();
  private final BlockingQueue<ReactorRequester> serverSides = new LinkedBlockingQueue<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  private static String take(Message m) {
    try {
      return m.dataUtf8();
    } finally {
      m.release();
    }
  }

  /** An echo server that notes the remote address of each RSocket connection it accepts. */
  private int serve(WebSocketOverHttp2ServerTransport transport) {
    ServerTransport recording =
        onConnection ->
            transport.bind(
                t -> {
                  remotes.add(t.remoteAddress());
                  accepted.incrementAndGet();
                  onConnection.accept(t);
                });
    ServerTransport.Bound bound =
        SluiceServer.builder(recording)
            .acceptor(
                (setup, requester) -> {
                  serverSides.add(requester);
                  return new ReactorResponder() {
                    @Override
                    public Mono<Message> requestResponse(Message request) {
                      return Mono.just(Message.utf8(ByteBufAllocator.DEFAULT, "echo " + take(request)));
                    }
                  };
                })
            .bind()
            .block(WAIT);
    toClose.add(bound);
    return ((InetSocketAddress) bound.address()).getPort();
  }

  private ReactorRequester connect(WebSocketOverHttp2ClientTransport transport) {
    ReactorRequester r = SluiceClient.builder(transport).connect().block(WAIT);
    toClose.add(r::dispose);
    return r;
  }

  private static String call(ReactorRequester r, String text) {
    return take(r.requestResponse(Message.utf8(ByteBufAllocator.DEFAULT, text)).block(WAIT));
  }

  /** Waits (a hang guard, not a timing) until {@code condition} holds. */
  private static void awaitTrue(String what, Callable<Boolean> condition) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.call()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + WAIT + ": " + what);
      }
      Thread.sleep(10);
    }
  }

  @Test
  void connectsShareOneTcpConnectionAndCloseIndependently() throws Exception {
    int port = serve(WebSocketOverHttp2ServerTransport.create("127.0.0.1", 0).withPath("/rs"));
    WebSocketOverHttp2ClientTransport client =
        WebSocketOverHttp2ClientTransport.create("127.0.0.1", port).withPath("/rs");
    int n = 5;
    List<ReactorRequester> connections = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      connections.add(connect(client));
    }
    for (int i = 0; i < n; i++) {
      assertThat(call(connections.get(i), "c" + i)).isEqualTo("echo c" + i);
    }
    assertThat(accepted).as("RSocket connections the server accepted").hasValue(n);
    assertThat(remotes).as("remote addresses they came from: one TCP connection").hasSize(1);
    assertThat(client.openTcpConnections()).isEqualTo(1);

    // Closing one RSocket connection ends its stream only.
    List<ReactorRequester> servers = new ArrayList<>();
    serverSides.drainTo(servers);
    assertThat(servers).hasSize(n);
    ReactorRequester first = connections.get(0);
    first.dispose();
    first.onClose().onErrorComplete().block(WAIT);
    awaitTrue("the server's side of the closed connection closing", () -> servers.stream().filter(s -> !s.isOpen()).count() == 1);
    for (int i = 1; i < n; i++) {
      assertThat(connections.get(i).isOpen()).isTrue();
      assertThat(call(connections.get(i), "again " + i)).isEqualTo("echo again " + i);
    }
    assertThat(client.openTcpConnections()).isEqualTo(1);

    // A new connect still goes over the same TCP connection.
    ReactorRequester late = connect(client);
    connections.add(late);
    assertThat(call(late, "late")).isEqualTo("echo late");
    assertThat(remotes).hasSize(1);

    // The server closing one of them: the same.
    ReactorRequester serverSide = servers.get(1);
    serverSide.dispose();
    connections.get(1).onClose().onErrorComplete().block(WAIT);
    assertThat(call(connections.get(2), "still")).isEqualTo("echo still");

    // Once every RSocket connection is closed, so is the TCP connection.
    for (ReactorRequester c : connections) {
      c.dispose();
      c.onClose().onErrorComplete().block(WAIT);
    }
    awaitTrue("the client closing its idle TCP connection", () -> client.openTcpConnections() == 0);
  }

  @Test
  void aServerWithFewerStreamsGetsMoreTcpConnections() throws Exception {
    int port =
        serve(WebSocketOverHttp2ServerTransport.create("127.0.0.1", 0).withMaxConcurrentStreams(2));
    WebSocketOverHttp2ClientTransport client = WebSocketOverHttp2ClientTransport.create("127.0.0.1", port);
    List<ReactorRequester> connections = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      connections.add(connect(client));
    }
    for (int i = 0; i < 5; i++) {
      assertThat(call(connections.get(i), "c" + i)).isEqualTo("echo c" + i);
    }
    assertThat(client.openTcpConnections()).isEqualTo(3);
    assertThat(remotes).hasSize(3);
    for (ReactorRequester c : connections) {
      c.dispose();
      c.onClose().onErrorComplete().block(WAIT);
    }
    awaitTrue("the client closing its idle TCP connections", () -> client.openTcpConnections() == 0);
  }

  // ---- a paused RSocket connection, at the transport level -------------------------------------

  /** Counts the frames it is lent; reads them as the engine would (borrowed). */
  private static final class Counter implements FrameReceiver {
    final AtomicInteger frames = new AtomicInteger();
    final CountDownLatch closed = new CountDownLatch(1);
    volatile int expected = Integer.MAX_VALUE;
    final CountDownLatch all = new CountDownLatch(1);

    @Override
    public int maxFrameSize() {
      return 1 << 20;
    }

    @Override
    public int maxQueuedOutboundBytes() {
      return 64 * 1024;
    }

    @Override
    public void onFrame(ByteBuf frame) {
      if (frames.incrementAndGet() >= expected) {
        all.countDown();
      }
    }

    @Override
    public void onReadComplete() {}

    @Override
    public void onWritabilityChanged(boolean writable) {}

    @Override
    public void onTransportError(Throwable cause) {}

    @Override
    public void onClosed() {
      closed.countDown();
    }
  }

  private static <T> T onLoop(DuplexTransport t, Callable<T> c) throws Exception {
    return t.executor().submit(c).get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  /** Writes {@code count} frames of {@code size} bytes behind the transport's prefix, then flushes. */
  private static void writeFrames(DuplexTransport t, int count, int size) throws Exception {
    onLoop(
        t,
        () -> {
          FramePrefix prefix = t.framePrefix();
          for (int i = 0; i < count; i++) {
            ByteBuf b = t.alloc().buffer(prefix.maxLength() + size);
            prefix.write(b, size);
            b.writeZero(size);
            t.write(b);
          }
          t.flush();
          return null;
        });
  }

  @Test
  void aConnectionThatStopsReadingDoesNotStallTheOthers() throws Exception {
    BlockingQueue<DuplexTransport> serverEnds = new LinkedBlockingQueue<>();
    ServerTransport.Bound bound =
        WebSocketOverHttp2ServerTransport.create("127.0.0.1", 0).bind(serverEnds::add).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    toClose.add(bound);
    WebSocketOverHttp2ClientTransport client =
        WebSocketOverHttp2ClientTransport.create("127.0.0.1", ((InetSocketAddress) bound.address()).getPort());
    DuplexTransport pausedClient = client.connect().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    DuplexTransport otherClient = client.connect().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    toClose.add(() -> onLoop(pausedClient, () -> { pausedClient.close(); return null; }));
    toClose.add(() -> onLoop(otherClient, () -> { otherClient.close(); return null; }));
    assertThat(client.openTcpConnections()).isEqualTo(1);
    DuplexTransport pausedServer = serverEnds.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
    DuplexTransport otherServer = serverEnds.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
    Counter[] receivers = new Counter[4];
    DuplexTransport[] ends = {pausedClient, otherClient, pausedServer, otherServer};
    for (int i = 0; i < 4; i++) {
      Counter c = receivers[i] = new Counter();
      DuplexTransport t = ends[i];
      onLoop(t, () -> { t.start(c); return null; });
    }
    Counter paused = receivers[0];
    Counter other = receivers[1];

    // 4 MiB to the paused one: 4 times its stream window (1 MiB) and far above its high water mark.
    int size = 16 * 1024;
    int total = (4 << 20) / size;
    onLoop(pausedClient, () -> { pausedClient.setReadEnabled(false); return null; });
    writeFrames(pausedServer, total, size);
    // The other RSocket connection on the same TCP connection gets all of the same amount.
    other.expected = total;
    writeFrames(otherServer, total, size);
    assertThat(other.all.await(WAIT.toSeconds(), TimeUnit.SECONDS))
        .as("every frame to the connection still reading, while the other is paused")
        .isTrue();
    assertThat(onLoop(pausedServer, pausedServer::isWritable))
        .as("the paused connection's server end: unwritable, its stream's window closed")
        .isFalse();
    assertThat(paused.frames.get())
        .as("frames the paused connection got: at most its stream's window")
        .isLessThanOrEqualTo((1 << 20) / size + 1);

    paused.expected = total;
    onLoop(pausedClient, () -> { pausedClient.setReadEnabled(true); return null; });
    assertThat(paused.all.await(WAIT.toSeconds(), TimeUnit.SECONDS))
        .as("every frame once the paused connection reads again")
        .isTrue();
    assertThat(onLoop(pausedServer, pausedServer::isWritable)).isTrue();
  }
}
