package io.sluice.balancer;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.InetSocketAddress;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-process server on 127.0.0.1 for the balancer's tests: answers a request-response with its
 * name (after an optional delay, off the event loop), holds requests when told to, and streams
 * "name-0", then "name-1" once its gate opens.
 */
final class TestServer implements AutoCloseable {
  static final ScheduledExecutorService DELAYS =
      Executors.newScheduledThreadPool(4, new DefaultThreadFactory("test-server-delays", true));

  final String name;
  final AtomicInteger requests = new AtomicInteger();
  final Set<Requester> connections = ConcurrentHashMap.newKeySet();
  final Queue<StreamHandle> held = new ConcurrentLinkedQueue<>();
  final CountDownLatch streamGate = new CountDownLatch(1);
  volatile long delayMicros;
  volatile boolean hold;
  private volatile int stopped; // 0 serving, 1 drained, 2 killed
  private final ServerTransport.Bound bound;

  private TestServer(String name, int port) throws Exception {
    this.name = name;
    this.bound =
        Connections.serve(
                TcpServerTransport.create("127.0.0.1", port),
                ConnectionOptions.defaults(),
                (setup, requester) -> {
                  int st = stopped; // accepted on the wire before a stop, set up after it
                  if (st == 1) {
                    requester.close();
                  } else if (st == 2) {
                    requester.dispose();
                  }
                  connections.add(requester);
                  requester.onClose().whenComplete((v, e) -> connections.remove(requester));
                  return responder;
                })
            .get(10, TimeUnit.SECONDS);
  }

  static TestServer start(String name) throws Exception {
    return new TestServer(name, 0);
  }

  /**
   * A server on {@code port}, which a killed server of the test may have held a moment ago: a
   * bind refused as "address already in use" is tried again, every 50 ms for at most 5 s (a clean-
   * clone CI run saw the restart refused once after the killed server's close had completed, with
   * the port outside the ephemeral range, see Ports); past that the refusal stands.
   */
  static TestServer start(String name, int port) throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        return new TestServer(name, port);
      } catch (java.util.concurrent.ExecutionException e) {
        if (port == 0 || attempt >= 100 || !(e.getCause() instanceof java.net.BindException)) {
          throw e;
        }
        Thread.sleep(50);
      }
    }
  }

  InetSocketAddress address() {
    return (InetSocketAddress) bound.address();
  }

  int port() {
    return address().getPort();
  }

  /** A drain, as a server's stop(grace) does it: no new connections, CONNECTION_CLOSE on each. */
  void stopGracefully() {
    stopped = 1;
    bound.close();
    connections.forEach(Requester::close);
  }

  /** Gone at once: the listener and every connection. */
  void kill() {
    stopped = 2;
    bound.close();
    connections.forEach(Requester::dispose);
    bound.onClose().orTimeout(10, TimeUnit.SECONDS).join(); // the port is free again
  }

  @Override
  public void close() {
    kill();
    StreamHandle h;
    while ((h = held.poll()) != null) {
      h.cancel();
    }
  }

  private final Responder responder =
      new Responder() {
        @Override
        public StreamListener requestResponse(Message request, StreamHandle response) {
          requests.incrementAndGet();
          request.release();
          if (hold) {
            held.add(response);
            return StreamListener.DISCARDING;
          }
          long d = delayMicros;
          if (d == 0) {
            response.nextAndComplete(Message.utf8(response.alloc(), name));
          } else {
            DELAYS.schedule(
                () -> response.nextAndComplete(Message.utf8(response.alloc(), name)),
                d,
                TimeUnit.MICROSECONDS);
          }
          return StreamListener.DISCARDING;
        }

        @Override
        public StreamListener requestStream(Message request, StreamHandle stream) {
          request.release();
          return new StreamListener() {
            private boolean started;

            @Override
            public void onRequest(long n) { // the test asks for 16 at once
              if (started) {
                return;
              }
              started = true;
              stream.next(Message.utf8(stream.alloc(), name + "-0"));
              DELAYS.execute(
                  () -> {
                    try {
                      if (streamGate.await(30, TimeUnit.SECONDS)) {
                        stream.nextAndComplete(Message.utf8(stream.alloc(), name + "-1"));
                        return;
                      }
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                    stream.error(new IllegalStateException("gate never opened"));
                  });
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
      };
}
