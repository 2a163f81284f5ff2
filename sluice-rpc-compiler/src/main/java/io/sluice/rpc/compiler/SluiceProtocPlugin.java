package io.sluice.rpc.compiler;

import com.google.protobuf.compiler.PluginProtos.CodeGeneratorRequest;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * {@code protoc-gen-sluice}: the protoc plugin entry point. Reads a {@code CodeGeneratorRequest}
 * from stdin and writes a {@code CodeGeneratorResponse} to stdout. Problems in the input (bad
 * {@code --sluice_opt}, an unsupported method option) go back to protoc as the response's error,
 * which protoc prints and fails on.
 *
 * <pre>
 * protoc --plugin=protoc-gen-sluice=path/to/protoc-gen-sluice --sluice_out=out --sluice_opt=flavor=reactor x.proto
 * </pre>
 *
 * <p><b>Threads.</b> Runs in the plugin process that protoc starts, on its one main thread, once
 * per invocation. Holds no buffers: the request and response are protobuf messages read from and
 * written to the process's streams.
 */
public final class SluiceProtocPlugin {
  private SluiceProtocPlugin() {}

  public static void main(String[] args) throws IOException {
    if (args.length > 0) {
      System.err.println(
          "protoc-gen-sluice is a protoc plugin: run it through protoc with --sluice_out (options: "
              + PluginOptions.HELP + ")");
      System.exit(args[0].equals("--help") ? 0 : 2);
    }
    CodeGeneratorRequest request = read(System.in);
    CodeGeneratorResponse response = Generator.generate(request);
    OutputStream out = System.out;
    response.writeTo(out);
    out.flush();
  }

  private static CodeGeneratorRequest read(InputStream in) throws IOException {
    return CodeGeneratorRequest.parseFrom(in.readAllBytes());
  }
}
