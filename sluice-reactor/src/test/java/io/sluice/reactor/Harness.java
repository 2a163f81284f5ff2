package io.sluice.reactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.EventExecutorGroup;
import io.sluice.Message;
import io.sluice.SetupInfo;
import io.sluice.core.ConnectionOptions;
import io.sluice.test.RawPeer;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.local.LocalRawPeer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One server and its clients over a {@link TestTransport}, torn down by {@link #close()}. Waits are
 * bounded ({@link #TIMEOUT}) so a broken test fails instead of hanging.
 */
final class Harness implements AutoCloseable {
  static final Duration TIMEOUT = Duration.ofSeconds(30);
  /** Test messages come from the pooled allocator so the leak detector tracks them. */
  static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

  final TestTransport kind;
  private final TestTransport.Server server;
  final ServerTransport.Bound bound;
  final BlockingQueue<ReactorRequester> serverRequesters = new LinkedBlockingQueue<>();
  final BlockingQueue<SetupInfo> setups = new LinkedBlockingQueue<>();
  private final ConnectionOptions clientOptions;
  private final Function<ReactorRequester, ReactorResponder> clientResponder;
  private final List<ReactorRequester> clients = new ArrayList<>();
  /** The first client. */
  final ReactorRequester client;

  private Harness(Builder b) {
    this.kind = b.kind;
    this.server = b.loop != null ? b.kind.server(b.loop) : b.kind.server();
    this.clientOptions = b.clientOptions;
    this.clientResponder = b.clientResponder;
    SluiceServer.ReactorAcceptor acceptor = b.acceptor;
    this.bound =
        SluiceServer.builder(server.transport())
            .options(b.serverOptions)
            .acceptor(
                (setup, requester) -> {
                  setups.add(setup);
                  serverRequesters.add(requester);
                  return acceptor.apply(setup, requester);
                })
            .bind()
            .block(TIMEOUT);
    this.client = b.withClient ? connect() : null;
  }

  /** A client transport to this harness' server, for clients built by the test. */
  io.sluice.transport.ClientTransport clientTransport() {
    return server.clientFor().apply(bound);
  }

  /** A raw peer connected to the server, speaking frames by hand. */
  RawPeer raw() {
    if (kind == TestTransport.TCP) {
      // A small receive buffer, so a peer that stops reading fills it quickly.
      return RawPeer.Tcp.connect(((java.net.InetSocketAddress) bound.address()).getPort(), 16 * 1024);
    }
    return LocalRawPeer.connect(server.clientFor().apply(bound));
  }

  static Builder builder(TestTransport kind) {
    return new Builder(kind);
  }

  /** Opens one more client connection. */
  ReactorRequester connect() {
    ReactorRequester r =
        SluiceClient.builder(server.clientFor().apply(bound))
            .options(clientOptions)
            .responder(clientResponder)
            .connect()
            .block(TIMEOUT);
    synchronized (clients) {
      clients.add(r);
    }
    return r;
  }

  /** The requester the server's acceptor got for the next accepted connection. */
  ReactorRequester serverRequester() {
    try {
      ReactorRequester r = serverRequesters.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      assertThat(r).as("a connection accepted by the server").isNotNull();
      return r;
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  @Override
  public void close() {
    List<ReactorRequester> all;
    synchronized (clients) {
      all = new ArrayList<>(clients);
    }
    for (ReactorRequester r : all) {
      r.dispose();
    }
    for (ReactorRequester r : all) {
      r.onClose().onErrorResume(e -> reactor.core.publisher.Mono.empty()).block(TIMEOUT);
    }
    for (ReactorRequester r : serverRequesters) {
      r.onClose().onErrorResume(e -> reactor.core.publisher.Mono.empty()).block(TIMEOUT);
    }
    bound.close();
  }

  static final class Builder {
    private final TestTransport kind;
    private ConnectionOptions serverOptions = ConnectionOptions.defaults();
    private ConnectionOptions clientOptions = ConnectionOptions.defaults();
    private SluiceServer.ReactorAcceptor acceptor = (s, r) -> new ReactorResponder() {};
    private Function<ReactorRequester, ReactorResponder> clientResponder =
        r -> new ReactorResponder() {};
    private boolean withClient = true;
    private EventExecutorGroup loop;

    private Builder(TestTransport kind) {
      this.kind = kind;
    }

    Builder options(ConnectionOptions both) {
      this.serverOptions = both;
      this.clientOptions = both;
      return this;
    }

    Builder serverOptions(ConnectionOptions o) {
      this.serverOptions = o;
      return this;
    }

    Builder clientOptions(ConnectionOptions o) {
      this.clientOptions = o;
      return this;
    }

    Builder responder(ReactorResponder r) {
      this.acceptor = (s, req) -> r;
      return this;
    }

    Builder acceptor(SluiceServer.ReactorAcceptor a) {
      this.acceptor = a;
      return this;
    }

    Builder clientResponder(Function<ReactorRequester, ReactorResponder> r) {
      this.clientResponder = r;
      return this;
    }

    /**
     * Runs every connection, both sides, on {@code loop} (in practice a {@link
     * io.sluice.test.ManualClockLoop}, so the test moves the clock of their timers). In-JVM
     * transport only.
     */
    Builder loop(EventExecutorGroup loop) {
      this.loop = loop;
      return this;
    }

    /** Starts the server only: the test connects raw peers. */
    Builder noClient() {
      this.withClient = false;
      return this;
    }

    Harness start() {
      return new Harness(this);
    }
  }

  // ---- messages ---------------------------------------------------------------------------------

  static Message msg(String data) {
    return Message.utf8(ALLOC, data);
  }

  static Message msg(String metadata, String data) {
    return Message.utf8(ALLOC, metadata, data);
  }

  /** "metadata|data" (or just data when there is no metadata); releases the message. */
  static String text(Message m) {
    try {
      return m.hasMetadata() ? m.metadataUtf8() + "|" + m.dataUtf8() : m.dataUtf8();
    } finally {
      m.release();
    }
  }

  /** The data as UTF-8; releases the message. */
  static String data(Message m) {
    try {
      return m.dataUtf8();
    } finally {
      m.release();
    }
  }
}
