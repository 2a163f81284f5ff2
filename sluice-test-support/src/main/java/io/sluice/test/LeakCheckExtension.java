package io.sluice.test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when netty reports a leaked reference-counted object (a {@link ByteBuf} that
 * became garbage without being released) while it ran.
 *
 * <p><b>How leaks are caught.</b> The class's static initializer installs a {@link
 * ResourceLeakDetectorFactory} whose detectors record every leak report in memory (and still let
 * netty log its usual {@code LEAK:} line, so CI can grep for it). It must run before netty's {@code
 * AbstractByteBuf} class initialises, because that class creates the one detector shared by all
 * buffers. JUnit loads auto-detected extensions before it initialises any test class, so this holds
 * for tests; {@link #isInstalled()} says whether it worked. If netty was initialised first anyway,
 * the extension falls back to a {@link ResourceLeakDetector.LeakListener} on the existing detector.
 *
 * <p>After each test class, {@link #assertNoLeaks(String)} runs the garbage collector and allocates
 * a few buffers (netty reports leaks only when it tracks a new buffer after the leaked one was
 * collected), for a bounded number of rounds, then throws an {@link AssertionError} carrying every
 * report. Leak reports are attributed to the class after which they were found; a late collection
 * can push a leak into the next class.
 *
 * <p><b>Registration.</b> sluice-test-support lists this class in {@code
 * META-INF/services/org.junit.jupiter.api.extension.Extension} and ships a {@code
 * junit-platform.properties} with {@code junit.jupiter.extensions.autodetection.enabled=true}, so
 * every module that has sluice-test-support on its test classpath is covered without annotations.
 * Modules must not ship their own {@code junit-platform.properties} (JUnit reads only one).
 *
 * <p><b>Level.</b> Builds pass {@code -Dio.netty.leakDetection.level=paranoid}; when no level is
 * configured (an IDE run), this class sets {@link ResourceLeakDetector.Level#PARANOID} itself. At
 * lower levels netty tracks only a sample of the buffers (none when {@code disabled}), so a leak
 * mostly goes unreported and the check would pass whatever the tests leak. Therefore, before and
 * after each test class, the check <em>fails</em> when the level is below {@code PARANOID}, unless
 * the run says that it lowers the level on purpose with {@code
 * -Dsluice.leakCheck.allowLevel=<level>} ({@link #ALLOW_LEVEL_PROPERTY}): the lowest level it
 * accepts, one of {@code disabled}, {@code simple}, {@code advanced}, {@code paranoid} (any other
 * value fails). A run that uses it gets one line on stderr saying that leaks are not fully checked.
 * {@code sluice-fuzz/fuzz.sh} does this ({@code -Dio.netty.leakDetection.level=disabled
 * -Dsluice.leakCheck.allowLevel=disabled}): it counts the buffers of each input itself.
 *
 * <p><b>Blind spot.</b> netty 4.2 tracks pooled buffers (heap and direct) and unpooled direct
 * buffers, but not unpooled heap buffers ({@code UnpooledByteBufAllocator.heapBuffer}, {@code
 * Unpooled.buffer}/{@code wrappedBuffer}): leaks of those are invisible. Tests that want their
 * buffers checked should allocate from {@code PooledByteBufAllocator.DEFAULT}.
 *
 * <p><b>Threads.</b> Leak reports may arrive on any thread; the record is a concurrent queue.
 *
 * <p><b>Buffers.</b> Holds none: the few buffers it allocates to make netty report leaks are
 * released at once.
 */
public final class LeakCheckExtension implements BeforeAllCallback, AfterAllCallback {
  /** Names the lowest leak detection level a run accepts on purpose (see the class comment). */
  public static final String ALLOW_LEVEL_PROPERTY = "sluice.leakCheck.allowLevel";

  private static final int MAX_ROUNDS = 10;
  private static final int MIN_ROUNDS = 2;
  private static final long CANARY_WAIT_MILLIS = 100;

  private static final ConcurrentLinkedQueue<String> LEAKS = new ConcurrentLinkedQueue<>();
  private static final AtomicInteger INSTANCES = new AtomicInteger();
  private static final AtomicBoolean LOWER_LEVEL_ANNOUNCED = new AtomicBoolean();
  private static volatile boolean byteBufDetectorCreated;
  private static volatile boolean loggingMuted;
  private static final String INSTALL_PROBLEM;
  private static final boolean INSTALLED_AS_FACTORY;

  static {
    if (System.getProperty("io.netty.leakDetection.level") == null
        && System.getProperty("io.netty.leakDetectionLevel") == null) {
      ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    }
    ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
    // Initialise the buffer classes now: if AbstractByteBuf asked our factory for its detector, we
    // are in; otherwise netty was initialised before this class and we attach a listener instead.
    UnpooledByteBufAllocator.DEFAULT.heapBuffer(1).release();
    INSTALLED_AS_FACTORY = byteBufDetectorCreated;
    INSTALL_PROBLEM = INSTALLED_AS_FACTORY ? null : attachListenerToExistingDetector();
  }

  /** Public no-argument constructor for JUnit's ServiceLoader registration. */
  public LeakCheckExtension() {
    INSTANCES.incrementAndGet();
  }

  /** How many instances exist; positive once JUnit's auto-detection has registered this class. */
  static int instances() {
    return INSTANCES.get();
  }

  /**
   * Fails the class before it runs when the level is below PARANOID and not allowed; says once per
   * JVM on stderr when a lower level is allowed.
   */
  @Override
  public void beforeAll(ExtensionContext context) {
    checkLevel();
    ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
    if (level != ResourceLeakDetector.Level.PARANOID
        && LOWER_LEVEL_ANNOUNCED.compareAndSet(false, true)) {
      System.err.println(
          "LeakCheckExtension: netty's leak detection level is "
              + level
              + ", allowed by -D"
              + ALLOW_LEVEL_PROPERTY
              + "="
              + System.getProperty(ALLOW_LEVEL_PROPERTY)
              + ": buffer leaks are "
              + (level == ResourceLeakDetector.Level.DISABLED ? "not checked" : "only sampled")
              + " in this run.");
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    assertNoLeaks(context.getTestClass().map(Class::getName).orElse(context.getDisplayName()));
  }

  /**
   * True when every ByteBuf leak reaches this extension: our detector factory was installed before
   * netty's buffers initialised, or the fallback listener was attached.
   */
  public static boolean isInstalled() {
    return INSTALL_PROBLEM == null;
  }

  /**
   * While muted, leaks are still recorded (and fail {@link #assertNoLeaks}) but netty does not log
   * its {@code LEAK:} line. Only for tests of this extension, which leak on purpose: CI fails on
   * any {@code LEAK:} line in the build output.
   */
  public static void muteLeakLoggingForSelfTest(boolean muted) {
    loggingMuted = muted;
  }

  /** True when the detectors are this extension's own subclass (not the listener fallback). */
  public static boolean isInstalledAsFactory() {
    return INSTALLED_AS_FACTORY;
  }

  /**
   * Throws an {@link AssertionError} when netty's leak detection level is below {@code PARANOID}
   * and not allowed by {@link #ALLOW_LEVEL_PROPERTY}, or when that property is not a level.
   */
  public static void checkLevel() {
    ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
    String allowed = System.getProperty(ALLOW_LEVEL_PROPERTY);
    ResourceLeakDetector.Level lowest = ResourceLeakDetector.Level.PARANOID;
    if (allowed != null) {
      try {
        lowest = ResourceLeakDetector.Level.valueOf(allowed.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new AssertionError(
            "-D"
                + ALLOW_LEVEL_PROPERTY
                + "="
                + allowed
                + " is not a leak detection level: use disabled, simple, advanced or paranoid.");
      }
    }
    if (level.compareTo(lowest) < 0) {
      throw new AssertionError(
          "netty's leak detection level is "
              + level
              + ", below PARANOID: netty tracks only some buffers (none when DISABLED), so leaks"
              + " would go unreported and this check would pass whatever leaked. Run with"
              + " -Dio.netty.leakDetection.level=paranoid (the parent pom's sluice.test.argLine"
              + " does), or, to lower the level on purpose, say so with -D"
              + ALLOW_LEVEL_PROPERTY
              + "="
              + level.name().toLowerCase(Locale.ROOT)
              + ".");
    }
  }

  /**
   * Checks the level ({@link #checkLevel}), forces leak detection (see the class comment) and
   * throws an {@link AssertionError} listing every leak netty reported since the last call; the
   * reports are cleared either way.
   *
   * @param context what just ran, for the failure message (e.g. a test class name)
   */
  public static void assertNoLeaks(String context) {
    if (INSTALL_PROBLEM != null) {
      throw new AssertionError("LeakCheckExtension is not active: " + INSTALL_PROBLEM);
    }
    checkLevel();
    List<String> leaks = detectLeaks();
    if (!leaks.isEmpty()) {
      StringBuilder message =
          new StringBuilder()
              .append("netty reported ")
              .append(leaks.size())
              .append(leaks.size() == 1 ? " leak" : " leaks")
              .append(" after ")
              .append(context)
              .append(" (a leak collected late may come from an earlier test class):");
      for (int i = 0; i < leaks.size(); i++) {
        message.append(System.lineSeparator()).append('#').append(i + 1).append(' ');
        message.append(leaks.get(i));
      }
      throw new AssertionError(message.toString());
    }
  }

  /**
   * Runs the garbage collector and allocates tracked buffers for a bounded number of rounds, then
   * returns and clears the leak reports recorded so far. Stops once {@value #MIN_ROUNDS}
   * collections were seen to complete (one leak can need two: a derived buffer and its parent are
   * tracked separately), after at most {@value #MAX_ROUNDS} rounds.
   */
  public static List<String> detectLeaks() {
    ReferenceQueue<Object> collected = new ReferenceQueue<>();
    int completedCollections = 0;
    // Nothing is tracked when detection is disabled: no collections to wait for.
    int rounds =
        ResourceLeakDetector.getLevel() == ResourceLeakDetector.Level.DISABLED ? 0 : MAX_ROUNDS;
    for (int round = 0; round < rounds; round++) {
      // The canary's referent is garbage at once; when its reference is enqueued, the collection
      // that found it has run and the reference handler has processed what it discovered.
      PhantomReference<Object> canary = new PhantomReference<>(new Object(), collected);
      System.gc();
      try {
        if (collected.remove(CANARY_WAIT_MILLIS) != null) {
          completedCollections++;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } finally {
        Reference.reachabilityFence(canary);
      }
      triggerReports();
      if (completedCollections >= MIN_ROUNDS) {
        break;
      }
    }
    List<String> leaks = new ArrayList<>();
    for (String leak; (leak = LEAKS.poll()) != null; ) {
      leaks.add(leak);
    }
    return leaks;
  }

  /** Leak reports recorded and not yet taken, without forcing detection or clearing them. */
  public static List<String> pendingLeaks() {
    return new ArrayList<>(LEAKS);
  }

  /**
   * netty polls its reference queue for collected, unreleased buffers only when it starts tracking
   * a new buffer, so allocate (and release) a few from each allocator.
   */
  private static void triggerReports() {
    int perAllocator =
        ResourceLeakDetector.getLevel() == ResourceLeakDetector.Level.PARANOID ? 1 : 512;
    ByteBufAllocator[] allocators = {
      PooledByteBufAllocator.DEFAULT, UnpooledByteBufAllocator.DEFAULT, ByteBufAllocator.DEFAULT
    };
    for (ByteBufAllocator alloc : allocators) {
      for (int i = 0; i < perAllocator; i++) {
        alloc.heapBuffer(8).release();
        alloc.directBuffer(8).release();
      }
    }
  }

  private static void record(String report) {
    LEAKS.add(report);
  }

  private static String attachListenerToExistingDetector() {
    try {
      Class<?> abstractByteBuf = Class.forName("io.netty.buffer.AbstractByteBuf");
      Field field = abstractByteBuf.getDeclaredField("leakDetector");
      field.setAccessible(true);
      ResourceLeakDetector<?> detector = (ResourceLeakDetector<?>) field.get(null);
      detector.setLeakListener(
          (resourceType, records) ->
              record("LEAK: " + resourceType + ".release() was not called" + records));
      return null;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return "netty's ByteBuf classes were initialised before LeakCheckExtension could install its"
          + " leak detector factory, and attaching a leak listener failed ("
          + e
          + "). Make sure nothing allocates a ByteBuf before JUnit loads its extensions.";
    }
  }

  /** Creates {@link RecordingLeakDetector}s for every resource type netty tracks. */
  private static final class RecordingFactory extends ResourceLeakDetectorFactory {
    @Override
    @Deprecated
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(
        Class<T> resource, int samplingInterval, long maxActive) {
      return newResourceLeakDetector(resource, samplingInterval);
    }

    @Override
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(
        Class<T> resource, int samplingInterval) {
      if (resource == ByteBuf.class) {
        byteBufDetectorCreated = true;
      }
      return new RecordingLeakDetector<>(resource, samplingInterval);
    }
  }

  /** A detector that records each leak report and still lets netty log it. */
  static final class RecordingLeakDetector<T> extends ResourceLeakDetector<T> {
    RecordingLeakDetector(Class<?> resourceType, int samplingInterval) {
      super(resourceType, samplingInterval);
    }

    /** Report even when no logger has ERROR enabled; netty skips reporting otherwise. */
    @Override
    protected boolean needReport() {
      return true;
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
      record(
          "LEAK: "
              + resourceType
              + ".release() was not called before it's garbage-collected."
              + records);
      if (!loggingMuted) {
        super.reportTracedLeak(resourceType, records);
      }
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
      record(
          "LEAK: "
              + resourceType
              + ".release() was not called before it's garbage-collected (no access records:"
              + " run with -Dio.netty.leakDetection.level=paranoid to see where it was created).");
      if (!loggingMuted) {
        super.reportUntracedLeak(resourceType);
      }
    }
  }
}
