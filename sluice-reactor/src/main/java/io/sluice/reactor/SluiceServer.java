package io.sluice.reactor;

import io.sluice.SetupInfo;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.reactor.internal.ResponderAdapter;
import io.sluice.transport.ServerTransport;
import java.util.Objects;
import java.util.function.BiFunction;
import reactor.core.publisher.Mono;

/**
 * Serves RSocket with the project-reactor API.
 *
 * <pre>{@code
 * ServerTransport.Bound server =
 *     SluiceServer.builder(TcpServerTransport.create("127.0.0.1", 7878))
 *         .acceptor((setup, requester) -> new ReactorResponder() {
 *           public Mono<Message> requestResponse(Message request) {
 *             return Mono.just(request); // echo: ownership passes back to Sluice
 *           }
 *         })
 *         .bind()
 *         .block();
 * }</pre>
 *
 * <p><b>Threads.</b> A {@link Builder} is not thread-safe: configure it on one thread. The Mono of
 * {@link Builder#bind()} may be subscribed on any thread and may signal on an event loop, so do not
 * block there; the {@code Bound} may be closed from any thread. The acceptor and the responders are
 * called on each connection's event loop. <b>Buffers.</b> The acceptor's {@link
 * io.sluice.SetupInfo} payload stays the core's (valid during the call only); messages follow the
 * rules of {@link ReactorResponder} and {@link ReactorRequester}.
 */
public final class SluiceServer {
  private SluiceServer() {}

  public static Builder builder(ServerTransport transport) {
    return new Builder(transport);
  }

  /** An acceptor in reactor terms: throw to reject the client's SETUP. */
  @FunctionalInterface
  public interface ReactorAcceptor extends BiFunction<SetupInfo, ReactorRequester, ReactorResponder> {}

  public static final class Builder {
    private final ServerTransport transport;
    private ConnectionOptions options = ConnectionOptions.defaults();
    private ReactorAcceptor acceptor;

    private Builder(ServerTransport transport) {
      this.transport = Objects.requireNonNull(transport, "transport");
    }

    public Builder options(ConnectionOptions options) {
      this.options = Objects.requireNonNull(options, "options");
      return this;
    }

    /** Decides on each connection; gets the client's SETUP and a requester for calling it back. */
    public Builder acceptor(ReactorAcceptor acceptor) {
      this.acceptor = Objects.requireNonNull(acceptor, "acceptor");
      return this;
    }

    /** Serves every connection with the same responder. */
    public Builder responder(ReactorResponder responder) {
      Objects.requireNonNull(responder, "responder");
      this.acceptor = (setup, requester) -> responder;
      return this;
    }

    /** Binds when subscribed. */
    public Mono<ServerTransport.Bound> bind() {
      if (acceptor == null) {
        return Mono.error(new IllegalStateException("no acceptor or responder set"));
      }
      ReactorAcceptor a = acceptor;
      return Mono.defer(
          () ->
              Mono.fromFuture(
                  Connections.serve(
                      transport,
                      options,
                      (setup, requester) ->
                          new ResponderAdapter(a.apply(setup, new ReactorRequester(requester))))));
    }
  }
}
