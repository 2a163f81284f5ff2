package io.sluice.mutiny;

import io.smallrye.mutiny.Uni;
import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.ClientTransport;
import java.util.Objects;
import java.util.function.Function;

/**
 * Connects to an RSocket server with the Mutiny API.
 *
 * <pre>{@code
 * MutinyRequester requester =
 *     MutinyClient.connect(TcpClientTransport.create("127.0.0.1", 7878)).await().indefinitely();
 * Message reply =
 *     requester.requestResponse(Message.utf8(requester.alloc(), "hi")).await().indefinitely();
 * }</pre>
 *
 * <p><b>Threads.</b> Every method may be called from any thread; what the returned Uni yields may
 * arrive on an event loop thread, so do not block there. The requester it yields may be used from
 * any thread; a responder given here is called on the connection's event loop. <b>Buffers.</b> A
 * {@link io.sluice.core.ClientSetup}'s payload passes to the connect call, which sends or releases
 * it; messages follow the rules of {@link MutinyRequester}.
 */
public final class MutinyClient {
  private MutinyClient() {}

  /** Connects (when subscribed) with default options; requests from the server are refused. */
  public static Uni<MutinyRequester> connect(ClientTransport transport) {
    return connect(transport, ConnectionOptions.defaults(), ClientSetup.defaults(), r -> null);
  }

  /** Connects when subscribed; {@code responder} handles the server's requests (may return null). */
  public static Uni<MutinyRequester> connect(
      ClientTransport transport,
      ConnectionOptions options,
      ClientSetup setup,
      Function<MutinyRequester, MutinyResponder> responder) {
    Objects.requireNonNull(responder, "responder");
    return Uni.createFrom()
        .completionStage(
            () ->
                Connections.connect(
                        transport,
                        options,
                        setup,
                        r -> toResponder(responder.apply(new MutinyRequester(r))))
                    .thenApply(MutinyRequester::new));
  }

  /** The core {@link Responder} serving requests with {@code handler}; null means defaults. */
  public static Responder toResponder(MutinyResponder handler) {
    return new MutinyResponderAdapter(handler != null ? handler : new MutinyResponder() {});
  }
}
