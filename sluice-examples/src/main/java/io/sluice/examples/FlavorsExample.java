package io.sluice.examples;

import io.grpc.stub.StreamObserver;
import io.netty.buffer.ByteBufAllocator;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.sluice.Message;
import io.sluice.futures.FlowStreams;
import io.sluice.futures.FuturesClient;
import io.sluice.futures.FuturesRequester;
import io.sluice.grpcstub.GrpcClient;
import io.sluice.grpcstub.GrpcRequester;
import io.sluice.mutiny.MutinyResponder;
import io.sluice.mutiny.MutinyServer;
import io.sluice.rxjava.RxClient;
import io.sluice.rxjava.RxRequester;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The flavors meet on the wire: a Mutiny server on 127.0.0.1, called by a CompletableFuture
 * client, an rxjava client and a gRPC StreamObserver client.
 */
public final class FlavorsExample {
  private FlavorsExample() {}

  public static void main(String[] args) throws Exception {
    run(System.out);
  }

  /** Runs the example, printing what happens; returns the lines received. */
  public static List<String> run(PrintStream out) throws Exception {
    ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
    ServerTransport.Bound server =
        MutinyServer.serve(
                TcpServerTransport.create("127.0.0.1", 0),
                new MutinyResponder() {
                  @Override
                  public Uni<Message> requestResponse(Message request) {
                    String text = text(request);
                    return Uni.createFrom().item(() -> Message.utf8(alloc, "echo:" + text));
                  }

                  @Override
                  public Multi<Message> requestStream(Message request) {
                    String prefix = text(request);
                    return Multi.createFrom()
                        .range(0, 3)
                        .map(i -> Message.utf8(alloc, prefix + " " + i));
                  }
                })
            .await()
            .atMost(Duration.ofSeconds(10));
    int port = ((InetSocketAddress) server.address()).getPort();
    List<String> lines = new ArrayList<>();
    try {
      // CompletableFuture + java.util.concurrent.Flow
      FuturesRequester futures =
          FuturesClient.connect(TcpClientTransport.create("127.0.0.1", port))
              .get(10, TimeUnit.SECONDS);
      lines.add(text(futures.requestResponse(Message.utf8(alloc, "futures")).get(10, TimeUnit.SECONDS)));
      FlowStreams.forEach(
              futures.requestStream(Message.utf8(alloc, "flow")), 2, m -> lines.add(text(m)))
          .get(10, TimeUnit.SECONDS);
      futures.close();

      // rxjava3
      RxRequester rx = RxClient.connect(TcpClientTransport.create("127.0.0.1", port)).blockingGet();
      lines.add(text(rx.requestResponse(Message.utf8(alloc, "rx")).blockingGet()));
      lines.addAll(
          rx.requestStream(Message.utf8(alloc, "flowable"))
              .map(FlavorsExample::text)
              .toList()
              .blockingGet());
      rx.close();

      // gRPC StreamObserver
      GrpcRequester grpc =
          GrpcClient.connect(TcpClientTransport.create("127.0.0.1", port)).get(10, TimeUnit.SECONDS);
      CompletableFuture<Void> done = new CompletableFuture<>();
      List<String> observed = new ArrayList<>();
      grpc.requestStream(
          Message.utf8(alloc, "observer"),
          new StreamObserver<Message>() {
            @Override
            public void onNext(Message value) {
              observed.add(text(value));
            }

            @Override
            public void onError(Throwable t) {
              done.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
              done.complete(null);
            }
          });
      done.get(10, TimeUnit.SECONDS);
      lines.addAll(observed);
      grpc.close();
    } finally {
      server.close();
    }
    lines.forEach(out::println);
    return lines;
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
