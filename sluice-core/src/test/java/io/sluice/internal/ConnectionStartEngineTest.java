package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.exceptions.ConnectionErrorException;
import io.sluice.test.ManualClockLoop;
import io.sluice.transport.DuplexTransport.Framing;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** How a connection starts: a transport closed before the start, a bad responder, its state. */
class ConnectionStartEngineTest extends EngineTestBase {

  @Override
  SingleThreadEventExecutor newLoop() {
    return new ManualClockLoop();
  }

  private static ClientSetup setupWithPayload(Message payload) {
    return ClientSetup.of(Wire.MIME, Wire.MIME, payload);
  }

  /**
   * A transport may report the close from inside start (NettyDuplexTransport does when its channel
   * closed before the connection started). The client then sends no SETUP, leaves no timer behind
   * (keepalive, lease grants), and its close is a failure, not a clean end.
   */
  @Test
  void aClientWhoseTransportClosedBeforeItStartedSendsNothingAndLeavesNoTimer() {
    transport = new FakeTransport(loop, Framing.LENGTH_PREFIXED);
    transport.closedBeforeStart = true;
    Message payload = Message.utf8(Wire.ALLOC, "md", "setup data");
    conn =
        Loop.call(
            loop,
            () ->
                SluiceConnection.client(
                    transport,
                    opts().lease(true).keepAlive(Duration.ofSeconds(1), Duration.ofSeconds(5)).build(),
                    setupWithPayload(payload),
                    r -> new Responder() {}));
    assertThat(payload.refCnt()).as("the setup payload is released").isZero();
    assertThat(clock().hasTimers()).as("a timer left on the loop").isFalse();
    clock().advance(1, TimeUnit.MINUTES);
    assertThat(transport.drain()).as("frames written after the close").isEmpty();
    Throwable closed = Loop.awaitOutcome(conn.onClose());
    assertThat(closed)
        .isInstanceOf(ConnectionErrorException.class)
        .hasMessageContaining("closed before");
    assertThat(Loop.awaitOutcome(conn.ready())).isNotNull();
    assertThat(conn.isOpen()).isFalse();
  }

  /**
   * A client responder factory that returns null would make every request of the server fail
   * with a NullPointerException the engine swallows: it is refused when the client starts, before
   * anything is sent, and the setup payload is released.
   */
  @Test
  void aClientResponderFactoryReturningNullIsRefusedAtTheStart() {
    assertThat(clientWithFactory(r -> null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("returned null");
  }

  @Test
  void aClientResponderFactoryThatThrowsReleasesTheSetupPayload() {
    assertThat(
            clientWithFactory(
                r -> {
                  throw new IllegalArgumentException("factory bug");
                }))
        .hasMessageContaining("factory bug");
  }

  /**
   * Starts a client whose responder factory is {@code factory}, which must fail the start: returns
   * what it threw, having checked that nothing was sent, no timer is left and the setup payload
   * is released.
   */
  private Throwable clientWithFactory(Function<Requester, Responder> factory) {
    transport = new FakeTransport(loop, Framing.LENGTH_PREFIXED);
    Message payload = Message.utf8(Wire.ALLOC, "setup data");
    Throwable thrown =
        catchThrowable(
            () ->
                Loop.call(
                    loop,
                    () ->
                        SluiceConnection.client(
                            transport, opts().build(), setupWithPayload(payload), factory)));
    assertThat(thrown).as("the start fails").isNotNull();
    assertThat(payload.refCnt()).as("the setup payload is released").isZero();
    assertThat(transport.drain()).as("nothing sent").isEmpty();
    assertThat(clock().hasTimers()).as("a timer left on the loop").isFalse();
    return thrown;
  }

  /**
   * {@code isOpen()} is public API read from any thread, while the state changes on the loop: the
   * field it reads must be published to other threads (a plain field may be read stale for ever,
   * for example hoisted out of a caller's polling loop by the JIT). A stale read cannot be made to
   * happen on demand, so the field's modifier is what this test holds; the rest checks the answer
   * another thread gets after the close.
   */
  @Test
  void isOpenReadsAFieldPublishedToOtherThreads() throws Exception {
    Field open = SluiceConnection.class.getDeclaredField("open");
    assertThat(Modifier.isVolatile(open.getModifiers())).as("volatile").isTrue();

    acceptedServer(opts().build(), new Responder() {});
    assertThat(conn.isOpen()).isTrue();
    Loop.run(loop, () -> conn.close());
    CompletableFuture<Boolean> seen = new CompletableFuture<>();
    Thread reader = new Thread(() -> seen.complete(conn.isOpen()));
    reader.start();
    reader.join(TimeUnit.SECONDS.toMillis(Loop.WAIT_SECONDS));
    assertThat(seen.getNow(true)).isFalse();
  }
}
