package io.sluice.rxjava;

import io.reactivex.rxjava3.core.Single;
import io.sluice.SetupInfo;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.ServerTransport;
import java.util.Objects;

/**
 * Serves RSocket with the rxjava3 API.
 *
 * <pre>{@code
 * ServerTransport.Bound server =
 *     RxServer.serve(TcpServerTransport.create("127.0.0.1", 7878), new RxResponder() {
 *           public Single<Message> requestResponse(Message request) {
 *             return Single.just(request); // echo
 *           }
 *         })
 *         .blockingGet();
 * }</pre>
 *
 * <p><b>Threads.</b> Every method may be called from any thread; what the returned Single yields
 * may arrive on an event loop thread, so do not block there. The acceptor and the responders are
 * called on each connection's event loop; the {@code Bound} may be closed from any thread.
 * <b>Buffers.</b> The acceptor's {@link io.sluice.SetupInfo} payload stays the core's (valid during
 * the call only); messages follow the rules of {@link RxResponder}.
 */
public final class RxServer {
  private RxServer() {}

  /** Decides on each connection: throw to reject the client's SETUP. */
  @FunctionalInterface
  public interface RxAcceptor {
    RxResponder accept(SetupInfo setup, RxRequester requester);
  }

  /** Serves every connection with the same handler, default options; binds when subscribed. */
  public static Single<ServerTransport.Bound> serve(ServerTransport transport, RxResponder handler) {
    Objects.requireNonNull(handler, "handler");
    return serve(transport, ConnectionOptions.defaults(), (setup, requester) -> handler);
  }

  /** Serves connections; binds when subscribed. */
  public static Single<ServerTransport.Bound> serve(
      ServerTransport transport, ConnectionOptions options, RxAcceptor acceptor) {
    Objects.requireNonNull(acceptor, "acceptor");
    return Single.defer(
        () ->
            Single.fromCompletionStage(
                Connections.serve(
                    transport,
                    options,
                    (setup, requester) ->
                        RxClient.toResponder(acceptor.accept(setup, new RxRequester(requester))))));
  }
}
