package io.sluice.examples.guide;

import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.core.ConnectionOptions;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.ReactorResponder;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** docs/guide/flavors.md, project-reactor: every interaction from both ends. */
final class ReactorGuide {
  private ReactorGuide() {}

  static void api() {
    // tag::api[]
    // Server: one ReactorResponder per connection; it also gets a requester to call the client back.
    ServerTransport.Bound server =
        SluiceServer.builder(TcpServerTransport.create("127.0.0.1", 7878))
            .acceptor((setup, clientRequester) -> new ReactorResponder() {
              @Override
              public Mono<Message> requestResponse(Message request) {
                String text = request.dataUtf8();
                request.release();                       // the handler owns what it receives
                return Mono.just(Message.utf8(ByteBufAllocator.DEFAULT, "echo:" + text));
              }

              @Override
              public Flux<Message> requestStream(Message request) {
                request.release();
                return Flux.range(0, 1000).map(i -> Message.utf8(ByteBufAllocator.DEFAULT, "item " + i));
              }

              @Override
              public Flux<Message> requestChannel(Message first, Flux<Message> rest) {
                return Flux.concat(Mono.just(first), rest);  // echo every message back
              }
            })
            .bind()
            .block();

    // Client
    ReactorRequester requester =
        SluiceClient.builder(TcpClientTransport.create("127.0.0.1", 7878))
            .options(ConnectionOptions.builder().mtu(64 * 1024).build())
            .connect()
            .block();

    Message reply = requester.requestResponse(Message.utf8(requester.alloc(), "hi")).block();
    System.out.println(reply.dataUtf8());   // echo:hi
    reply.release();                        // the receiver releases what it gets

    requester.requestStream(Message.utf8(requester.alloc(), "go"))
        .limitRate(64)                      // request(n) becomes REQUEST_N on the wire
        .doOnNext(Message::release)
        .blockLast();

    requester.close();                      // graceful: CONNECTION_CLOSE, then live streams drain
    // end::api[]
    server.close();
  }
}
