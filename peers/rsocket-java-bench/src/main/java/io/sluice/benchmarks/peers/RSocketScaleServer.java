package io.sluice.benchmarks.peers;

import io.netty.buffer.ByteBuf;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.sluice.benchmarks.harness.Args;
import io.sluice.benchmarks.harness.ScaleServerStats;
import java.util.Set;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

/**
 * The rsocket-java 1.1.5 server of {@code ./sluice bench --scale --impl rsocket-java} ({@code
 * scale-server --addresses K}), the counterpart of Sluice's ScaleServer: TCP on 127.0.0.1 (and
 * 127.0.0.2..K on the same port), zero-copy payload decoder, reactor-netty's default loops; every
 * request-channel is a sink that asks for everything (unbounded demand) and records each message's
 * delivery latency. Prints {@code SCALE_LISTENING <port>}, then answers the orchestrator through
 * {@link ScaleServerStats}.
 */
final class RSocketScaleServer {
  private RSocketScaleServer() {}

  static int run(String[] argv) throws Exception {
    Args a = Args.parse(argv, 1, Set.of("addresses"), Set.of());
    int addresses = a.getInt("addresses", 1, 1, 250);
    ScaleServerStats stats = new ScaleServerStats();
    RSocket handler =
        new RSocket() {
          @Override
          public Flux<Payload> requestChannel(Publisher<Payload> payloads) {
            stats.streamOpened();
            return Flux.from(payloads)
                .doOnNext(p -> {
                  ByteBuf d = p.data();
                  if (d.readableBytes() >= Long.BYTES) {
                    stats.delivered(d.getLong(d.readerIndex()));
                  }
                  p.release();
                })
                .doFinally(s -> stats.streamEnded(s != SignalType.ON_COMPLETE))
                .thenMany(Flux.never());
          }
        };
    RSocketServer server =
        RSocketServer.create((setup, sendingSocket) -> {
              stats.connection(1);
              sendingSocket.onClose().doFinally(s -> stats.connection(-1)).subscribe();
              return Mono.just(handler);
            })
            .payloadDecoder(PayloadDecoder.ZERO_COPY);
    int port = 0;
    for (int i = 1; i <= addresses; i++) {
      CloseableChannel c = server.bind(TcpServerTransport.create("127.0.0." + i, port)).block();
      port = c.address().getPort();
    }
    System.out.println("SCALE_LISTENING " + port);
    System.out.flush();
    stats.serve(System.in, System.out);
    return 0;
  }
}
