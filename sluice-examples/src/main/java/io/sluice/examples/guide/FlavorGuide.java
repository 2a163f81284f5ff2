package io.sluice.examples.guide;

import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.sluice.Message;
import io.sluice.futures.FlowStreams;
import io.sluice.futures.FuturesClient;
import io.sluice.futures.FuturesRequester;
import io.sluice.futures.FuturesResponder;
import io.sluice.futures.FuturesServer;
import io.sluice.grpcstub.GrpcClient;
import io.sluice.grpcstub.GrpcRequester;
import io.sluice.mutiny.MutinyClient;
import io.sluice.mutiny.MutinyRequester;
import io.sluice.rxjava.RxClient;
import io.sluice.rxjava.RxRequester;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.stream.IntStream;

/** docs/guide/flavors.md: the futures, rxjava, mutiny and gRPC StreamObserver flavors. */
final class FlavorGuide {
  private FlavorGuide() {}

  static void futures() {
    // tag::futures[]
    FuturesRequester r = FuturesClient.connect(TcpClientTransport.create("127.0.0.1", 7878)).join();
    Message reply = r.requestResponse(Message.utf8(r.alloc(), "hi")).join(); // cancel() sends CANCEL
    reply.release();
    // Streams are Flow.Publishers with explicit demand; FlowStreams.forEach keeps `batch` requested.
    FlowStreams.forEach(r.requestStream(Message.utf8(r.alloc(), "go")), 64, Message::release).join();

    FuturesServer.serve(TcpServerTransport.create("127.0.0.1", 7878), new FuturesResponder() {
      @Override
      public CompletionStage<Message> requestResponse(Message request) {
        return CompletableFuture.completedFuture(request);                  // echo
      }

      @Override
      public Flow.Publisher<Message> requestStream(Message request) {
        request.release();                                                  // pulled only on demand:
        return FlowStreams.fromIterator(IntStream.range(0, 3).mapToObj(i -> Message.utf8("item " + i)).iterator());
      }
    }).join();
    // end::futures[]
  }

  static void rxAndMutiny(ClientTransport transport) {
    // tag::rx-mutiny[]
    RxRequester rx = RxClient.connect(transport).blockingGet();
    rx.requestStream(Message.utf8(rx.alloc(), "go")).rebatchRequests(64).blockingForEach(Message::release);

    MutinyRequester mu = MutinyClient.connect(transport).await().indefinitely();
    Message reply = mu.requestResponse(Message.utf8(mu.alloc(), "hi")).await().indefinitely();
    reply.release();
    // end::rx-mutiny[]
  }

  static void grpcStub(ClientTransport transport) {
    // tag::grpc-stub[]
    GrpcRequester g = GrpcClient.connect(transport).join();
    g.requestStream(Message.utf8(g.alloc(), "go"), new ClientResponseObserver<Message, Message>() {
      ClientCallStreamObserver<Message> call;

      @Override
      public void beforeStart(ClientCallStreamObserver<Message> call) {
        this.call = call;
        call.disableAutoRequestWithInitial(16);   // REQUEST_STREAM with n = 16
      }

      @Override
      public void onNext(Message m) {
        m.release();
        call.request(1);                          // each request(n) = REQUEST_N
      }

      @Override
      public void onError(Throwable t) {}         // a StatusRuntimeException

      @Override
      public void onCompleted() {}
    });
    // end::grpc-stub[]
  }
}
