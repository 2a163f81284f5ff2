package io.sluice.examples.guide;

// tag::readme-imports[]
import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import reactor.core.publisher.Mono;
// end::readme-imports[]

/** README's example: an echo server and a client doing one request-response over TCP. */
public final class QuickStart {
  private QuickStart() {}

  /** Runs the example on {@code port}; returns what the client received. */
  public static String run(int port) {
    // tag::readme[]
    // Server: one ReactorResponder per connection.
    ServerTransport.Bound server =
        SluiceServer.builder(TcpServerTransport.create("127.0.0.1", port))
            .acceptor((setup, clientRequester) -> new ReactorResponder() {
              @Override
              public Mono<Message> requestResponse(Message request) {
                String text = request.dataUtf8();
                request.release();                   // the receiver owns what it gets
                return Mono.just(Message.utf8(ByteBufAllocator.DEFAULT, "echo:" + text));
              }
            })
            .bind()
            .block();

    // Client: one request-response.
    ReactorRequester client =
        SluiceClient.builder(TcpClientTransport.create("127.0.0.1", port)).connect().block();
    Message reply = client.requestResponse(Message.utf8(client.alloc(), "hi")).block();
    String text = reply.dataUtf8();                  // "echo:hi"
    reply.release();
    client.close();
    server.close();
    // end::readme[]
    return text;
  }
}
