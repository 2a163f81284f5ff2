package io.sluice.internal;

import io.sluice.core.Resumption;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The resumable sessions of one server, shared by all its connections (on every event loop):
 * bounded in sessions ({@link Resumption#maxSessions()}) and in bytes held by their stores
 * together ({@link Resumption#maxTotalStoreBytes()}).
 *
 * <p><b>Token lookup.</b> Sessions are found by the SHA-256 of their token, and the token itself
 * is then compared with {@link MessageDigest#isEqual} (constant time), so the time a RESUME takes
 * tells nothing about how much of a guessed token was right. Failed RESUMEs are counted per
 * second, server-wide and per remote address; past either bound RESUMEs are refused without a
 * lookup (a token cannot be guessed faster than the bound allows).
 */
public final class ResumeSessions {
  /** Remote addresses whose failures are tracked at once; beyond it the table starts over. */
  private static final int MAX_TRACKED_ADDRESSES = 10_000;

  final Resumption config;
  final ResumeBudget budget;
  private final ConcurrentHashMap<ByteBuffer, ResumableSession> sessions = new ConcurrentHashMap<>();
  private final AtomicInteger count = new AtomicInteger();
  /** Set once the server stops: its sessions are not resumed any more (see {@link #stopping()}). */
  private volatile boolean stopping;
  private final FailureRate serverWide;
  private final ConcurrentHashMap<Object, FailureRate> perAddress = new ConcurrentHashMap<>();
  // SETUPs whose token was in use, apart: failed RESUMEs (a server restart fails every one) must
  // not keep the same address from setting up new sessions.
  private final ConcurrentHashMap<Object, FailureRate> setupFailures = new ConcurrentHashMap<>();

  public ResumeSessions(Resumption config) {
    this.config = config;
    this.budget = new ResumeBudget(config.maxTotalStoreBytes());
    this.serverWide = new FailureRate(config.maxFailedResumesPerSecond());
  }

  /** Why {@link #register} refused a session. */
  enum Refusal {
    /** {@link Resumption#maxSessions()} sessions are held. */
    FULL,
    /** The budget has no step left for the session's store. */
    NO_MEMORY,
    /** Another session has this token (an honest client never repeats 128 random bits). */
    TOKEN_IN_USE
  }

  /**
   * Adds a session, which takes the first step of its store from the shared budget; null if added,
   * else why not (the caller releases the session's store).
   */
  Refusal register(ResumableSession s) {
    if (count.incrementAndGet() > config.maxSessions()) {
      count.decrementAndGet();
      return Refusal.FULL;
    }
    if (!s.store.reserveFirstStep()) {
      count.decrementAndGet();
      return Refusal.NO_MEMORY;
    }
    if (sessions.putIfAbsent(key(s.token), s) != null) {
      count.decrementAndGet();
      return Refusal.TOKEN_IN_USE;
    }
    return null;
  }

  void remove(ResumableSession s) {
    if (sessions.remove(key(s.token), s)) {
      count.decrementAndGet();
    }
  }

  /** The session of {@code token}, or null. */
  ResumableSession find(byte[] token) {
    ResumableSession s = sessions.get(key(token));
    return s != null && MessageDigest.isEqual(s.token, token) ? s : null;
  }

  /** May a RESUME from {@code remote} be looked up now? */
  boolean mayTry(SocketAddress remote) {
    long now = System.nanoTime();
    FailureRate r = perAddress.get(addressKey(remote));
    return !serverWide.exhausted(now) && (r == null || !r.exhausted(now));
  }

  /**
   * May a resumable SETUP from {@code remote} be looked at now? Its own per-address bound applies
   * (SETUPs whose token was in use, see {@link #failedSetup}): past it, that address's resumable
   * SETUPs are refused like any other, so tokens cannot be probed through SETUP faster than
   * through RESUME. Failed RESUMEs do not count here: after a server restart every client's
   * RESUME fails, and each must still be able to set up a new session at once.
   */
  boolean maySetUp(SocketAddress remote) {
    FailureRate r = setupFailures.get(addressKey(remote));
    return r == null || !r.exhausted(System.nanoTime());
  }

  /** Counts a resumable SETUP from {@code remote} whose token was in use. */
  void failedSetup(SocketAddress remote) {
    if (setupFailures.size() > MAX_TRACKED_ADDRESSES) {
      setupFailures.clear();
    }
    setupFailures
        .computeIfAbsent(
            addressKey(remote), k -> new FailureRate(config.maxFailedResumesPerSecondPerAddress()))
        .add(System.nanoTime());
  }

  /** Counts a failed RESUME from {@code remote}. */
  void failed(SocketAddress remote) {
    long now = System.nanoTime();
    serverWide.add(now);
    if (perAddress.size() > MAX_TRACKED_ADDRESSES) {
      perAddress.clear();
    }
    perAddress
        .computeIfAbsent(
            addressKey(remote), k -> new FailureRate(config.maxFailedResumesPerSecondPerAddress()))
        .add(now);
  }

  /**
   * The server stops ({@code SluiceServer.stop}): from now on every RESUME is refused, also one on
   * a connection accepted while the listener was closing, so that a session a drain ended, or one
   * waiting without a transport, is not taken up again by a peer that never hears the drain's
   * CONNECTION_CLOSE (a frame on stream 0, which a resume does not replay).
   */
  public void stopping() {
    stopping = true;
  }

  boolean isStopping() {
    return stopping;
  }

  /** Sessions held (connected or waiting for a RESUME). */
  public int size() {
    return count.get();
  }

  /** Bytes the sessions' stores hold together (taken in steps of 64 KiB). */
  public long storeBytes() {
    return budget.used();
  }

  /**
   * Sessions held without a transport, waiting for their peer's RESUME (a racy read, for tests
   * and metrics).
   */
  public int detached() {
    int n = 0;
    for (ResumableSession s : sessions.values()) {
      if (!s.isAttached() && !s.isEnded()) {
        n++;
      }
    }
    return n;
  }

  /** The most bytes any live session's store ever held (a racy read, for tests and metrics). */
  public long storeHighWater() {
    long max = 0;
    for (ResumableSession s : sessions.values()) {
      max = Math.max(max, s.store.highWater());
    }
    return max;
  }

  private static Object addressKey(SocketAddress a) {
    if (a instanceof InetSocketAddress && ((InetSocketAddress) a).getAddress() != null) {
      return ((InetSocketAddress) a).getAddress();
    }
    return a == null ? "unknown" : a.getClass().getName();
  }

  private static ByteBuffer key(byte[] token) {
    try {
      return ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(token));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** Failures within the current one-second window. */
  private static final class FailureRate {
    private final int limit;
    private long windowStart = System.nanoTime();
    private int count;

    FailureRate(int limit) {
      this.limit = limit;
    }

    synchronized boolean exhausted(long now) {
      roll(now);
      return count >= limit;
    }

    synchronized void add(long now) {
      roll(now);
      count++;
    }

    private void roll(long now) {
      if (now - windowStart >= 1_000_000_000L) {
        windowStart = now;
        count = 0;
      }
    }
  }
}
