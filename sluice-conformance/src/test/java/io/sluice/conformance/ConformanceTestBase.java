package io.sluice.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.test.FrameBuilder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;

/**
 * Shared set-up for the rule tests: a Sluice server with a raw client, or a raw server with a Sluice
 * client, over either {@link Wire}. Everything opened is closed after the test, and the test fails
 * if Sluice sent any frame that breaks a send-side rule ({@link SendRules}).
 */
abstract class ConformanceTestBase {
  static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

  private final Deque<AutoCloseable> resources = new ArrayDeque<>();
  private final List<RawPeer> peers = new ArrayList<>();

  /** Fast-failing defaults for the suite; the keepalive stays long so it never interferes. */
  static ConnectionOptions.Builder options() {
    return ConnectionOptions.builder().mtu(0);
  }

  <T extends AutoCloseable> T closeLater(T resource) {
    resources.push(resource);
    return resource;
  }

  /** A Sluice server with {@code responder} for every connection, and a raw client connected to it. */
  RawPeer rawClient(Wire wire, ConnectionOptions options, Responder responder) {
    return rawClient(wire, options, (setup, requester) -> responder);
  }

  RawPeer rawClient(Wire wire, ConnectionOptions options, io.sluice.Acceptor acceptor) {
    Wire.SluiceServerSide server = closeLater(wire.serve(options, acceptor));
    RawPeer peer = closeLater(server.connectRaw());
    peers.add(peer);
    return peer;
  }

  /** A raw client that has sent a plain SETUP (no lease) to a Sluice server. */
  RawPeer established(Wire wire, Responder responder) {
    RawPeer peer = rawClient(wire, options().build(), responder);
    peer.send(FrameBuilder.setup());
    return peer;
  }

  /** A raw server with a Sluice client connecting to it. */
  final class ClientSide {
    final RawPeer peer;
    final CompletableFuture<Requester> requester;
    final WireFrame setup;

    ClientSide(Wire wire, ConnectionOptions options, Function<Requester, Responder> responder) {
      Wire.RawServerSide server = closeLater(wire.rawServer());
      requester =
          Connections.connect(server.clientTransport(), options, ClientSetup.defaults(), responder);
      peer = closeLater(server.accept());
      peers.add(peer);
      setup = peer.next();
      assertThat(WireFrame.name(setup.type())).as("the client's first frame").isEqualTo("SETUP");
      resources.push(
          () -> {
            if (requester.isDone() && !requester.isCompletedExceptionally()) {
              requester.join().dispose();
            }
          });
    }

    Requester requester() {
      return Wire.get(requester);
    }
  }

  ClientSide sluiceClient(Wire wire, ConnectionOptions options, Responder responder) {
    return new ClientSide(wire, options, r -> responder);
  }

  ClientSide sluiceClient(Wire wire) {
    return sluiceClient(wire, options().build(), new Recorder());
  }

  static Message utf8(String data) {
    return Message.utf8(ALLOC, data);
  }

  static Message utf8(String metadata, String data) {
    return Message.utf8(ALLOC, metadata, data);
  }

  @AfterEach
  void closeAndCheckSendRules() throws Exception {
    Throwable failure = null;
    while (!resources.isEmpty()) {
      try {
        resources.pop().close();
      } catch (Throwable t) {
        failure = t;
      }
    }
    for (RawPeer p : peers) {
      assertThat(p.violations()).as("send-side rule violations in frames Sluice sent").isEmpty();
      assertThat(p.failure()).as("how the raw peer's connection broke").isNull();
    }
    if (failure instanceof Exception) {
      throw (Exception) failure;
    } else if (failure != null) {
      throw new AssertionError(failure);
    }
  }
}
