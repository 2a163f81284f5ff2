package io.sluice.interop.peer;

import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.Resume;
import io.rsocket.transport.netty.client.TcpClientTransport;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import reactor.util.retry.Retry;

/**
 * The {@code resume-client} mode: an rsocket-java client with resumption asks for {@code seq:N}
 * and checks that "0".."N-1" arrive exactly once and in order, whatever cuts happen on the way
 * (the interop test cuts the connection through a proxy). Every wait is bounded.
 */
final class ResumeStreamClient {
  private final String host;
  private final int port;
  private final int count;

  ResumeStreamClient(String host, int port, int count) {
    this.host = host;
    this.port = port;
    this.count = count;
  }

  int run(PrintStream out) {
    RSocket rsocket;
    try {
      rsocket =
          RSocketConnector.create()
              // Frequent keepalives carry the received position, so the server's store stays small.
              .keepAlive(Duration.ofMillis(500), Duration.ofSeconds(90))
              .resume(
                  new Resume()
                      .sessionDuration(Duration.ofSeconds(60))
                      .retry(Retry.fixedDelay(600, Duration.ofMillis(100))))
              .connect(TcpClientTransport.create(host, port))
              .block(Duration.ofSeconds(30));
    } catch (RuntimeException e) {
      out.println("FAIL connect: " + e);
      return 1;
    }
    AtomicLong next = new AtomicLong();
    AtomicReference<String> wrong = new AtomicReference<>();
    try {
      rsocket
          .requestStream(Payloads.text("seq:" + count))
          .doOnNext(
              p -> {
                String d;
                try {
                  d = p.getDataUtf8();
                } finally {
                  p.release();
                }
                long expected = next.getAndIncrement();
                if (expected == 0) {
                  // Tells a test driving cuts that the session exists on the server.
                  out.println("RECEIVING");
                  out.flush();
                }
                if (!d.equals(Long.toString(expected))) {
                  wrong.compareAndSet(null, "message " + expected + " was '" + d + "'");
                }
              })
          .then()
          .block(Duration.ofSeconds(Math.max(120, count / 2_000)));
    } catch (RuntimeException e) {
      out.println("FAIL stream after " + next.get() + " of " + count + " messages: " + e);
      rsocket.dispose();
      return 1;
    } finally {
      out.flush();
    }
    rsocket.dispose();
    if (wrong.get() != null) {
      out.println("FAIL stream out of order: " + wrong.get());
      return 1;
    }
    if (next.get() != count) {
      out.println("FAIL stream " + next.get() + " of " + count + " messages");
      return 1;
    }
    out.println("PASS stream " + count + " messages in order");
    out.flush();
    return 0;
  }
}
