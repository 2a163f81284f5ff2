import io.grpc.LoadBalancerProvider;
import io.grpc.LoadBalancerRegistry;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs grpc-java's interop client (io.grpc.testing.integration.TestServiceClient) once per case,
 * all in this one JVM, as its main method does for one: a fresh client per case (its own channel,
 * made by its setUp and shut down by its tearDown), grpc-java's ORCA test balancer registered
 * before each case as main does (its tearDown deregisters it). Started by run.sh as a single-file
 * source program on the peer's class path.
 *
 * <p>Arguments: {@code LOG_DIR SUFFIX CASES ORCA_SERVICE_CONFIG CLIENT_ARG...}; each case's output
 * goes to {@code LOG_DIR/<case><SUFFIX>.log}. Prints {@code PASS <case> (N ms)} or {@code FAIL
 * <case> (N ms): see <log>} per case ({@code FAIL <case> (N ms): timed out after N s (the case
 * deadline), see <log>} for a case that did not end within {@code -Dsluice.caseTimeoutSeconds},
 * default 60; its log then ends with the case thread's stack), then {@code N passed, N failed};
 * exits 0 only if all passed.
 */
public final class CasesRunner {
  /**
   * Most time one case may take (system property {@code sluice.caseTimeoutSeconds}): well above
   * the slowest case here (the soaks, some seconds on a loaded 2-core machine), well under the 5
   * minutes GrpcJavaInteropTest gives a whole run.
   */
  static final long DEFAULT_CASE_TIMEOUT_SECONDS = 60;

  private CasesRunner() {}

  public static void main(String[] args) throws Exception {
    Path logs = Path.of(args[0]);
    String suffix = args[1];
    String[] cases = args[2].split(",");
    String orcaServiceConfig = args[3];
    List<String> common = Arrays.asList(args).subList(4, args.length);
    long caseTimeoutSeconds = Long.getLong("sluice.caseTimeoutSeconds", DEFAULT_CASE_TIMEOUT_SECONDS);
    Files.createDirectories(logs);

    Class<?> client = Class.forName("io.grpc.testing.integration.TestServiceClient");
    Method parseArgs = accessible(client.getDeclaredMethod("parseArgs", String[].class));
    Method setUp = accessible(client.getDeclaredMethod("setUp"));
    Method run = accessible(client.getDeclaredMethod("run"));
    Method tearDown = accessible(client.getDeclaredMethod("tearDown"));
    Constructor<?> newClient = client.getDeclaredConstructor();

    // grpc-java's test balancer, which the ORCA cases select with their service config: main
    // registers one before its case, and the client's tearDown deregisters it.
    Constructor<?> newProvider =
        Class.forName("io.grpc.testing.integration.CustomBackendMetricsLoadBalancerProvider")
            .getDeclaredConstructor();
    newProvider.setAccessible(true);
    Field field = client.getDeclaredField("customBackendMetricsLoadBalancerProvider");
    field.setAccessible(true);

    // java.util.logging's console handler takes System.err when it is made: make it now, so that
    // grpc-java's log lines go to this JVM's stderr, not to the first case's log.
    java.util.logging.Logger.getLogger("").getHandlers();

    PrintStream out = System.out;
    PrintStream err = System.err;
    int passed = 0;
    int failed = 0;
    for (String c : cases) {
      List<String> argv = new ArrayList<>(common);
      argv.add("--test_case=" + c);
      if (c.startsWith("orca_")) {
        argv.add("--service_config_json=" + orcaServiceConfig);
      } else if (c.endsWith("_soak")) {
        // An iteration counts as failed past 1 s by default; the soak checks that the connection
        // keeps serving, not speed, on a loaded 2-core machine: 10 s per iteration.
        argv.add("--soak_per_iteration_max_acceptable_latency_ms=10000");
      }
      Path log = logs.resolve(c + suffix + ".log");
      long start = System.nanoTime();
      String verdict;
      PrintStream caseOut = new PrintStream(new FileOutputStream(log.toFile()), true, "UTF-8");
      System.setOut(caseOut);
      System.setErr(caseOut);
      // The case runs on its own thread, waited for until the case deadline: a case that hangs
      // fails with a message saying so and the next one goes on (its thread is left running, a
      // daemon, and its channel with it; the exit at the end stops them).
      CompletableFuture<String> outcome = new CompletableFuture<>();
      Thread runner =
          new Thread(
              () -> {
                try {
                  Object tester = newClient.newInstance();
                  parseArgs.invoke(tester, (Object) argv.toArray(new String[0]));
                  // As main does for its one case (and the case's tearDown undoes).
                  LoadBalancerRegistry registry = LoadBalancerRegistry.getDefaultRegistry();
                  Object left = field.get(null); // by a case that failed before its tearDown
                  if (left != null) {
                    registry.deregister((LoadBalancerProvider) left);
                  }
                  LoadBalancerProvider provider = (LoadBalancerProvider) newProvider.newInstance();
                  field.set(null, provider);
                  registry.register(provider);
                  setUp.invoke(tester);
                  try {
                    run.invoke(tester);
                  } finally {
                    tearDown.invoke(tester);
                  }
                  outcome.complete(null);
                } catch (InvocationTargetException e) {
                  e.getCause().printStackTrace(caseOut);
                  outcome.complete("see " + log);
                } catch (Exception | AssertionError e) {
                  e.printStackTrace(caseOut);
                  outcome.complete("see " + log);
                } catch (Throwable t) {
                  t.printStackTrace(caseOut);
                  outcome.complete("see " + log);
                }
              },
              "case-" + c);
      runner.setDaemon(true);
      runner.start();
      try {
        verdict = outcome.get(caseTimeoutSeconds, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        verdict = "timed out after " + caseTimeoutSeconds + " s (the case deadline), see " + log;
        caseOut.println("CasesRunner: " + verdict + "; the case's thread:");
        for (StackTraceElement frame : runner.getStackTrace()) {
          caseOut.println("\tat " + frame);
        }
        runner.interrupt();
      } finally {
        System.setOut(out);
        System.setErr(err);
      }
      caseOut.close(); // a hung case's later output is dropped
      long ms = (System.nanoTime() - start) / 1_000_000;
      if (verdict == null) {
        out.println("PASS " + c + " (" + ms + " ms)");
        passed++;
      } else {
        out.println("FAIL " + c + " (" + ms + " ms): " + verdict);
        failed++;
      }
      out.flush();
    }
    out.println(passed + " passed, " + failed + " failed");
    out.flush();
    System.exit(failed == 0 ? 0 : 1);
  }

  private static Method accessible(Method m) {
    m.setAccessible(true);
    return m;
  }
}
