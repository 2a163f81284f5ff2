package io.sluice.rpc.compiler;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorResponse;
import java.util.List;

/**
 * Emits the reactor flavor for one service: {@code Reactor<Service>} (interface with the SERVICE
 * and method-name constants and one {@code MethodDescriptor} per method), {@code
 * Reactor<Service>Client} (calls over any Sluice requester) and {@code Reactor<Service>Server}
 * (the dispatcher entry: a {@code BindableService} for a {@code ServiceRegistry}). Types are
 * written fully qualified, so generated code never clashes with user names.
 */
final class ReactorGenerator extends ServiceGenerator {
  private static final String MONO = "reactor.core.publisher.Mono";
  private static final String FLUX = "reactor.core.publisher.Flux";

  ReactorGenerator(
      FileDescriptorProto file,
      ServiceDescriptorProto service,
      List<Generator.Method> methods,
      PluginOptions options) {
    super(file, service, methods, options, "Reactor", "reactor");
  }

  @Override
  List<CodeGeneratorResponse.File> files() {
    return List.of(file(iface, iface()), file(client, client()), file(server, server()));
  }

  @Override
  String signature(Generator.Method m) {
    switch (m.kind) {
      case UNARY:
        return MONO + "<" + m.responseType + "> " + m.javaName + "(" + m.requestType + " request)";
      case SERVER_STREAMING:
        return FLUX + "<" + m.responseType + "> " + m.javaName + "(" + m.requestType + " request)";
      case CLIENT_STREAMING:
        return MONO + "<" + m.responseType + "> " + m.javaName + "(" + FLUX + "<" + m.requestType + "> requests)";
      case BIDI_STREAMING:
        return FLUX + "<" + m.responseType + "> " + m.javaName + "(" + FLUX + "<" + m.requestType + "> requests)";
      default:
        return MONO + "<java.lang.Void> " + m.javaName + "(" + m.requestType + " request)";
    }
  }

  @Override
  String description() {
    return "project-reactor";
  }

  @Override
  void clientDoc(StringBuilder b) {
    b.append(" * Calls {@code ").append(fullServiceName).append("} over a Sluice connection. Thread-safe; every\n");
    b.append(" * returned publisher is cold and starts a new call per subscription. Failed calls signal\n");
    b.append(" * {@link io.sluice.rpc.StatusException}.\n");
  }

  @Override
  void moreClientConstructors(StringBuilder b) {
    b.append("  /** A client over a reactor requester. */\n");
    b.append("  public ").append(client).append("(io.sluice.reactor.ReactorRequester requester) {\n");
    b.append("    this(requester, ").append(RPC).append("CallOptions.DEFAULT);\n");
    b.append("  }\n\n");
  }

  @Override
  String clientCalls() {
    return "io.sluice.rpc.reactor.ReactorClientCalls";
  }

  @Override
  String serverCalls() {
    return "io.sluice.rpc.reactor.ReactorServerCalls";
  }
}
