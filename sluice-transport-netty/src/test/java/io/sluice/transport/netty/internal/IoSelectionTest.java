package io.sluice.transport.netty.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.transport.netty.IoMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The default engine's choice, fed made-up availability: a native library that fails to load
 * (simulated by the probe's cause) falls back to NIO with one line, never an exception.
 */
class IoSelectionTest {
  private static final List<IoMode> ORDER = List.of(IoMode.EPOLL, IoMode.IO_URING);
  private static final Throwable NO_LIB =
      new UnsatisfiedLinkError("could not load a native library: netty_transport_native_epoll_x86_64");

  private static Function<IoMode, Throwable> loads(IoMode... available) {
    List<IoMode> ok = List.of(available);
    return m -> m == IoMode.NIO || m == IoMode.AUTO || ok.contains(m) ? null : NO_LIB;
  }

  @Test
  void autoTakesTheFirstNativeEngineThatLoads() {
    assertThat(IoSelection.choose(null, false, ORDER, loads(IoMode.EPOLL, IoMode.IO_URING)))
        .isEqualTo(new IoSelection.Choice(IoMode.EPOLL, false, null, null));
    assertThat(IoSelection.choose("auto", false, ORDER, loads(IoMode.IO_URING)))
        .isEqualTo(new IoSelection.Choice(IoMode.IO_URING, false, null, null));
    assertThat(IoSelection.choose(null, false, List.of(IoMode.IO_URING, IoMode.EPOLL), loads(IoMode.EPOLL, IoMode.IO_URING)).mode())
        .isEqualTo(IoMode.IO_URING);
  }

  /** Expected wherever the native jars are absent: a short line, the causes kept for debug. */
  @Test
  void autoFallsBackToNioWithAShortLineAndEachCauseApart() {
    IoSelection.Choice c = IoSelection.choose(null, false, ORDER, loads());
    assertThat(c.mode()).isEqualTo(IoMode.NIO);
    assertThat(c.named()).isFalse();
    assertThat(c.fallback()).isEqualTo("no native I/O (epoll, io_uring) loads here, using nio");
    assertThat(c.causes())
        .contains("epoll: UnsatisfiedLinkError: could not load a native library")
        .contains("io_uring: UnsatisfiedLinkError")
        .doesNotContain("\n");
  }

  @Test
  void anUnknownPropertyValueWithNoNativeEngineNamesTheCausesInItsLine() {
    IoSelection.Choice c = IoSelection.choose("kqueue", false, ORDER, loads());
    assertThat(c.mode()).isEqualTo(IoMode.NIO);
    assertThat(c.named()).isTrue();
    assertThat(c.fallback())
        .startsWith("-Dsluice.io=kqueue is not auto, nio, epoll or io_uring; ignored, using nio; native I/O")
        .contains("epoll: UnsatisfiedLinkError")
        .endsWith("using nio");
  }

  @Test
  void aNamedEngineIsTakenWhenItLoadsElseNioWithALine() {
    assertThat(IoSelection.choose("io_uring", false, ORDER, loads(IoMode.IO_URING)))
        .isEqualTo(new IoSelection.Choice(IoMode.IO_URING, true, null, null));
    IoSelection.Choice c = IoSelection.choose("EPOLL", false, ORDER, loads(IoMode.IO_URING));
    assertThat(c.mode()).isEqualTo(IoMode.NIO);
    assertThat(c.named()).isTrue();
    assertThat(c.fallback()).startsWith("-Dsluice.io=EPOLL asked for epoll, which cannot load here");
  }

  @Test
  void theOldNioPropertyStillForcesNioButSluiceIoWins() {
    assertThat(IoSelection.choose(null, true, ORDER, loads(IoMode.EPOLL)))
        .isEqualTo(new IoSelection.Choice(IoMode.NIO, true, null, null));
    assertThat(IoSelection.choose("epoll", true, ORDER, loads(IoMode.EPOLL)).mode()).isEqualTo(IoMode.EPOLL);
  }

  @Test
  void anUnknownPropertyValueIsIgnoredWithALine() {
    IoSelection.Choice c = IoSelection.choose("kqueue", false, ORDER, loads(IoMode.EPOLL));
    assertThat(c.mode()).isEqualTo(IoMode.EPOLL);
    assertThat(c.fallback()).contains("-Dsluice.io=kqueue is not auto, nio, epoll or io_uring");
  }

  @Test
  void theFallbackLineIsLoggedOnce() {
    EventLoops.OnceLog once = new EventLoops.OnceLog();
    List<String> lines = new ArrayList<>();
    assertThat(once.log(lines::add, "first")).isTrue();
    assertThat(once.log(lines::add, "second")).isFalse();
    assertThat(lines).containsExactly("first");
  }

  @Test
  void causesAreDescribedOnOneLineWithTheirRoot() {
    Throwable t = new IllegalStateException("failed\nto start", new UnsatisfiedLinkError("no lib"));
    assertThat(IoSelection.describe(t))
        .isEqualTo("IllegalStateException: failed to start <- UnsatisfiedLinkError: no lib");
  }

  @Test
  void parseReadsEveryName() {
    Map<String, IoMode> names =
        Map.of("auto", IoMode.AUTO, "NIO", IoMode.NIO, "epoll", IoMode.EPOLL, "io_uring", IoMode.IO_URING,
            "io-uring", IoMode.IO_URING, "iouring", IoMode.IO_URING);
    names.forEach((n, m) -> assertThat(IoMode.parse(n)).isEqualTo(m));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> IoMode.parse("kqueue"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("use auto, nio, epoll or io_uring");
  }
}
