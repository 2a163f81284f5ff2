package io.sluice.reactor.tck;

import io.sluice.test.LeakCheckExtension;
import org.reactivestreams.tck.TestEnvironment;

/**
 * Settings and checks shared by the Reactive Streams TCK classes of this package.
 *
 * <p>The TCK is TestNG-based and runs on the JUnit Platform through testng-engine, so JUnit
 * Jupiter's {@link LeakCheckExtension} (registered by auto-detection) does not see these classes.
 * Each class therefore calls {@link #init()} from a static initializer, which makes sure the
 * extension's leak-detector factory is installed before netty's buffer classes initialise, and
 * {@link #assertNoLeaks(Object)} from an {@code @AfterClass} method once its connections are
 * closed: any leak netty reports fails the class, as for the JUnit tests.
 */
final class Tck {
  /**
   * Generous for a loaded 2-core machine: how long an expected signal may take. Signals that
   * must <em>not</em> come are awaited for {@link #NO_SIGNALS_TIMEOUT_MILLIS}.
   */
  static final long DEFAULT_TIMEOUT_MILLIS = 5_000;

  static final long NO_SIGNALS_TIMEOUT_MILLIS = 100;
  static final long POLL_TIMEOUT_MILLIS = 20;

  /**
   * How long §3.13 waits before collecting the canceled subscriber: the cancel reaches the
   * connection's loop asynchronously, and the TCK collects once after this wait. 300 ms failed once
   * on a clean-clone CI run that shared the machine's 2 cores with another build.
   */
  static final long PUBLISHER_REFERENCE_GC_TIMEOUT_MILLIS = 1_000;

  private Tck() {}

  static TestEnvironment env() {
    return new TestEnvironment(
        DEFAULT_TIMEOUT_MILLIS, NO_SIGNALS_TIMEOUT_MILLIS, POLL_TIMEOUT_MILLIS);
  }

  /** Installs the leak detector (idempotent); call before anything allocates a ByteBuf. */
  static void init() {
    if (!LeakCheckExtension.isInstalled()) {
      throw new IllegalStateException("LeakCheckExtension could not install its leak detector");
    }
  }

  /** Fails if netty reported a leak since the last check. */
  static void assertNoLeaks(Object testInstance) {
    LeakCheckExtension.assertNoLeaks(testInstance.getClass().getName());
  }
}
