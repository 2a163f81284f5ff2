package io.sluice.core;

import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Lets a thread that is not an event loop's own thread declare that it only ever runs on that
 * loop's thread: a virtual thread whose scheduler is the loop. A connection confined to that loop
 * then acts on the thread's calls at once, as it does for the loop's own, instead of queueing them
 * for the loop's next turn.
 *
 * <p>For schedulers of such threads only (see {@code sluice-virtualthreads}' {@code
 * EventLoopThreads}): a thread that claims a loop and runs anywhere else breaks the connection's
 * confinement. A scheduler that can no longer run its threads on the loop (the loop shut down and
 * they moved elsewhere) revokes the claim first; its threads' calls are then queued again.
 */
public final class LoopAffinity {
  private static final ThreadLocal<Claim> CURRENT = new ThreadLocal<>();

  private LoopAffinity() {}

  /** One scheduler's claim on a loop, shared by all the threads it runs there. */
  public static final class Claim {
    private final Executor loop;
    private volatile boolean revoked;

    private Claim(Executor loop) {
      this.loop = loop;
    }

    /** The claim's threads may now run off the loop: from here on their calls are queued. */
    public void revoke() {
      revoked = true;
    }

    public boolean isRevoked() {
      return revoked;
    }
  }

  /** A claim on {@code loop} (the connection's {@code Requester.executor()}). */
  public static Claim claimFor(Executor loop) {
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
    Claim c = CURRENT.get();
    return c != null && c.loop == loop && !c.revoked;
  }
}
