package io.sluice.virtualthreads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.local.LocalTransport;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The blocking API's own behaviour (the shared flavor suite in sluice-flavor-tck covers more). */
@Timeout(60)
class BlockingApiTest {
  private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;
  private final AtomicLong emitted = new AtomicLong();
  private final CompletableFuture<Void> streamCanceled = new CompletableFuture<>();
  private ServerTransport.Bound server;
  private BlockingRequester client;

  private static String text(Message m) {
    try {
      return m.dataUtf8();
    } finally {
      m.release();
    }
  }

  private void start() {
    String name = "vt-" + System.nanoTime();
    server =
        BlockingServer.serve(
            LocalTransport.server(name),
            new BlockingResponder() {
              @Override
              public Message requestResponse(Message request) {
                String data = text(request);
                if (data.equals("fail")) {
                  throw new ApplicationErrorException("boom");
                }
                return Message.utf8(ALLOC, "virtual=" + Thread.currentThread().isVirtual());
              }

              @Override
              public void requestStream(Message request, BlockingSink out) {
                boolean hold = text(request).equals("hold");
                try {
                  if (hold) {
                    // Sends nothing until canceled: the client's call has to wait, whatever the
                    // machine's speed. The cancel interrupts this thread.
                    new CountDownLatch(1).await(10, TimeUnit.SECONDS);
                    return;
                  }
                  while (true) {
                    out.send(Message.utf8(ALLOC, Long.toString(emitted.get())));
                    emitted.incrementAndGet();
                  }
                } catch (CancellationException | InterruptedException e) {
                  streamCanceled.complete(null);
                }
              }

              @Override
              public void requestChannel(Message first, BlockingStream in, BlockingSink out) {
                String f = text(first);
                if (f.startsWith("burst:")) { // sends without reading, returns with the input open
                  for (int i = 0, n = Integer.parseInt(f.substring(6)); i < n; i++) {
                    out.send(Message.utf8(ALLOC, "b" + i));
                  }
                  return;
                }
                out.send(Message.utf8(ALLOC, "first:" + f));
                while (in.hasNext()) {
                  out.send(Message.utf8(ALLOC, "echo:" + text(in.next())));
                }
              }
            });
    client =
        BlockingClient.connect(
            LocalTransport.client(name),
            ConnectionOptions.defaults(),
            ClientSetup.defaults(),
            r -> null);
  }

  @AfterEach
  void close() {
    if (client != null) {
      client.dispose();
      client.onClose().handle((v, e) -> null).join();
    }
    if (server != null) {
      server.close();
    }
  }

  /**
   * A blocking call made on the connection's own event loop thread would wait for that thread
   * forever: it is refused at once, its message released, and iterating a stream there too.
   */
  @Test
  void blockingCallsOnTheConnectionsLoopThreadAreRefused() throws Exception {
    start();
    Message request = Message.utf8(ALLOC, "hi");
    CompletableFuture<Throwable> rr = new CompletableFuture<>();
    client.unwrap().executor().execute(() -> {
      try {
        client.requestResponse(request).release();
        rr.complete(null);
      } catch (Throwable t) {
        rr.complete(t);
      }
    });
    assertThat(rr.get(10, TimeUnit.SECONDS))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("event loop");
    assertThat(request.refCnt()).isZero();

    BlockingStream stream = client.requestStream(Message.utf8(ALLOC, "s"), 4);
    CompletableFuture<Throwable> iterate = new CompletableFuture<>();
    client.unwrap().executor().execute(() -> {
      try {
        while (true) {
          stream.next().release(); // runs dry of what arrived, then would have to wait
        }
      } catch (Throwable t) {
        iterate.complete(t);
      }
    });
    assertThat(iterate.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class);
    stream.close();
    // From any other thread the same call works.
    assertThat(text(client.requestResponse(Message.utf8(ALLOC, "ok")))).isEqualTo("virtual=true");
  }

  @Test
  void handlersRunOnVirtualThreads() {
    start();
    assertThat(text(client.requestResponse(Message.utf8(ALLOC, "hi")))).isEqualTo("virtual=true");
  }

  @Test
  void errorsAreThrownAsTheyArrive() {
    start();
    assertThatThrownBy(() -> client.requestResponse(Message.utf8(ALLOC, "fail")))
        .isInstanceOf(ApplicationErrorException.class)
        .hasMessage("boom");
  }

  @Test
  void closingTheJavaStreamCancelsAndTheServerStaysWithinThePrefetch() throws Exception {
    start();
    int prefetch = 8;
    List<String> first;
    try (Stream<Message> s = client.requestStream(Message.utf8(ALLOC, "go"), prefetch).stream()) {
      first = s.limit(20).map(BlockingApiTest::text).collect(Collectors.toList());
    }
    streamCanceled.get(10, TimeUnit.SECONDS);
    assertThat(first).hasSize(20).startsWith("0", "1", "2").endsWith("19");
    // Credit is granted only as messages are consumed: at most `prefetch` beyond the 20 taken.
    assertThat(emitted.get()).isBetween(20L, 20L + prefetch);
  }

  @Test
  void channelSendsAndReadsWithBackpressure() {
    start();
    BlockingChannel ch = client.requestChannel(Message.utf8(ALLOC, "a"), 2);
    for (int i = 0; i < 10; i++) {
      ch.send(Message.utf8(ALLOC, "m" + i)); // waits whenever the responder's credit is used up
      if (i == 0) {
        assertThat(text(ch.inbound().next())).isEqualTo("first:a");
      }
      assertThat(text(ch.inbound().next())).isEqualTo("echo:m" + i);
    }
    ch.complete();
    assertThat(ch.inbound().hasNext()).isFalse();
  }

  /**
   * A channel handler that returns while its last messages may still wait for the loop: they,
   * the completion and then the cancel of the requester's still-open half reach the requester in
   * that order — every message, then a clean end rather than a canceled stream.
   */
  @Test
  void aChannelHandlerReturningWithMessagesQueuedDeliversThemAllThenEnds() {
    start();
    for (int round = 0; round < 20; round++) {
      BlockingChannel ch = client.requestChannel(Message.utf8(ALLOC, "burst:300"), 64);
      for (int i = 0; i < 300; i++) {
        assertThat(ch.inbound().hasNext()).as("message %d of round %d", i, round).isTrue();
        assertThat(text(ch.inbound().next())).isEqualTo("b" + i);
      }
      assertThat(ch.inbound().hasNext()).isFalse();
      ch.close();
    }
  }

  @Test
  void anInterruptedCallThrowsCancellationAndKeepsTheFlag() throws Exception {
    start();
    CompletableFuture<Throwable> thrown = new CompletableFuture<>();
    Thread t =
        Thread.ofVirtual()
            .start(
                () -> {
                  Thread.currentThread().interrupt();
                  try {
                    // "hold": no message can arrive before the call waits for one.
                    client.requestStream(Message.utf8(ALLOC, "hold"), 1).hasNext();
                    thrown.complete(null);
                  } catch (Throwable e) {
                    thrown.complete(
                        Thread.currentThread().isInterrupted() ? e : new AssertionError("flag lost"));
                  }
                });
    assertThat(thrown.get(10, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class);
    t.join();
    streamCanceled.get(10, TimeUnit.SECONDS);
  }
}
