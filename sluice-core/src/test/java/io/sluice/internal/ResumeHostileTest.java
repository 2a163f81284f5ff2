package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.sluice.ErrorCode;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.Resumption;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.internal.frame.Setup;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FrameReceiver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A hostile peer against a server that offers resumption, over in-memory pipes: guessed tokens,
 * RESUME floods, positions beyond what was sent, abandoned sessions, and a RESUME for a session
 * that is still connected.
 */
class ResumeHostileTest {
  private final DefaultEventExecutor loop = new DefaultEventExecutor();
  private final List<PipeTransport> serverEnds = new CopyOnWriteArrayList<>();
  private final List<PipeTransport> clientEnds = new CopyOnWriteArrayList<>();
  private Resumption resumption =
      Resumption.builder()
          .sessionTimeout(Duration.ofSeconds(30))
          .maxSessions(100)
          .maxFailedResumesPerSecond(1000, 5)
          .backoff(Duration.ofSeconds(20), Duration.ofSeconds(20)) // the real client stays away
          .build();
  private ResumeSessions sessions;

  @AfterEach
  void stop() throws InterruptedException {
    Loop.run(loop, () -> serverEnds.forEach(PipeTransport::close));
    Loop.settle(loop);
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
  }

  private ConnectionOptions serverOptions() {
    return ConnectionOptions.builder().resumption(resumption).build();
  }

  /** A raw client: a pipe to a new gated server connection; what it receives is recorded. */
  private final class Raw implements FrameReceiver {
    final PipeTransport end;
    final List<String> got = new CopyOnWriteArrayList<>();
    final CompletableFuture<Void> closed = new CompletableFuture<>();

    Raw() {
      PipeTransport[] p = PipeTransport.pair(loop);
      end = p[1];
      Loop.run(
          loop,
          () -> {
            ResumeGate.serve(p[0], serverOptions(), (s, r) -> new Responder() {}, sessions, c -> {});
            end.start(this);
          });
      serverEnds.add(p[0]);
    }

    void send(ByteBuf frame) {
      Loop.run(
          loop,
          () -> {
            end.write(frame);
            end.flush();
          });
      Loop.settle(loop);
    }

    @Override
    public int maxFrameSize() {
      return Frames.MAX_FRAME_SIZE;
    }

    @Override
    public int maxQueuedOutboundBytes() {
      return 1 << 20;
    }

    @Override
    public void onFrame(ByteBuf f) {
      int type = Frames.type(f);
      got.add(
          type == FrameType.ERROR
              ? "ERROR 0x" + Integer.toHexString(Frames.errorCode(f)) + " " + Frames.errorMessage(f)
              : FrameType.name(type));
    }

    @Override
    public void onReadComplete() {}

    @Override
    public void onWritabilityChanged(boolean writable) {}

    @Override
    public void onTransportError(Throwable cause) {}

    @Override
    public void onClosed() {
      closed.complete(null);
    }
  }

  private static ByteBuf resume(byte[] token, long serverPos, long clientPos) {
    ByteBuf f = PooledByteBufAllocator.DEFAULT.buffer();
    Frames.writeResume(f, Unpooled.wrappedBuffer(token), serverPos, clientPos);
    return f;
  }

  private static ByteBuf resumableSetup(byte[] token) {
    ByteBuf f = PooledByteBufAllocator.DEFAULT.buffer();
    Setup.write(
        f, false, 20_000, 90_000, Unpooled.wrappedBuffer(token), "a/b", "a/b", null,
        Unpooled.EMPTY_BUFFER);
    return f;
  }

  private static byte[] randomToken() {
    byte[] t = new byte[16];
    ThreadLocalRandom.current().nextBytes(t);
    return t;
  }

  /** A real resumable client whose session is on the server; returns its requester. */
  private Requester realClient() {
    return Loop.await(
        Connections.connect(
            () -> {
              PipeTransport[] p = PipeTransport.pair(loop);
              loop.execute(
                  () ->
                      ResumeGate.serve(
                          p[0], serverOptions(), (s, r) -> new Responder() {}, sessions, c -> {}));
              serverEnds.add(p[0]);
              clientEnds.add(p[1]);
              return CompletableFuture.completedFuture((DuplexTransport) p[1]);
            },
            ConnectionOptions.builder().build(),
            ClientSetup.defaults().resumable(resumption),
            x -> new Responder() {}));
  }

  private static byte[] tokenOf(Requester r) {
    return ((ResumableSession) ((SluiceConnection) r).transport).token;
  }

