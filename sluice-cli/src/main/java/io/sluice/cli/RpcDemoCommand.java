package io.sluice.cli;

import io.sluice.examples.rpc.RpcDemo;
import java.io.PrintStream;

/** {@code sluice demo --rpc}: runs the Greeter RPC example from sluice-examples. */
final class RpcDemoCommand {
  private RpcDemoCommand() {}

  static int run(int seconds, PrintStream out) throws InterruptedException {
    try {
      // Traced when the OpenTelemetry variables ask (CliTracing), as grpc-test-server/-client are.
      return RpcDemo.run(seconds, out, CliTracing::serve, CliTracing::call).failure() == null ? 0 : 1;
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      out.println("sluice demo --rpc failed: " + e);
      return 1;
    }
  }
}
