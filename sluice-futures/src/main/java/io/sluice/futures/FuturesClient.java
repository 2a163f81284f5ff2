package io.sluice.futures;

import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.ClientTransport;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Connects to an RSocket server with the JDK-only API.
 *
 * <pre>{@code
 * FuturesRequester requester =
 *     FuturesClient.connect(TcpClientTransport.create("127.0.0.1", 7878)).join();
 * Message reply = requester.requestResponse(Message.utf8(requester.alloc(), "hi")).join();
 * }</pre>
 *
 * <p><b>Threads.</b> Every method may be called from any thread; what the returned future yields
 * may arrive on an event loop thread, so do not block there. The requester it yields may be used
 * from any thread; a responder given here is called on the connection's event loop. <b>Buffers.</b>
 * A {@link io.sluice.core.ClientSetup}'s payload passes to the connect call, which sends or
 * releases it; messages follow the rules of {@link FuturesRequester}.
 */
public final class FuturesClient {
  private FuturesClient() {}

  /** Connects with default options and no responder for the server's requests. */
  public static CompletableFuture<FuturesRequester> connect(ClientTransport transport) {
    return connect(transport, ConnectionOptions.defaults(), ClientSetup.defaults(), r -> null);
  }

  /**
   * Connects.
   *
   * @param setup MIME types and setup payload (ownership of the payload passes here)
   * @param responder makes the handler for the server's requests to this client; may return null
   *     (then every request from the server is refused as not implemented)
   */
  public static CompletableFuture<FuturesRequester> connect(
      ClientTransport transport,
      ConnectionOptions options,
      ClientSetup setup,
      Function<FuturesRequester, FuturesResponder> responder) {
    Objects.requireNonNull(responder, "responder");
    return Connections.connect(
            transport, options, setup, r -> toResponder(responder.apply(new FuturesRequester(r))))
        .thenApply(FuturesRequester::new);
  }

  /** The core {@link Responder} that serves requests with {@code handler}; null means defaults. */
  public static Responder toResponder(FuturesResponder handler) {
    return new FuturesResponderAdapter(handler != null ? handler : new FuturesResponder() {});
  }
}