  @Test
  void guessedTokensAreRefusedAndThenRefusedUncheckedPastTheRateBound() {
    sessions = new ResumeSessions(resumption);
    Requester real = realClient();
    for (int i = 0; i < 8; i++) {
      Raw raw = new Raw();
      raw.send(resume(randomToken(), 0, 0));
      assertThat(Loop.awaitOutcome(raw.closed)).isNull();
      assertThat(raw.got).hasSize(1);
      String answer = raw.got.get(0);
      assertThat(answer).startsWith("ERROR 0x" + Integer.toHexString(ErrorCode.REJECTED_RESUME));
      if (i < 5) {
        assertThat(answer).endsWith("no session for this resume token");
      } else {
        assertThat(answer).endsWith("too many failed RESUME attempts; try again later");
      }
    }
    // Past the bound even the right token is refused until the second is over: no oracle.
    Raw right = new Raw();
    right.send(resume(tokenOf(real), 0, 0));
    assertThat(right.got.get(0)).endsWith("too many failed RESUME attempts; try again later");
    assertThat(real.isOpen()).isTrue();
    real.dispose();
  }

  /**
   * A flood of guessed tokens puts the server's failed-attempt bound over its limit; an honest
   * client cut meanwhile is refused "try again later" and tries again after its backoff instead of
   * ending its session (before: the refusal ended the session and failed its streams).
   */
  @Test
  void anHonestClientCutDuringAFloodOfGuessesResumesOnceTheBoundAllows() throws Exception {
    resumption =
        Resumption.builder()
            .sessionTimeout(Duration.ofSeconds(30))
            .maxSessions(100)
            .maxFailedResumesPerSecond(1000, 5)
            .backoff(Duration.ofMillis(100), Duration.ofMillis(300))
            .build();
    sessions = new ResumeSessions(resumption);
    Requester real = realClient();
    for (int i = 0; i < 8; i++) {
      Raw raw = new Raw();
      raw.send(resume(randomToken(), 0, 0));
      assertThat(Loop.awaitOutcome(raw.closed)).isNull();
    }
    ResumableSession session = (ResumableSession) ((SluiceConnection) real).transport;
    assertThat(ResumableSession.cutForTest(real)).isTrue();
    for (int i = 0; i < 600 && session.resumes() == 0 && real.isOpen(); i++) {
      Thread.sleep(50);
    }
    assertThat(real.isOpen()).as("the session survived the refusals").isTrue();
    assertThat(session.resumes()).isEqualTo(1);
    real.dispose();
  }

  @Test
  void aResumeAskingForPositionsBeyondWhatWasSentIsRejectedAndEndsTheSession() {
    sessions = new ResumeSessions(resumption);
    Requester real = realClient();
    Loop.settle(loop);
    assertThat(sessions.size()).isEqualTo(1);
    Raw raw = new Raw();
    raw.send(resume(tokenOf(real), 1_000_000, 0));
    assertThat(Loop.awaitOutcome(raw.closed)).isNull();
    assertThat(raw.got.get(0))
        .startsWith("ERROR 0x" + Integer.toHexString(ErrorCode.REJECTED_RESUME))
        .contains("from position 1000000");
    Loop.settle(loop);
    assertThat(sessions.size()).isZero();
    real.dispose();
  }

  @Test
  void abandonedSessionsAreBoundedInNumber() {
    sessions = new ResumeSessions(resumption);
    int accepted = 0;
    int refused = 0;
    for (int i = 0; i < 150; i++) {
      Raw raw = new Raw();
      raw.send(resumableSetup(randomToken()));
      Loop.run(loop, raw.end::close); // abandoned at once
      Loop.settle(loop);
      if (raw.got.isEmpty()) {
        accepted++;
      } else {
        assertThat(raw.got.get(0))
            .startsWith("ERROR 0x" + Integer.toHexString(ErrorCode.REJECTED_SETUP))
            .contains("most resumable sessions (100)");
        refused++;
      }
    }
    assertThat(accepted).isEqualTo(100);
    assertThat(refused).isEqualTo(50);
    assertThat(sessions.size()).isEqualTo(100);
    assertThat(sessions.storeBytes()).isZero();
  }

  @Test
  void resumeOfAConnectedSessionTakesItOver() {
    sessions = new ResumeSessions(resumption);
    Requester real = realClient();
    Loop.settle(loop);
    PipeTransport original = clientEnds.get(0);
    Raw raw = new Raw();
    raw.send(resume(tokenOf(real), 0, 0));
    Loop.settle(loop);
    assertThat(raw.got).containsExactly("RESUME_OK");
    assertThat(original.isClosed()).as("the old transport is closed").isTrue();
    assertThat(sessions.size()).isEqualTo(1);
    real.dispose();
  }
}
