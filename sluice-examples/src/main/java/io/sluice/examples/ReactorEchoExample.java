package io.sluice.examples;

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
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A runnable example: a server and a client on 127.0.0.1 doing a request-response, a
 * request-stream, a request-channel, and the server calling the client back.
 */
public final class ReactorEchoExample {
  private ReactorEchoExample() {}

  public static void main(String[] args) {
    run(System.out);
  }

  /** Runs the example, printing what happens; returns the lines it received. */
  public static List<String> run(PrintStream out) {
    ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
    ServerTransport.Bound server =
        SluiceServer.builder(TcpServerTransport.create("127.0.0.1", 0))
            .acceptor(
                (setup, clientRequester) ->
                    new ReactorResponder() {
                      @Override
                      public Mono<Message> requestResponse(Message request) {
                        String text = request.dataUtf8();
                        request.release(); // the handler owns what it receives
                        if (text.equals("call me back")) {
                          // RSocket is symmetric: the server asks the client something first.
                          return clientRequester
                              .requestResponse(Message.utf8(alloc, "who are you?"))
                              .map(
                                  answer -> {
                                    String who = answer.dataUtf8();
                                    answer.release();
                                    return Message.utf8(alloc, "client says: " + who);
                                  });
                        }
                        return Mono.just(Message.utf8(alloc, "echo:" + text));
                      }

                      @Override
                      public Flux<Message> requestStream(Message request) {
                        request.release();
                        return Flux.range(0, 3).map(i -> Message.utf8(alloc, "item " + i));
                      }

                      @Override
                      public Flux<Message> requestChannel(Message first, Flux<Message> rest) {
                        return Flux.concat(Mono.just(first), rest); // echo every message back
                      }
                    })
            .bind()
            .block(Duration.ofSeconds(10));
    int port = ((InetSocketAddress) server.address()).getPort();
    ReactorRequester requester =
        SluiceClient.builder(TcpClientTransport.create("127.0.0.1", port))
            .options(ConnectionOptions.builder().mtu(64 * 1024).build())
            .responder(
                serverRequester ->
                    new ReactorResponder() {
                      @Override
                      public Mono<Message> requestResponse(Message request) {
                        request.release();
                        return Mono.just(Message.utf8(alloc, "the example client"));
                      }
                    })
            .connect()
            .block(Duration.ofSeconds(10));
    try {
      Flux<String> all =
          Flux.concat(
              requester.requestResponse(Message.utf8(alloc, "hi")).map(ReactorEchoExample::text),
              requester.requestStream(Message.utf8(alloc, "go")).map(ReactorEchoExample::text),
              requester
                  .requestChannel(Flux.just("a", "b").map(s -> Message.utf8(alloc, s)))
                  .map(ReactorEchoExample::text),
              requester
                  .requestResponse(Message.utf8(alloc, "call me back"))
                  .map(ReactorEchoExample::text));
      List<String> lines = all.doOnNext(out::println).collectList().block(Duration.ofSeconds(10));
      return lines;
    } finally {
      requester.close();
      server.close();
    }
  }

  /** Reads a message as text and releases it: the receiver owns what it gets. */
  private static String text(Message m) {
    try {
      return m.dataUtf8();
    } finally {
      m.release();
    }
  }
}
