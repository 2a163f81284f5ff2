package io.sluice.mutiny;

import io.smallrye.mutiny.Uni;
import io.sluice.SetupInfo;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.ServerTransport;
import java.util.Objects;

/**
 * Serves RSocket with the Mutiny API.
 *
 * <pre>{@code
 * ServerTransport.Bound server =
 *     MutinyServer.serve(TcpServerTransport.create("127.0.0.1", 7878), new MutinyResponder() {
 *           public Uni<Message> requestResponse(Message request) {
 *             return Uni.createFrom().item(request); // echo
 *           }
 *         })
 *         .await().indefinitely();
 * }</pre>
 *
 * <p><b>Threads.</b> Every method may be called from any thread; what the returned Uni yields may
 * arrive on an event loop thread, so do not block there. The acceptor and the responders are called
 * on each connection's event loop; the {@code Bound} may be closed from any thread. <b>Buffers.</b>
 * The acceptor's {@link io.sluice.SetupInfo} payload stays the core's (valid during the call only);
 * messages follow the rules of {@link MutinyResponder}.
 */
public final class MutinyServer {
  private MutinyServer() {}

  /** Decides on each connection: throw to reject the client's SETUP. */
  @FunctionalInterface
  public interface MutinyAcceptor {
    MutinyResponder accept(SetupInfo setup, MutinyRequester requester);
  }

  /** Serves every connection with the same handler, default options; binds when subscribed. */
  public static Uni<ServerTransport.Bound> serve(ServerTransport transport, MutinyResponder handler) {
    Objects.requireNonNull(handler, "handler");
    return serve(transport, ConnectionOptions.defaults(), (setup, requester) -> handler);
  }

  /** Serves connections; binds when subscribed. */
  public static Uni<ServerTransport.Bound> serve(
      ServerTransport transport, ConnectionOptions options, MutinyAcceptor acceptor) {
    Objects.requireNonNull(acceptor, "acceptor");
    return Uni.createFrom()
        .completionStage(
            () ->
                Connections.serve(
                    transport,
                    options,
                    (setup, requester) ->
                        MutinyClient.toResponder(
                            acceptor.accept(setup, new MutinyRequester(requester)))));
  }
}
