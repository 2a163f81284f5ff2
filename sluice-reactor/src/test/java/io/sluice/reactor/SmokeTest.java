package io.sluice.reactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

class SmokeTest {
  @Test
  void tcpEcho() {
    ServerTransport.Bound server =
        SluiceServer.builder(TcpServerTransport.create("127.0.0.1", 0))
            .responder(
                new ReactorResponder() {
                  @Override
                  public Mono<Message> requestResponse(Message request) {
                    String s = request.dataUtf8();
                    request.release();
                    return Mono.just(Message.utf8(ByteBufAllocator.DEFAULT, "echo:" + s));
                  }

                  @Override
                  public Flux<Message> requestStream(Message request) {
                    String s = request.dataUtf8();
                    request.release();
                    return Flux.range(0, 5).map(i -> Message.utf8(ByteBufAllocator.DEFAULT, s + "-" + i));
                  }
                })
            .bind()
            .block(Duration.ofSeconds(30));
    int port = ((InetSocketAddress) server.address()).getPort();
    ReactorRequester r =
        SluiceClient.builder(TcpClientTransport.create("127.0.0.1", port)).connect().block(Duration.ofSeconds(30));
    Message reply = r.requestResponse(Message.utf8(r.alloc(), "hi")).block(Duration.ofSeconds(30));
    assertThat(reply.dataUtf8()).isEqualTo("echo:hi");
    reply.release();
    List<String> items =
        r.requestStream(Message.utf8(r.alloc(), "s"))
            .map(m -> { String x = m.dataUtf8(); m.release(); return x; })
            .collectList()
            .block(Duration.ofSeconds(30));
    assertThat(items).containsExactly("s-0", "s-1", "s-2", "s-3", "s-4");
    r.dispose();
    server.close();
  }
}
