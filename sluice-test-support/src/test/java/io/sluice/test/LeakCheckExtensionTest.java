package io.sluice.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.ServiceLoader;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Checks the leak mechanism itself: a deliberately leaked buffer must make {@link
 * LeakCheckExtension#assertNoLeaks} fail. Each leak is caught by that direct call (which clears the
 * record), so this class's own after-all check stays green.
 *
 * <p>netty 4.2 does not track unpooled <em>heap</em> buffers ({@code UnpooledByteBufAllocator}
 * creates them without a leak tracker), so the leaks here use direct or pooled buffers.
 */
class LeakCheckExtensionTest {

  @BeforeEach
  void startClean() {
    LeakCheckExtension.assertNoLeaks("the start of a LeakCheckExtensionTest method");
  }

  // These tests leak on purpose; netty's LEAK: log line is muted so CI's grep stays meaningful.
  @org.junit.jupiter.api.BeforeAll
  static void muteLeakLogging() {
    LeakCheckExtension.muteLeakLoggingForSelfTest(true);
  }

  @org.junit.jupiter.api.AfterAll
  static void unmuteLeakLogging() {
    LeakCheckExtension.muteLeakLoggingForSelfTest(false);
  }

  @Test
  void detectorFactoryIsInstalledAtParanoidLevel() {
    assertThat(LeakCheckExtension.isInstalled()).isTrue();
    assertThat(LeakCheckExtension.isInstalledAsFactory()).isTrue();
    assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.PARANOID);
    assertThat(ResourceLeakDetectorFactory.instance().newResourceLeakDetector(Object.class))
        .isInstanceOf(LeakCheckExtension.RecordingLeakDetector.class);
  }

  @Test
  void extensionIsRegisteredByAutoDetection() throws IOException {
    // JUnit created it through ServiceLoader before running this class.
    assertThat(LeakCheckExtension.instances()).isPositive();
    List<Class<?>> registered = new ArrayList<>();
    for (Extension e : ServiceLoader.load(Extension.class)) {
      registered.add(e.getClass());
    }
    assertThat(registered).contains(LeakCheckExtension.class);

    List<URL> configs =
        Collections.list(getClass().getClassLoader().getResources("junit-platform.properties"));
    assertThat(configs).as("exactly one junit-platform.properties on the classpath").hasSize(1);
    Properties properties = new Properties();
    try (InputStream in = configs.get(0).openStream()) {
      properties.load(in);
    }
    assertThat(properties.getProperty("junit.jupiter.extensions.autodetection.enabled"))
        .isEqualTo("true");
  }

  @Test
  void cleanBuffersPass() {
    ByteBuf pooled = PooledByteBufAllocator.DEFAULT.directBuffer(32).writeLong(1);
    ByteBuf unpooled = UnpooledByteBufAllocator.DEFAULT.heapBuffer(32).writeLong(2);
    pooled.release();
    unpooled.release();
    LeakCheckExtension.assertNoLeaks("cleanBuffersPass");
  }

  @Test
  void leakedUnpooledDirectBufferFailsTheCheck() {
    leakUnpooledDirectBuffer();
    assertThatThrownBy(() -> LeakCheckExtension.assertNoLeaks("leakedUnpooledDirectBuffer"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("netty reported 1 leak after leakedUnpooledDirectBuffer")
        .hasMessageContaining("LEAK: ByteBuf.release() was not called")
        // paranoid level records where the buffer was created
        .hasMessageContaining("leakUnpooledDirectBuffer");
    // The reports were cleared with the failure.
    assertThat(LeakCheckExtension.pendingLeaks()).isEmpty();
    LeakCheckExtension.assertNoLeaks("after clearing");
  }

  @Test
  void afterAllFailsTheClassOnALeak() {
    leakForAfterAll();
    ExtensionContext context = classContext(LeakCheckExtensionTest.class);
    assertThatThrownBy(() -> new LeakCheckExtension().afterAll(context))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("after " + LeakCheckExtensionTest.class.getName())
        .hasMessageContaining("leakForAfterAll");
    new LeakCheckExtension().afterAll(context); // cleared: passes now
  }

  @Test
  void leakedPooledHeapBufferFailsTheCheck() {
    leakPooledHeapBuffer();
    assertThatThrownBy(() -> LeakCheckExtension.assertNoLeaks("leakedPooledHeapBuffer"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("leakPooledHeapBuffer");
  }

  @Test
  void leakedPooledDirectBufferFailsTheCheck() {
    leakPooledDirectBuffer();
    assertThatThrownBy(() -> LeakCheckExtension.assertNoLeaks("leakedPooledDirectBuffer"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("LEAK: ByteBuf.release() was not called")
        .hasMessageContaining("leakPooledDirectBuffer");
    LeakCheckExtension.assertNoLeaks("after clearing");
  }

  @Test
  void leakedRetainedSliceIsReported() {
    leakRetainedSlice();
    // The parent was released once but the slice's reference keeps it alive: netty reports the
    // slice (created by retainedSlice) and the parent it pins.
    assertThat(LeakCheckExtension.detectLeaks())
        .isNotEmpty()
        .anySatisfy(report -> assertThat(report).contains("leakRetainedSlice"));
  }

  @Test
  void aLevelBelowParanoidFailsTheCheck() {
    for (ResourceLeakDetector.Level level :
        List.of(
            ResourceLeakDetector.Level.ADVANCED,
            ResourceLeakDetector.Level.SIMPLE,
            ResourceLeakDetector.Level.DISABLED)) {
      atLevel(
          level,
          null,
          () -> {
            assertThatThrownBy(() -> LeakCheckExtension.assertNoLeaks("a run at " + level))
                .as("assertNoLeaks at %s", level)
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("leak detection level is " + level + ", below PARANOID")
                .hasMessageContaining("-Dio.netty.leakDetection.level=paranoid")
                .hasMessageContaining(
                    "-D" + LeakCheckExtension.ALLOW_LEVEL_PROPERTY + "=" + lower(level));
            ExtensionContext context = classContext(LeakCheckExtensionTest.class);
            assertThatThrownBy(() -> new LeakCheckExtension().beforeAll(context))
                .as("beforeAll at %s", level)
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("below PARANOID");
            assertThatThrownBy(() -> new LeakCheckExtension().afterAll(context))
                .as("afterAll at %s", level)
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("below PARANOID");
          });
    }
  }

  @Test
  void aLevelAllowedOnPurposePassesAndNoLowerOne() {
    atLevel(
        ResourceLeakDetector.Level.ADVANCED,
        "advanced",
        () -> LeakCheckExtension.assertNoLeaks("an advanced run that says so"));
    atLevel(
        ResourceLeakDetector.Level.DISABLED,
        "DISABLED",
        () -> LeakCheckExtension.assertNoLeaks("a disabled run that says so"));
    // The property names the lowest level allowed: SIMPLE is below ADVANCED.
    atLevel(
        ResourceLeakDetector.Level.SIMPLE,
        "advanced",
        () ->
            assertThatThrownBy(() -> LeakCheckExtension.assertNoLeaks("a simple run"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("leak detection level is SIMPLE, below PARANOID"));
  }

  @Test
  void anUnknownAllowedLevelFailsTheCheck() {
    atLevel(
        ResourceLeakDetector.Level.PARANOID,
        "off",
        () ->
            assertThatThrownBy(() -> LeakCheckExtension.assertNoLeaks("a run with a typo"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(LeakCheckExtension.ALLOW_LEVEL_PROPERTY + "=off")
                .hasMessageContaining("disabled, simple, advanced or paranoid"));
  }

  /**
   * Runs {@code body} with netty's level set to {@code level} and the allow-level property to
   * {@code allowed} (cleared when null), then restores PARANOID and the property.
   */
  private static void atLevel(ResourceLeakDetector.Level level, String allowed, Runnable body) {
    String property = LeakCheckExtension.ALLOW_LEVEL_PROPERTY;
    String saved = System.getProperty(property);
    try {
      if (allowed == null) {
        System.clearProperty(property);
      } else {
        System.setProperty(property, allowed);
      }
      ResourceLeakDetector.setLevel(level);
      body.run();
    } finally {
      ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
      if (saved == null) {
        System.clearProperty(property);
      } else {
        System.setProperty(property, saved);
      }
    }
  }

  private static String lower(ResourceLeakDetector.Level level) {
    return level.name().toLowerCase(Locale.ROOT);
  }

  private static void leakUnpooledDirectBuffer() {
    UnpooledByteBufAllocator.DEFAULT
        .directBuffer(64)
        .writeBytes("leaked".getBytes(StandardCharsets.UTF_8));
  }

  private static void leakForAfterAll() {
    PooledByteBufAllocator.DEFAULT.directBuffer(16).writeByte(1);
  }

  /** An ExtensionContext answering only what afterAll asks: the test class and display name. */
  private static ExtensionContext classContext(Class<?> testClass) {
    return (ExtensionContext)
        Proxy.newProxyInstance(
            ExtensionContext.class.getClassLoader(),
            new Class<?>[] {ExtensionContext.class},
            (proxy, method, args) -> {
              switch (method.getName()) {
                case "getTestClass":
                  return Optional.of(testClass);
                case "getDisplayName":
                  return testClass.getSimpleName();
                default:
                  throw new UnsupportedOperationException(method.getName());
              }
            });
  }

  private static void leakPooledHeapBuffer() {
    PooledByteBufAllocator.DEFAULT.heapBuffer(64).writeInt(8);
  }

  private static void leakPooledDirectBuffer() {
    PooledByteBufAllocator.DEFAULT.directBuffer(64).writeInt(7);
  }

  private static void leakRetainedSlice() {
    ByteBuf parent = PooledByteBufAllocator.DEFAULT.heapBuffer(16).writeLong(42);
    parent.retainedSlice(0, 4).touch("leakRetainedSlice");
    parent.release();
  }
}
