package io.sluice.grpcstub;

import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.ClientTransport;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Connects to an RSocket server with the gRPC StreamObserver API.
 *
 * <pre>{@code
 * GrpcRequester requester = GrpcClient.connect(TcpClientTransport.create("127.0.0.1", 7878)).join();
 * requester.requestResponse(Message.utf8(requester.alloc(), "hi"), new StreamObserver<Message>() {
 *   public void onNext(Message reply) { System.out.println(reply.dataUtf8()); reply.release(); }
 *   public void onError(Throwable t) { t.printStackTrace(); }
 *   public void onCompleted() {}
 * });
 * }</pre>
 *
 * <p><b>Threads.</b> Every method may be called from any thread; what the returned future yields
 * may arrive on an event loop thread, so do not block there. The requester it yields may be used
 * from any thread; a responder given here is called on the connection's event loop. <b>Buffers.</b>
 * A {@link io.sluice.core.ClientSetup}'s payload passes to the connect call, which sends or
 * releases it; messages follow the rules of {@link GrpcRequester}.
 */
public final class GrpcClient {
  private GrpcClient() {}

  /** Connects with default options; requests from the server are refused. */
  public static CompletableFuture<GrpcRequester> connect(ClientTransport transport) {
    return connect(transport, ConnectionOptions.defaults(), ClientSetup.defaults(), r -> null);
  }

  /** Connects; {@code responder} handles the server's requests to this client (may return null). */
  public static CompletableFuture<GrpcRequester> connect(
      ClientTransport transport,
      ConnectionOptions options,
      ClientSetup setup,
      Function<GrpcRequester, GrpcResponder> responder) {
    Objects.requireNonNull(responder, "responder");
    return Connections.connect(
            transport, options, setup, r -> toResponder(responder.apply(new GrpcRequester(r))))
        .thenApply(GrpcRequester::new);
  }

  /** The core {@link Responder} serving requests with {@code handler}; null means defaults. */
  public static Responder toResponder(GrpcResponder handler) {
    return new GrpcResponderAdapter(handler != null ? handler : new GrpcResponder() {});
  }
}
