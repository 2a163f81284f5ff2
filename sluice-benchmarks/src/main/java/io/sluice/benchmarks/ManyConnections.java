package io.sluice.benchmarks;

import io.sluice.benchmarks.many.ManyChildren;
import io.sluice.benchmarks.many.ManyOptions;
import io.sluice.benchmarks.many.ManyResult;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ./sluice bench --connections C [--concurrency N --response-size B]} (issue 24 item 6):
 * request-response over C connections with N calls in flight in all, answers of B bytes, for Sluice
 * raw, Sluice RPC and grpc-java, each a server JVM (CPU 0) and a client JVM (CPU 1) of {@link
 * ManyChildren}; one {@code RESULT many-connections} line per impl and shape, then a table of
 * Sluice's ratios to grpc-java. Children are stopped by their own process handles.
 */
final class ManyConnections {
  private ManyConnections() {}

  static int run(Orchestrator o, ManyOptions opts, PrintStream out) throws Exception {
    out.println("# many connections: " + opts.connections() + " connections, request-response,"
        + " requests of " + ManyOptions.REQUEST_SIZE + " B, closed loop; impls " + ManyOptions.IMPLS);
    List<List<ManyResult>> rows = new ArrayList<>();
    for (ManyOptions.Shape shape : opts.shapes()) {
      List<ManyResult> row = new ArrayList<>();
      for (String impl : ManyOptions.IMPLS) {
        out.println("## " + impl + " connections=" + opts.connections() + " concurrency="
            + shape.concurrency() + " response_size=" + shape.responseSize());
        out.flush();
        ManyResult r = runOne(o, impl, opts, shape, out);
        out.println(r.line());
        out.flush();
        row.add(r);
      }
      rows.add(row);
    }
    out.println();
    ManyResult.table(rows).forEach(out::println);
    out.println();
    out.println("QPS: calls that ended with an answer of the asked size, per second of the measured"
        + " seconds; p50/p99/p99.9: each call's time from its start to its answer, taken by the"
        + " client (HdrHistogram, 3 digits) over the same seconds. A QPS ratio above 1 and a p99"
        + " ratio below 1 are Sluice ahead of grpc-java. server_cpu_us_per_call: the server JVM's"
        + " process CPU time over those seconds per call.");
    return 0;
  }

  private static ManyResult runOne(
      Orchestrator o, String impl, ManyOptions opts, ManyOptions.Shape shape, PrintStream out)
      throws IOException, InterruptedException {
    Child server = null;
    Child client = null;
    try {
      server = Child.start(o.command(impl, 0, true, "many-server", "--impl", impl,
          "--size", String.valueOf(shape.responseSize())));
      int port = server.listening();
      client = Child.start(o.command(impl, 1, false, "many-client", "--impl", impl,
          "--port", String.valueOf(port), "--connections", String.valueOf(opts.connections()),
          "--concurrency", String.valueOf(shape.concurrency()),
          "--response-size", String.valueOf(shape.responseSize()),
          "--warmup", String.valueOf(opts.warmup()), "--seconds", String.valueOf(opts.seconds())));
      // The client prints a line every second (Child.line() gives up after 60 s of silence) and
      // ends after warm-up + seconds: the loop ends.
      while (true) {
        String line = client.line();
        if (line.equals("MEASURING")) {
          server.send("MARK");
        } else if (line.startsWith("MANY ")) {
          server.send("REPORT");
          long serverCpu = server.alloc()[1];
          return ManyResult.parse(impl, opts.connections(), shape, line, serverCpu);
        } else {
          out.println(line);
          out.flush();
        }
      }
    } finally {
      if (client != null) {
        client.stop();
      }
      if (server != null) {
        server.stop();
      }
    }
  }
}
