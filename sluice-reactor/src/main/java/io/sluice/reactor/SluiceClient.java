package io.sluice.reactor;

import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.reactor.internal.ResponderAdapter;
import io.sluice.transport.ClientTransport;
import java.util.Objects;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * Connects to an RSocket server with the project-reactor API.
 *
 * <pre>{@code
 * ReactorRequester requester =
 *     SluiceClient.builder(TcpClientTransport.create("127.0.0.1", 7878)).connect().block();
 * Message reply = requester.requestResponse(Message.utf8("hello")).block();
 * }</pre>
 *
 * <p><b>Threads.</b> A {@link Builder} is not thread-safe: configure it on one thread. The Mono of
 * {@link Builder#connect()} may be subscribed on any thread and may signal on the connection's
 * event loop, so do not block there. The {@link ReactorRequester} may be used from any thread; a
 * responder given here is called on the connection's event loop. <b>Buffers.</b> The payload of
 * {@link Builder#setup} passes to the next connect subscribed, which sends or releases it; messages
 * follow the rules of {@link ReactorRequester} and {@link ReactorResponder}.
 */
public final class SluiceClient {
  private SluiceClient() {}

  public static Builder builder(ClientTransport transport) {
    return new Builder(transport);
  }

  /** Collects the connection's settings; {@link #connect()} may be called more than once. */
  public static final class Builder {
    private final ClientTransport transport;
    private ConnectionOptions options = ConnectionOptions.defaults();
    private ClientSetup setup;
    private Function<ReactorRequester, ReactorResponder> responder = r -> new ReactorResponder() {};

    private Builder(ClientTransport transport) {
      this.transport = Objects.requireNonNull(transport, "transport");
    }

    public Builder options(ConnectionOptions options) {
      this.options = Objects.requireNonNull(options, "options");
      return this;
    }

    /** MIME types and setup payload; the payload is sent (and released) by the next connect. */
    public Builder setup(ClientSetup setup) {
      this.setup = Objects.requireNonNull(setup, "setup");
      return this;
    }

    /** Handles the server's requests to this client (RSocket is symmetric). */
    public Builder responder(Function<ReactorRequester, ReactorResponder> responder) {
      this.responder = Objects.requireNonNull(responder, "responder");
      return this;
    }

    /** Connects when subscribed. */
    public Mono<ReactorRequester> connect() {
      return Mono.defer(
          () -> {
            ClientSetup s = setup != null ? setup : ClientSetup.defaults();
            setup = null;
            return Mono.fromFuture(
                Connections.connect(
                        transport,
                        options,
                        s,
                        r -> new ResponderAdapter(responder.apply(new ReactorRequester(r))))
                    .thenApply(ReactorRequester::new));
          });
    }
  }
}
