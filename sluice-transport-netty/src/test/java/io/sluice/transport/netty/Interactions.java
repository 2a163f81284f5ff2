package io.sluice.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.test.TestMessages;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The four interactions and metadata-push, over any server and client transport: an echo server,
 * a client that runs each once and checks what comes back. Waits are hang guards only.
 */
final class Interactions {
  private Interactions() {}

  static final long WAIT_SECONDS = 20;

  /** Echoes: rr answers "echo:"+data, a stream sends the data 3 times, a channel echoes each. */
  static final class EchoResponder implements Responder {
    final BlockingQueue<String> fireAndForget = new LinkedBlockingQueue<>();
    final BlockingQueue<String> metadataPushes = new LinkedBlockingQueue<>();

    @Override
    public void fireAndForget(Message request) {
      fireAndForget.add(TestMessages.dataAndRelease(request));
    }

    @Override
    public void metadataPush(Message metadata) {
      metadataPushes.add(TestMessages.metadataAndRelease(metadata));
    }

    @Override
    public StreamListener requestResponse(Message request, StreamHandle response) {
      response.nextAndComplete(TestMessages.pooled("echo:" + TestMessages.dataAndRelease(request)));
      return new Collector(); // a cancel after the answer has nothing to stop
    }

    @Override
    public StreamListener requestStream(Message request, StreamHandle stream) {
      String data = TestMessages.dataAndRelease(request);
      return new StreamListener() {
        int sent;

        @Override
        public void onRequest(long n) {
          for (long i = 0; i < n && sent < 3; i++) {
            sent++;
            stream.next(TestMessages.pooled(data + sent));
          }
          if (sent == 3) {
            sent++;
            stream.complete();
          }
        }

        @Override
        public void onNext(Message message) {
          message.release();
        }

        @Override
        public void onComplete() {}

        @Override
        public void onError(Throwable cause) {}
      };
    }

    @Override
    public StreamListener requestChannel(Message first, boolean complete, StreamHandle channel) {
      return new StreamListener() {
        Message pending = first;

        @Override
        public void onRequest(long n) {
          if (pending != null) {
            channel.next(pending);
            pending = null;
            n--;
          }
          if (n > 0) {
            channel.request(n);
          }
        }

        @Override
        public void onNext(Message message) {
          channel.next(message);
        }

        @Override
        public void onComplete() {
          channel.complete();
        }

        @Override
        public void onError(Throwable cause) {
          if (pending != null) {
            pending.release();
            pending = null;
          }
        }
      };
    }
  }

  /** Collects a stream's messages (as text) and its end. */
  static final class Collector implements StreamListener {
    final List<String> received = new CopyOnWriteArrayList<>();
    final CompletableFuture<List<String>> done = new CompletableFuture<>();

    @Override
    public void onNext(Message message) {
      received.add(TestMessages.dataAndRelease(message));
    }

    @Override
    public void onComplete() {
      done.complete(received);
    }

    @Override
    public void onError(Throwable cause) {
      done.completeExceptionally(cause);
    }

    List<String> await() throws Exception {
      return done.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
  }

  /**
   * Binds {@code server} with an echo responder, connects the client {@code client} makes for the bound address, runs every interaction
   * (and a metadata-push from the server back to the client), and closes both.
   */
  static void runAll(ServerTransport server, Function<SocketAddress, ClientTransport> client)
      throws Exception {
    EchoResponder serverSide = new EchoResponder();
    CompletableFuture<Requester> serverRequester = new CompletableFuture<>();
    ServerTransport.Bound bound =
        Connections.serve(
                server,
                ConnectionOptions.defaults(),
                (setup, requester) -> {
                  serverRequester.complete(requester);
                  return serverSide;
                })
            .get(WAIT_SECONDS, TimeUnit.SECONDS);
    EchoResponder clientSide = new EchoResponder();
    Requester requester = null;
    try {
      requester =
          Connections.connect(
                  client.apply(bound.address()), ConnectionOptions.defaults(), ClientSetup.defaults(), r -> clientSide)
              .get(WAIT_SECONDS, TimeUnit.SECONDS);
      Requester r = requester;

      Collector rr = new Collector();
      r.executor().execute(() -> r.requestResponse(TestMessages.pooled("ping"), rr));
      assertThat(rr.await()).containsExactly("echo:ping");

      Collector stream = new Collector();
      r.executor().execute(() -> r.requestStream(TestMessages.pooled("s"), Long.MAX_VALUE, stream));
      assertThat(stream.await()).containsExactly("s1", "s2", "s3");

      Collector channel = new Collector();
      r.executor()
          .execute(
              () -> {
                StreamHandle[] h = new StreamHandle[1];
                h[0] =
                    r.requestChannel(
                        TestMessages.pooled("c1"),
                        false,
                        Long.MAX_VALUE,
                        new StreamListener() {
                          boolean sent;

                          @Override
                          public void onRequest(long n) {
                            if (!sent) {
                              sent = true;
                              h[0].next(TestMessages.pooled("c2"));
                              h[0].complete();
                            }
                          }

                          @Override
                          public void onNext(Message message) {
                            channel.onNext(message);
                          }

                          @Override
                          public void onComplete() {
                            channel.onComplete();
                          }

                          @Override
                          public void onError(Throwable cause) {
                            channel.onError(cause);
                          }
                        });
              });
      assertThat(channel.await()).containsExactly("c1", "c2");

      r.executor().execute(() -> r.fireAndForget(TestMessages.pooled("fnf"), new Collector()));
      assertThat(serverSide.fireAndForget.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("fnf");

      r.executor().execute(() -> r.metadataPush(TestMessages.pooled("up", ""), new Collector()));
      assertThat(serverSide.metadataPushes.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("up");

      Requester back = serverRequester.get(WAIT_SECONDS, TimeUnit.SECONDS);
      back.executor().execute(() -> back.metadataPush(TestMessages.pooled("down", ""), new Collector()));
      assertThat(clientSide.metadataPushes.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("down");
    } finally {
      if (requester != null) {
        requester.dispose();
        requester.onClose().handle((v, e) -> null).get(WAIT_SECONDS, TimeUnit.SECONDS);
      }
      bound.close();
      bound.onClose().get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
  }
}
