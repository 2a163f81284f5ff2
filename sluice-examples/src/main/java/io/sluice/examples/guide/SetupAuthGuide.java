package io.sluice.examples.guide;

import io.netty.buffer.ByteBufAllocator;
import io.sluice.Acceptor;
import io.sluice.Message;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.SluiceServer;
import io.sluice.exceptions.RejectedSetupException;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.rsocket.RpcResponder;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import java.time.Duration;
import java.util.function.Predicate;

/**
 * docs/guide/authentication.md: a client presents a token in its SETUP payload; the server's
 * acceptor checks it before the connection serves anything. SetupAuthGuideTest runs it.
 */
public final class SetupAuthGuide {
  private SetupAuthGuide() {}

  // tag::acceptor[]
  /** Accepts a connection whose SETUP data is a valid token; refuses any other with REJECTED_SETUP. */
  public static Acceptor authenticating(Predicate<String> validToken, Acceptor next) {
    return (setup, requester) -> {
      Message payload = setup.payload(); // the core's: read it during this call, do not keep it
      String token = payload == null ? "" : payload.dataUtf8();
      if (!validToken.test(token)) {
        throw new RejectedSetupException("invalid token"); // sent to the client, then the close
      }
      return next.accept(setup, requester); // e.g. the RPC services, for this client
    };
  }
  // end::acceptor[]

  /** Serves {@code registry} to clients with a valid token. */
  public static SluiceServer serve(
      ServerTransport transport, ServiceRegistry registry, Predicate<String> validToken) {
    // tag::serve[]
    SluiceServer server =
        Connections.start(
                transport,
                ConnectionOptions.defaults(),
                authenticating(validToken, RpcResponder.acceptor(registry)))
            .join();
    // end::serve[]
    return server;
  }

  /** Connects with {@code token} in the SETUP payload. */
  public static ReactorRequester connect(ClientTransport transport, String token) {
    // tag::client[]
    ReactorRequester connection =
        SluiceClient.builder(transport)
            .setup(
                ClientSetup.of(
                    ClientSetup.DEFAULT_MIME_TYPE, // metadata MIME type
                    ClientSetup.DEFAULT_MIME_TYPE, // data MIME type
                    Message.utf8(ByteBufAllocator.DEFAULT, token))) // released by the connector
            .connect()
            .block(Duration.ofSeconds(10));
    // Refused: connection.onClose() fails with RejectedSetupException("invalid token"), and so
    // does every call made on the connection.
    // end::client[]
    return connection;
  }
}
