package io.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.sluice.ErrorCode;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.Resumption;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.internal.frame.Setup;
import io.sluice.transport.DuplexTransport;
import java.nio.charset.StandardCharsets;
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
  /** What the server answers requests with. */
  private Responder responder = new Responder() {};

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
  private final class Raw extends RawPeer {
    final PipeTransport end;
    final List<String> got = new CopyOnWriteArrayList<>();
    final CompletableFuture<Void> closed = new CompletableFuture<>();

    Raw() {
      PipeTransport[] p = PipeTransport.pair(loop);
      end = p[1];
      Loop.run(
          loop,
          () -> {
            ResumeGate.serve(p[0], serverOptions(), (s, r) -> responder, sessions, c -> {});
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
    public void onFrame(ByteBuf f) {
      int type = Frames.type(f);
      got.add(
          type == FrameType.ERROR
              ? "ERROR 0x" + Integer.toHexString(Frames.errorCode(f)) + " " + Frames.errorMessage(f)
              : FrameType.name(type));
    }

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
                          p[0], serverOptions(), (s, r) -> responder, sessions, c -> {}));
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

  /**
   * A stopping server refuses every RESUME, the right token's too (on a connection accepted while
   * its listener was closing): the drain's CONNECTION_CLOSE is a frame on stream 0, which a resume
   * does not replay, so a session taken up again would wait for a close that never comes.
   */
  @Test
  void aStoppingServerRefusesEveryResume() {
    sessions = new ResumeSessions(resumption);
    Requester real = realClient();
    sessions.stopping();
    Raw right = new Raw();
    right.send(resume(tokenOf(real), 0, 0));
    assertThat(Loop.awaitOutcome(right.closed)).isNull();
    assertThat(right.got).hasSize(1);
    assertThat(right.got.get(0))
        .startsWith("ERROR 0x" + Integer.toHexString(ErrorCode.REJECTED_RESUME))
        .endsWith("the server is stopping");
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
   * Failed RESUMEs (after a server restart every client's RESUME fails) do not keep their address
   * from setting up a new resumable session: only SETUPs whose token was in use count against that.
   */
  @Test
  void failedResumesDoNotRefuseTheAddresssNextResumableSetup() {
    sessions = new ResumeSessions(resumption);
    for (int i = 0; i < 8; i++) {
      Raw raw = new Raw();
      raw.send(resume(randomToken(), 0, 0));
      assertThat(Loop.awaitOutcome(raw.closed)).isNull();
    }
    Raw fresh = new Raw();
    fresh.send(resumableSetup(randomToken()));
    assertThat(fresh.got).as("a fresh resumable SETUP is accepted").isEmpty();
    assertThat(sessions.size()).isEqualTo(1);
    Loop.run(loop, fresh.end::close);
    Loop.settle(loop);
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
        .contains("from position 1000000")
        .containsPattern("the server holds \\[\\d+, \\d+\\] \\(");
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
            .endsWith(ResumeGate.NO_SESSION);
        refused++;
      }
    }
    assertThat(accepted).isEqualTo(100);
    assertThat(refused).isEqualTo(50);
    assertThat(sessions.size()).isEqualTo(100);
    // Each session holds the first step of its store from its SETUP on, and no more.
    assertThat(sessions.storeBytes()).isEqualTo(100 * ResumeBudget.STEP);
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

  /**
   * A RESUME whose connection closed before the session's loop took it (the client gave up on it)
   * neither takes a connected session over nor marks a detached one attached to a dead transport
   * (before: the session sent RESUME_OK into the closed transport and counted itself attached, so
   * its session timeout stopped and the real client's transport was closed for nothing).
   */
  @Test
  void aResumeWhoseConnectionClosedMeanwhileAttachesNothing() {
    sessions = new ResumeSessions(resumption);
    Requester real = realClient();
    Loop.settle(loop);
    ResumableSession session = sessions.find(tokenOf(real));
    PipeTransport original = clientEnds.get(0);
    Raw early = new Raw();
    Loop.run(
        loop,
        () -> {
          early.end.write(resume(tokenOf(real), 0, 0));
          early.end.flush();
          early.end.close();
        });
    Loop.settle(loop);
    assertThat(early.got).isEmpty();
    assertThat(original.isClosed()).as("the connected client keeps its transport").isFalse();
    assertThat(session.isAttached()).isTrue();

    // Now detached (the real client's transport cut; it stays away for its 20 s backoff).
    Loop.run(loop, original::close);
    Loop.settle(loop);
    assertThat(session.isAttached()).isFalse();
    Raw late = new Raw();
    Loop.run(
        loop,
        () -> {
          late.end.write(resume(tokenOf(real), 0, 0));
          late.end.flush();
          late.end.close();
        });
    Loop.settle(loop);
    assertThat(session.isAttached()).as("not attached to a closed transport").isFalse();
    assertThat(session.isEnded()).isFalse();
    // A RESUME that stays connected still resumes it.
    Raw good = new Raw();
    good.send(resume(tokenOf(real), 0, 0));
    assertThat(good.got).containsExactly("RESUME_OK");
    assertThat(session.isAttached()).isTrue();
    real.dispose();
  }

  /**
   * A resumable SETUP with a token that is in use gets the very answer a SETUP gets from a server
   * that holds its most sessions (no token-in-use oracle), and such SETUPs count as failed
   * attempts: past the per-address bound even a fresh token from that address gets that answer.
   */
  @Test
  void aSetupWithATokenInUseIsRefusedLikeAnyOtherRefusalAndRateBounded() {
    resumption =
        Resumption.builder()
            .sessionTimeout(Duration.ofSeconds(30))
            .maxSessions(2)
            .maxFailedResumesPerSecond(1000, 3)
            .backoff(Duration.ofSeconds(20), Duration.ofSeconds(20))
            .build();
    sessions = new ResumeSessions(resumption);
    Requester real = realClient();
    Loop.settle(loop);
    Raw inUse = new Raw();
    inUse.send(resumableSetup(tokenOf(real)));
    assertThat(Loop.awaitOutcome(inUse.closed)).isNull();
    Raw fresh = new Raw();
    fresh.send(resumableSetup(randomToken()));
    assertThat(fresh.got).isEmpty(); // accepted: 2 sessions, the most
    Raw full = new Raw();
    full.send(resumableSetup(randomToken()));
    assertThat(Loop.awaitOutcome(full.closed)).isNull();
    assertThat(inUse.got).hasSize(1);
    assertThat(inUse.got).isEqualTo(full.got);
    assertThat(inUse.got.get(0))
        .startsWith("ERROR 0x" + Integer.toHexString(ErrorCode.REJECTED_SETUP))
        .doesNotContain("token");
    assertThat(sessions.size()).isEqualTo(2);
    Loop.run(loop, fresh.end::close);
    Loop.settle(loop);

    // Rate bound: two more in-use SETUPs (3 failures from this address), then a fresh token.
    sessions = new ResumeSessions(resumption);
    Requester other = realClient();
    Loop.settle(loop);
    for (int i = 0; i < 3; i++) {
      Raw again = new Raw();
      again.send(resumableSetup(tokenOf(other)));
      assertThat(again.got).isEqualTo(full.got);
    }
    Raw afterBound = new Raw();
    afterBound.send(resumableSetup(randomToken()));
    assertThat(afterBound.got).isEqualTo(full.got);
    assertThat(sessions.size()).isEqualTo(1);
    assertThat(other.isOpen()).isTrue();
    real.dispose();
    other.dispose();
  }

  /**
   * One tenant's sessions push the server's shared store budget (maxTotalStoreBytes) to its end:
   * each session that would go past it is ended with an error that names the budget, and a session
   * made before (which holds its first step of the budget from its SETUP on) streams on, exactly
   * and in order (before: the tenant's first sessions held the whole budget and the other
   * session's first frame ended it).
   */
  @Test
  void aStoreBudgetExhaustedByOneTenantEndsSessionsOverItAndOthersContinue() {
    resumption =
        Resumption.builder()
            .sessionTimeout(Duration.ofSeconds(30))
            .maxSessions(100)
            .maxStoreBytes(Resumption.MIN_STORE_BYTES)
            .maxTotalStoreBytes(2 * Resumption.MIN_STORE_BYTES) // 8 steps of 64 KiB
            .backoff(Duration.ofSeconds(20), Duration.ofSeconds(20))
            .build();
    sessions = new ResumeSessions(resumption);
    responder = new Padded();
    Requester honest = realClient();
    Loop.settle(loop);
    List<Raw> tenant = new java.util.ArrayList<>();
    List<byte[]> tokens = new java.util.ArrayList<>();
    for (int i = 0; i < 5; i++) {
      Raw raw = new Raw();
      tokens.add(randomToken());
      raw.send(resumableSetup(tokens.get(i)));
      tenant.add(raw);
    }
    // Each tenant session asks for 240 KiB (under its own 256 KiB store) and never acknowledges.
    for (Raw raw : tenant) {
      ByteBuf req = PooledByteBufAllocator.DEFAULT.buffer();
      Frames.writeRequestHeader(req, 1, FrameType.REQUEST_STREAM, 0, 1000);
      Frames.writePayload(req, null, Unpooled.copiedBuffer("240:1024", StandardCharsets.US_ASCII));
      raw.send(req);
    }
    Loop.settle(loop);
    int ended = 0;
    for (Raw raw : tenant) {
      String last = raw.got.isEmpty() ? "" : raw.got.get(raw.got.size() - 1);
      if (last.startsWith("ERROR 0x" + Integer.toHexString(ErrorCode.CONNECTION_ERROR))) {
        assertThat(last).contains("maxTotalStoreBytes");
        ended++;
      } else {
        // Besides the messages, the session's KEEPALIVE asking for the peer's position once its
        // store was half full (the tenant never answers it).
        assertThat(raw.got.stream().filter(g -> !g.equals("KEEPALIVE")).toList())
            .hasSize(240)
            .containsOnly("PAYLOAD");
      }
    }
    assertThat(ended).as("sessions over the budget ended").isPositive();
    assertThat(sessions.storeBytes()).isLessThanOrEqualTo(2 * Resumption.MIN_STORE_BYTES);

    // The honest session goes on while the tenant's survivors hold what they hold.
    ResumeEngineTest.Receiver rx = new ResumeEngineTest.Receiver();
    int total = 5_000;
    StreamHandle[] h = new StreamHandle[1];
    StreamListener paced =
        new StreamListener() {
          @Override
          public void onNext(Message m) {
            rx.onNext(m);
            if (rx.count.get() % 256 == 0) {
              h[0].request(256);
            }
          }

          @Override
          public void onComplete() {
            rx.onComplete();
          }

          @Override
          public void onError(Throwable cause) {
            rx.onError(cause);
          }
        };
    Loop.run(loop, () -> h[0] = honest.requestStream(Message.utf8(total + ":0"), 256, paced));
    assertThat(Loop.awaitOutcome(rx.done)).isNull();
    assertThat(rx.count.get()).isEqualTo(total);
    assertThat(rx.outOfOrder.get()).isNull();
    assertThat(honest.isOpen()).isTrue();
    tokens.add(tokenOf(honest));
    honest.dispose();
    // A cut session (and a tenant's) would hold its store for the session timeout: end them now.
    Loop.run(
        loop,
        () -> {
          for (byte[] t : tokens) {
            ResumableSession s = sessions.find(t);
            if (s != null) {
              s.conn.dispose();
            }
          }
        });
    Loop.settle(loop);
    assertThat(sessions.size()).isZero();
    assertThat(sessions.storeBytes()).isZero();
  }

  /**
   * A session that holds only its first step of the server's store budget (64 KiB, the rest used
   * up by a tenant that never acknowledges) streams 1 KiB messages, asked for 28 at a time: its
   * store pauses the producer at half of what it can reach (32 KiB) and lets it go below 3/8 (24
   * KiB), under the client's acknowledgement step (32 KiB). The session keeps going to the end, in
   * order, and its store frees frames as acknowledgements arrive (before: the store was left
   * holding more than 24 KiB the client had no reason to acknowledge, the producer paused, and the
   * stream waited for the client's keepalive, or the store refused a frame and ended the session).
   */
  @Test
  void aSessionAtTheBudgetsEndKeepsGoingAndFreesFramesAsAcksArrive() {
    List<byte[]> tokens = new java.util.ArrayList<>();
    Requester honest = honestBesideATenantAtTheBudgetsEnd(tokens);
    ResumableSession session = Loop.call(loop, () -> sessions.find(tokenOf(honest)));
    assertThat(Loop.call(loop, session.store::reachableBytes))
        .as("the session can reach little more than its first step")
        .isLessThan(ResumableSession.ACK_BYTES * 8 / 3);
    ResumeEngineTest.Receiver rx = new ResumeEngineTest.Receiver();
    int total = 3_000;
    int batch = 28;
    StreamHandle[] h = new StreamHandle[1];
    StreamListener paced =
        new StreamListener() {
          @Override
          public void onNext(Message m) {
            String d = m.dataUtf8().trim();
            m.release();
            long expected = rx.count.getAndIncrement();
            if (!d.equals(Long.toString(expected))) {
              rx.outOfOrder.compareAndSet(null, "expected " + expected + ", got " + d);
            }
            if (rx.count.get() % batch == 0) {
              h[0].request(batch);
            }
          }

          @Override
          public void onComplete() {
            rx.onComplete();
          }

          @Override
          public void onError(Throwable cause) {
            rx.onError(cause);
          }
        };
    Loop.run(loop, () -> h[0] = honest.requestStream(Message.utf8(total + ":1000"), batch, paced));
    assertThat(Loop.awaitOutcome(rx.done)).isNull();
    assertThat(rx.count.get()).isEqualTo(total);
    assertThat(rx.outOfOrder.get()).isNull();
    assertThat(honest.isOpen()).isTrue();
    Loop.settle(loop);
    assertThat(Loop.call(loop, session.store::bytes))
        .as("bytes the server's store still holds once the client has everything")
        .isLessThan(ResumableSession.ACK_BYTES);
    assertThat(Loop.call(loop, session.store::highWater))
        .as("the most the store held")
        .isLessThanOrEqualTo(Loop.call(loop, session.store::reachableBytes));
    tokens.add(tokenOf(honest));
    honest.dispose();
    Loop.run(
        loop,
        () -> {
          for (byte[] t : tokens) {
            ResumableSession s = sessions.find(t);
            if (s != null) {
              s.conn.dispose();
            }
          }
        });
    Loop.settle(loop);
    assertThat(sessions.storeBytes()).isZero();
  }

  /**
   * A server budget of twice {@link Resumption#MIN_STORE_BYTES} for all stores (8 steps of 64
   * KiB), the {@link Padded} responder.
   */
  private void useATightBudget() {
    resumption =
        Resumption.builder()
            .sessionTimeout(Duration.ofSeconds(30))
            .maxSessions(100)
            .maxStoreBytes(Resumption.MIN_STORE_BYTES)
            .maxTotalStoreBytes(2 * Resumption.MIN_STORE_BYTES)
            .backoff(Duration.ofSeconds(20), Duration.ofSeconds(20))
            .build();
    sessions = new ResumeSessions(resumption);
    responder = new Padded();
  }

  /**
   * With one session made already (it holds its first step), three raw sessions of a tenant that
   * never acknowledge take the 7 other steps of {@link #useATightBudget}'s budget: 180, 180 and
   * 50 KiB of messages (3, 3 and 1 steps). Their tokens go to {@code tokens}.
   */
  private void fillTheBudget(List<byte[]> tokens) {
    for (String ask : new String[] {"180:1024", "180:1024", "50:1024"}) {
      Raw raw = new Raw();
      tokens.add(randomToken());
      raw.send(resumableSetup(tokens.get(tokens.size() - 1)));
      ByteBuf req = PooledByteBufAllocator.DEFAULT.buffer();
      Frames.writeRequestHeader(req, 1, FrameType.REQUEST_STREAM, 0, 1000);
      Frames.writePayload(req, null, Unpooled.copiedBuffer(ask, StandardCharsets.US_ASCII));
      raw.send(req);
      assertThat(raw.got).as("the tenant's session %s", ask).doesNotContain("ERROR");
    }
    Loop.settle(loop);
  }

  /** A real client's session, then {@link #fillTheBudget}. */
  private Requester honestBesideATenantAtTheBudgetsEnd(List<byte[]> tokens) {
    useATightBudget();
    Requester honest = realClient();
    Loop.settle(loop);
    fillTheBudget(tokens);
    return honest;
  }

  /**
   * A peer that acknowledges only when asked (a KEEPALIVE with the respond flag answered with its
   * received position), as one without an acknowledgement step of its own does (rsocket-java's
   * positions travel in its keepalives only): a session held to its first step of the budget (64
   * KiB) streams 400 KiB of messages to it, 16 KiB asked for at a time. The session asks for the acknowledgement once its store
   * is half full, so it goes on to the end (before: the store filled to half, paused the stream,
   * and nothing asked the peer where it was).
   */
  @Test
  void aPeerThatAcknowledgesOnlyWhenAskedIsAskedBeforeTheStoreFills() {
    useATightBudget();
    AcksWhenAsked peer = new AcksWhenAsked();
    byte[] token = randomToken();
    peer.send(resumableSetup(token));
    List<byte[]> tokens = new java.util.ArrayList<>();
    fillTheBudget(tokens);
    tokens.add(token);
    ResumableSession session = Loop.call(loop, () -> sessions.find(token));
    assertThat(Loop.call(loop, session.store::reachableBytes))
        .as("the session can reach little more than its first step")
        .isLessThan(ResumableSession.ACK_BYTES * 8 / 3);
    int total = 400;
    ByteBuf req = PooledByteBufAllocator.DEFAULT.buffer();
    Frames.writeRequestHeader(req, 1, FrameType.REQUEST_STREAM, 0, AcksWhenAsked.BATCH);
    Frames.writePayload(req, null, Unpooled.copiedBuffer(total + ":1024", StandardCharsets.US_ASCII));
    peer.send(req);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Loop.WAIT_SECONDS);
    while (peer.payloads.get() < total && peer.errors.isEmpty() && System.nanoTime() < deadline) {
      Loop.settle(loop);
      Thread.onSpinWait();
    }
    assertThat(peer.errors).as("errors the peer got").isEmpty();
    assertThat(peer.payloads.get()).as("messages the peer got of " + total).isEqualTo(total);
    assertThat(peer.asked.get()).as("acknowledgements asked for").isPositive();
    assertThat(Loop.call(loop, session.store::highWater))
        .as("the most the store held")
        .isLessThanOrEqualTo(Loop.call(loop, session.store::reachableBytes));
    Loop.run(
        loop,
        () -> {
          for (byte[] t : tokens) {
            ResumableSession s = sessions.find(t);
            if (s != null) {
              s.conn.dispose();
            }
          }
        });
    Loop.settle(loop);
    assertThat(sessions.storeBytes()).isZero();
  }

  /**
   * A raw resumable client that acknowledges only when asked; counts what it gets, and asks for
   * {@link #BATCH} more messages (of stream 1) each time it has {@link #BATCH}.
   */
  private final class AcksWhenAsked extends RawPeer {
    static final int BATCH = 16;
    final PipeTransport end;
    final java.util.concurrent.atomic.AtomicInteger payloads = new java.util.concurrent.atomic.AtomicInteger();
    final java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
    final List<String> errors = new CopyOnWriteArrayList<>();
    private long received;

    AcksWhenAsked() {
      PipeTransport[] p = PipeTransport.pair(loop);
      end = p[1];
      Loop.run(
          loop,
          () -> {
            ResumeGate.serve(p[0], serverOptions(), (s, r) -> responder, sessions, c -> {});
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
    public void onFrame(ByteBuf f) {
      int type = Frames.type(f);
      if (Frames.streamId(f) != 0 && ResumableSession.counted(type)) {
        received += f.readableBytes();
      }
      if (type == FrameType.PAYLOAD) {
        if (payloads.incrementAndGet() % BATCH == 0) {
          ByteBuf more = PooledByteBufAllocator.DEFAULT.buffer();
          Frames.writeRequestN(more, 1, BATCH);
          end.write(more);
          end.flush();
        }
      } else if (type == FrameType.ERROR) {
        errors.add(Frames.errorMessage(f));
      } else if (type == FrameType.KEEPALIVE && Frames.hasFlag(f, Frames.FLAG_KEEPALIVE_RESPOND)) {
        asked.incrementAndGet();
        ByteBuf ack = PooledByteBufAllocator.DEFAULT.buffer();
        Frames.writeKeepAlive(ack, false, received, null);
        end.write(ack);
        end.flush();
      }
    }
  }

  /** Request data "K:SIZE": K messages, each its index padded with spaces to SIZE bytes. */
  private static final class Padded implements Responder {
    @Override
    public StreamListener requestStream(Message request, StreamHandle h) {
      String[] spec = request.dataUtf8().split(":");
      request.release();
      long total = Long.parseLong(spec[0]);
      int size = Integer.parseInt(spec[1]);
      long[] next = new long[1];
      return new StreamListener() {
        @Override
        public void onNext(Message m) {
          m.release();
        }

        @Override
        public void onComplete() {}

        @Override
        public void onError(Throwable cause) {}

        @Override
        public void onRequest(long n) {
          for (long i = 0; i < n && next[0] < total; i++) {
            long k = next[0]++;
            StringBuilder d = new StringBuilder(Long.toString(k));
            while (d.length() < size) {
              d.append(' ');
            }
            Message m = Message.utf8(h.alloc(), d);
            if (k == total - 1) {
              h.nextAndComplete(m);
            } else {
              h.next(m);
            }
          }
        }
      };
    }
  }
}
