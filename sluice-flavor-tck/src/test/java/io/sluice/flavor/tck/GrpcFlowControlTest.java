package io.sluice.flavor.tck;

import static io.sluice.flavor.tck.Contract.msg;
import static io.sluice.flavor.tck.Contract.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.grpcstub.GrpcClient;
import io.sluice.grpcstub.GrpcRequester;
import io.sluice.grpcstub.GrpcResponder;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.local.LocalTransport;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** gRPC-specific behaviour of sluice-grpc-stub: status mapping and its flow-control calls. */
@Timeout(60)
class GrpcFlowControlTest {
  private ServerTransport.Bound bound;
  private Requester client;

  private GrpcRequester connect(GrpcResponder server) {
    String name = "grpc-fc-" + System.nanoTime();
    bound =
        Probe.await(
            Connections.serve(
                LocalTransport.server(name),
                ConnectionOptions.defaults(),
                (setup, r) -> GrpcClient.toResponder(server)));
    client =
        Probe.await(
            Connections.connect(
                LocalTransport.client(name),
                ConnectionOptions.defaults(),
                ClientSetup.defaults(),
                r -> new Responder() {}));
    return new GrpcRequester(client);
  }

  @AfterEach
  void close() {
    if (client != null) {
      client.dispose();
      Probe.await(client.onClose().exceptionally(e -> null));
    }
    if (bound != null) {
      bound.close();
    }
  }

  /** Collects a call's responses. */
  static class Collect implements StreamObserver<Message> {
    final BlockingQueue<String> items = new LinkedBlockingQueue<>();
    final CompletableFuture<Void> done = new CompletableFuture<>();

    @Override
    public void onNext(Message value) {
      items.add(text(value));
    }

    @Override
    public void onError(Throwable t) {
      done.completeExceptionally(t);
    }

    @Override
    public void onCompleted() {
      done.complete(null);
    }
  }

  @Test
  void statusCodeAndDescriptionSurviveTheTrip() {
    GrpcRequester r =
        connect(
            new GrpcResponder() {
              @Override
              public void requestResponse(Message request, StreamObserver<Message> out) {
                request.release();
                out.onError(Status.NOT_FOUND.withDescription("no such thing").asRuntimeException());
              }
            });
    Collect c = new Collect();
    r.requestResponse(msg("x"), c);
    Throwable e = c.done.handle((v, t) -> t).join();
    assertThat(e).isInstanceOf(StatusRuntimeException.class);
    Status s = ((StatusRuntimeException) e).getStatus();
    assertThat(s.getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(s.getDescription()).isEqualTo("no such thing");
  }

  @Test
  void serverManualInboundFlowControlPacesTheClient() throws Exception {
    BlockingQueue<String> received = new LinkedBlockingQueue<>();
    AtomicReference<ServerCallStreamObserver<Message>> serverCall = new AtomicReference<>();
    GrpcRequester r =
        connect(
            new GrpcResponder() {
              @Override
              public StreamObserver<Message> requestChannel(StreamObserver<Message> out) {
                ServerCallStreamObserver<Message> call = (ServerCallStreamObserver<Message>) out;
                call.disableAutoRequest();
                serverCall.set(call);
                call.request(2); // the first message and one more
                return new Collect() {
                  @Override
                  public void onNext(Message value) {
                    received.add(text(value));
                  }

                  @Override
                  public void onCompleted() {
                    out.onCompleted();
                  }
                };
              }
            });
    Collect responses = new Collect();
    ClientCallStreamObserver<Message> requests =
        (ClientCallStreamObserver<Message>) r.requestChannel(responses);
    requests.onNext(msg("a"));
    requests.onNext(msg("b"));
    requests.onNext(msg("c")); // beyond the server's demand: waits on the client, in order
    assertThat(received.poll(10, TimeUnit.SECONDS)).isEqualTo("a");
    assertThat(received.poll(10, TimeUnit.SECONDS)).isEqualTo("b");
    assertThat(requests.isReady()).as("no credit left: 'c' waits").isFalse();
    serverCall.get().request(1);
    assertThat(received.poll(10, TimeUnit.SECONDS)).isEqualTo("c");
    requests.onCompleted();
    Probe.await(responses.done);
    assertThat(received).isEmpty();
  }

  @Test
  void clientOnReadyHandlerRunsWhenTheServerGrantsDemand() throws Exception {
    BlockingQueue<String> received = new LinkedBlockingQueue<>();
    GrpcRequester r =
        connect(
            new GrpcResponder() {
              @Override
              public StreamObserver<Message> requestChannel(StreamObserver<Message> out) {
                return new Collect() {
                  @Override
                  public void onNext(Message value) {
                    received.add(text(value));
                  }

                  @Override
                  public void onCompleted() {
                    out.onCompleted();
                  }
                };
              }
            });
    Collect responses = new Collect();
    ClientCallStreamObserver<Message> requests =
        (ClientCallStreamObserver<Message>) r.requestChannel(responses);
    CompletableFuture<Void> ready = new CompletableFuture<>();
    requests.setOnReadyHandler(() -> ready.complete(null));
    assertThat(requests.isReady()).as("the first message needs no credit").isTrue();
    requests.onNext(msg("first"));
    Probe.await(ready);
    assertThat(requests.isReady()).isTrue();
    requests.onNext(msg("second"));
    requests.onCompleted();
    Probe.await(responses.done);
    assertThat(received).containsExactly("first", "second");
  }
}
