package io.sluice.internal;

import java.util.ArrayList;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * For schedulers that run threads on an event loop's own thread (Sluice's {@code
 * EventLoopThreads}: virtual threads whose carrier is the loop). Internal to Sluice's modules.
 *
 * <p>Such a thread never acts on a connection's state itself, even though it runs on the loop's
 * thread: it could be unmounted in the middle (a contended lock in an allocator is enough) while
 * the loop goes on with the same connection, and netty does not see it as the loop. Its calls are
 * queued like any other thread's; what changes is when they run. Instead of a loop task for the
 * next turn, the connection is put on the claim's list, and the scheduler runs that list on the
 * loop's own thread as soon as the thread yields the carrier ({@link Claim#runPending()}) — inside
 * the loop's current work, so what the thread sent joins the batch the loop is writing now.
 */
public final class LoopAffinity {
  private static final ThreadLocal<Claim> CURRENT = new ThreadLocal<>();
  /** False until the first claim: spares other threads the thread-local (and its map). */
  private static volatile boolean anyClaims;

  private LoopAffinity() {}

  /** One scheduler's claim on a loop, shared by all the threads it runs there. */
  public static final class Claim {
    private final Executor loop;
    private volatile boolean revoked;
    /** Connections with commands from the claim's threads; touched on the loop's thread only. */
    private final ArrayList<CommandQueue> pending = new ArrayList<>();

    private Claim(Executor loop) {
      this.loop = loop;
    }

    /**
     * The claim's threads no longer run on the loop only (it shut down; they moved elsewhere): from
     * here on their calls are queued as any thread's. Call before the first such run.
     */
    public void revoke() {
      revoked = true;
    }

    public boolean isRevoked() {
      return revoked;
    }

    /**
     * Runs the commands the claim's threads queued since the last call. The scheduler calls it on
     * the loop's thread each time one of them gives the carrier back (parked, blocked, or done).
     */
    public void runPending() {
      ArrayList<CommandQueue> p = pending;
      try {
        // Commands may queue more (a listener waking another thread): index loop, not an iterator.
        for (int i = 0; i < p.size(); i++) {
          p.get(i).runAll();
        }
      } finally {
        for (int i = 0; i < p.size(); i++) {
          p.get(i).claimDrainPending = false; // none stays marked with no list to be drained from
        }
        p.clear();
      }
    }

    void add(CommandQueue queue) {
      pending.add(queue);
    }
  }

  /** A claim on {@code loop} (a connection's {@code Requester.executor()}). */
  public static Claim claimFor(Executor loop) {
    anyClaims = true;
    return new Claim(Objects.requireNonNull(loop, "loop"));
  }

  /**
   * Binds the calling thread to {@code claim} for the rest of its life. Call it first thing on a
   * thread the claim's scheduler runs, and nowhere else.
   */
  public static void bindCurrentThread(Claim claim) {
    CURRENT.set(Objects.requireNonNull(claim, "claim"));
  }

  /** True if the calling thread holds an unrevoked claim on {@code loop}. */
  public static boolean isBoundTo(Executor loop) {
    return claimOnLoop(loop) != null;
  }

  /** The calling thread's unrevoked claim on {@code loop}, or null. */
  static Claim claimOnLoop(Executor loop) {
    if (!anyClaims) {
      return null;
    }
    Claim c = CURRENT.get();
    return c != null && c.loop == loop && !c.revoked ? c : null;
  }
}
