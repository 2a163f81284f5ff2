package io.sluice.grpc.interop;

import io.grpc.testing.integration.GrpcTestServiceClient;
import io.grpc.testing.integration.GrpcUnimplementedServiceClient;
import io.sluice.Requester;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * grpc-java's interop client cases, re-implemented with Sluice's generated gRPC-flavor client stubs
 * over any {@link Requester}: RSocket today, the gRPC client transport once it exists. Each case
 * sends what grpc-java's sends and checks what it checks (see the case classes for the few it
 * cannot check yet). Cases run one at a time, on the calling thread.
 *
 * <p>Not covered: the client_compressed_* cases (Sluice's client stubs cannot compress a request;
 * {@code setMessageCompression} is a no-op), and the cases needing credentials, load balancing,
 * ORCA or soak control.
 */
public final class InteropClient {
  /** A case: returns when its checks hold, throws {@link CaseFailure} otherwise. */
  @FunctionalInterface
  interface Case {
    void run() throws CaseFailure, InterruptedException;
  }

  /** The outcome of one case: {@code failure} is null when it passed. */
  public record Result(String name, String failure) {
    public boolean passed() {
      return failure == null;
    }

    /** {@code PASS <case>} or {@code FAIL <case>: <reason>}. */
    public String line() {
      return passed() ? "PASS " + name : "FAIL " + name + ": " + failure;
    }
  }

  /** Every case, in the order they run by default (grpc-java's names). */
  public static final List<String> CASES =
      List.of(
          "empty_unary", "large_unary", "client_streaming", "server_streaming", "ping_pong",
          "empty_stream", "custom_metadata", "status_code_and_message", "special_status_message",
          "unimplemented_method", "unimplemented_service", "cancel_after_begin",
          "cancel_after_first_response", "timeout_on_sleeping_server", "very_large_request",
          "server_compressed_unary", "server_compressed_streaming");

  private final Map<String, Case> cases;

  /**
   * Cases over {@code requester}; {@code wait} bounds each wait of a case (a hang guard, as
   * grpc-java's operation timeout).
   */
  public InteropClient(Requester requester, Duration wait) {
    Objects.requireNonNull(requester, "requester");
    Objects.requireNonNull(wait, "wait");
    GrpcTestServiceClient stub = new GrpcTestServiceClient(requester);
    UnaryCases unary = new UnaryCases(stub, wait);
    StreamingCases streaming = new StreamingCases(stub, wait);
    CallEndCases ends = new CallEndCases(stub, new GrpcUnimplementedServiceClient(requester), wait);
    MetadataCase metadata = new MetadataCase(stub, wait);
    Map<String, Case> m = new LinkedHashMap<>();
    m.put("empty_unary", unary::emptyUnary);
    m.put("large_unary", unary::largeUnary);
    m.put("client_streaming", streaming::clientStreaming);
    m.put("server_streaming", streaming::serverStreaming);
    m.put("ping_pong", streaming::pingPong);
    m.put("empty_stream", streaming::emptyStream);
    m.put("custom_metadata", metadata::customMetadata);
    m.put("status_code_and_message", ends::statusCodeAndMessage);
    m.put("special_status_message", ends::specialStatusMessage);
    m.put("unimplemented_method", ends::unimplementedMethod);
    m.put("unimplemented_service", ends::unimplementedService);
    m.put("cancel_after_begin", ends::cancelAfterBegin);
    m.put("cancel_after_first_response", ends::cancelAfterFirstResponse);
    m.put("timeout_on_sleeping_server", ends::timeoutOnSleepingServer);
    m.put("very_large_request", unary::veryLargeRequest);
    m.put("server_compressed_unary", unary::serverCompressedUnary);
    m.put("server_compressed_streaming", unary::serverCompressedStreaming);
    cases = Collections.unmodifiableMap(m);
    if (!List.copyOf(m.keySet()).equals(CASES)) {
      throw new IllegalStateException("CASES and the cases built differ: " + m.keySet());
    }
  }

  /**
   * The cases a comma-separated list names, in its order.
   *
   * @throws IllegalArgumentException naming the first unknown case and listing the known ones
   */
  public static List<String> select(String csv) {
    List<String> out = new ArrayList<>();
    for (String name : csv.split(",", -1)) {
      String n = name.strip();
      if (!CASES.contains(n)) {
        throw new IllegalArgumentException(
            "unknown test case '" + n + "'; known: " + String.join(",", CASES));
      }
      out.add(n);
    }
    return out;
  }

  /** Runs one case. */
  public Result run(String name) throws InterruptedException {
    Case c = cases.get(name);
    if (c == null) {
      throw new IllegalArgumentException("unknown test case '" + name + "'");
    }
    try {
      c.run();
      return new Result(name, null);
    } catch (CaseFailure e) {
      return new Result(name, oneLine(e.getMessage()));
    } catch (RuntimeException e) {
      return new Result(name, oneLine("unexpected " + e));
    }
  }

  /**
   * Runs {@code names} in order, printing one {@link Result#line()} each, then {@code N passed, N
   * failed}; returns the number that failed.
   */
  public int runAll(List<String> names, PrintStream out) throws InterruptedException {
    int passed = 0;
    int failed = 0;
    for (String name : names) {
      Result r = run(name);
      out.println(r.line());
      out.flush();
      if (r.passed()) {
        passed++;
      } else {
        failed++;
      }
    }
    out.println(passed + " passed, " + failed + " failed");
    return failed;
  }

  /** A reason on one line: line breaks (which special_status_message's text has) escaped. */
  private static String oneLine(String s) {
    return String.valueOf(s).replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t");
  }
}
