package io.sluice.benchmarks.jmh;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * {@link EngineCost} for two builds of the engine in one JVM, measured in alternating rounds: each
 * build's {@link EngineBenchmark} (its sluice-benchmarks classes, sluice-core and sluice-api) is
 * loaded by its own class loader, over one shared loader for everything else (netty, ...), and
 * both run on one netty {@code FastThreadLocalThread} as an event loop would. Load from
 * other processes then falls on both builds alike, round by round, where separate JVMs see
 * whatever the machine did during each; what is left between JVMs is each JVM's own JIT luck, so
 * run several and swap which build loads first (see docs/benchmarks.md, "The engine split").
 *
 * <pre>{@code
 * java -cp sluice-benchmarks/target/classes io.sluice.benchmarks.jmh.EngineCostAB stream 8 60 \
 *     "$shared" old "$old_bench:$old_core_jar:$old_api_jar" new "$new_bench:$new_core_jar:$new_api_jar"
 * }</pre>
 *
 * <p>Paths are class paths (':'-separated). {@code $shared} must not hold the sluice-core,
 * sluice-api or sluice-benchmarks classes (the shared loader would then load them for both
 * builds). Prints {@code AB bench= size= NAME_min= NAME_p25=
 * ... ratio_min= ratio_p25= bytes_NAME=}: the CPU ns per message (per call for rr) of each build,
 * min and 25th percentile over the rounds, and the second build's over the first's.
 */
public final class EngineCostAB {
  private static final String BENCHMARK = "io.sluice.benchmarks.jmh.EngineBenchmark";

  /** One class of each part that must come from the build's own class path, not the shared one. */
  private static final String[] OWN_CLASSES = {
    BENCHMARK, "io.sluice.internal.SluiceConnection", "io.sluice.Message"
  };

  private EngineCostAB() {}

  private static URL[] urls(String classPath) {
    String[] p = classPath.split(":");
    URL[] urls = new URL[p.length];
    for (int i = 0; i < p.length; i++) {
      try {
        urls[i] = Path.of(p[i]).toUri().toURL();
      } catch (MalformedURLException e) {
        throw new IllegalArgumentException("not a path: " + p[i], e);
      }
    }
    return urls;
  }

  /** One build: its benchmark object and the operation measured. */
  private static final class Build {
    final String name;
    final Object bench;
    final Method op;
    final Method tearDown;
    final int size;

    Build(String name, String paths, ClassLoader shared, boolean rr, int size)
        throws ReflectiveOperationException {
      this.name = name;
      this.size = size;
      ClassLoader loader = new URLClassLoader(urls(paths), shared);
      for (String own : OWN_CLASSES) {
        if (Class.forName(own, false, loader).getClassLoader() != loader) {
          throw new IllegalArgumentException(
              "the shared class path holds " + own + ": each build must load its own");
        }
      }
      Class<?> c = Class.forName(BENCHMARK, true, loader);
      bench = c.getDeclaredConstructor().newInstance();
      Field f = c.getDeclaredField("size");
      f.setAccessible(true);
      f.setInt(bench, size);
      c.getMethod("setUp").invoke(bench);
      op = c.getMethod(rr ? "requestResponse" : "stream");
      tearDown = c.getMethod("tearDown");
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 8 || !(args[0].equals("rr") || args[0].equals("stream"))) {
      System.err.println(
          "usage: EngineCostAB rr|stream SIZE ROUNDS SHARED_CP NAME_A CP_A NAME_B CP_B");
      System.exit(2);
    }
    boolean rr = args[0].equals("rr");
    int size = Integer.parseInt(args[1]);
    int rounds = Math.max(4, Math.min(1000, Integer.parseInt(args[2])));
    ClassLoader shared = new URLClassLoader(urls(args[3]), ClassLoader.getPlatformClassLoader());
    Throwable[] failure = new Throwable[1];
    Runnable work =
        () -> {
          try {
            Build a = new Build(args[4], args[5], shared, rr, size);
            Build b = new Build(args[6], args[7], shared, rr, size);
            try {
              run(rr, rounds, a, b);
            } finally {
              a.tearDown.invoke(a.bench);
              b.tearDown.invoke(b.bench);
            }
          } catch (Throwable e) {
            failure[0] = e;
          }
        };
    // The shared loader's netty thread class: the builds' netty sees it as its own.
    Thread t =
        (Thread)
            Class.forName("io.netty.util.concurrent.FastThreadLocalThread", true, shared)
                .getConstructor(Runnable.class, String.class)
                .newInstance(work, "engine-cost-ab");
    t.start();
    t.join();
    if (failure[0] != null) {
      throw new IllegalStateException("EngineCostAB failed", failure[0]);
    }
  }

  private static void run(boolean rr, int rounds, Build a, Build b) throws Exception {
    int perOp = rr ? EngineBenchmark.WINDOW : EngineBenchmark.STREAM;
    ThreadCost.Op opA = () -> a.op.invoke(a.bench);
    ThreadCost.Op opB = () -> b.op.invoke(b.bench);
    for (int i = 0; i < 4000; i++) {
      opA.run();
      opB.run();
    }
    double[] cpuA = new double[rounds];
    double[] cpuB = new double[rounds];
    double bytesA = 0;
    double bytesB = 0;
    for (int r = 0; r < rounds; r++) {
      for (int k = 0; k < 2; k++) {
        boolean first = (k == 0) == ((r & 1) == 0); // a first in even rounds, b first in odd
        ThreadCost c = ThreadCost.round(first ? opA : opB, 200, perOp);
        if (first) {
          cpuA[r] = c.cpuNanos;
          bytesA = c.bytes;
        } else {
          cpuB[r] = c.cpuNanos;
          bytesB = c.bytes;
        }
      }
    }
    Arrays.sort(cpuA);
    Arrays.sort(cpuB);
    System.out.printf(
        "AB bench=%s size=%d %s_min=%.2f %s_min=%.2f %s_p25=%.2f %s_p25=%.2f ratio_min=%.4f"
            + " ratio_p25=%.4f bytes_%s=%.1f bytes_%s=%.1f%n",
        rr ? "rr" : "stream",
        a.size,
        a.name,
        cpuA[0],
        b.name,
        cpuB[0],
        a.name,
        cpuA[rounds / 4],
        b.name,
        cpuB[rounds / 4],
        cpuB[0] / cpuA[0],
        cpuB[rounds / 4] / cpuA[rounds / 4],
        a.name,
        bytesA,
        b.name,
        bytesB);
  }
}
