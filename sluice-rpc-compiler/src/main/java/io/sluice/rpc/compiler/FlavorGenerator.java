package io.sluice.rpc.compiler;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * Emits the non-reactor flavors for one service: {@code <Prefix><Service>} (interface with the
 * SERVICE and method-name constants, one {@code MethodDescriptor} per method and the flavor's method
 * signatures), {@code <Prefix><Service>Client} (calls over any Sluice requester) and {@code
 * <Prefix><Service>Server} (a {@code BindableService} over an implementation). The gRPC flavor adds
 * {@code Grpc<Service>ImplBase}, an abstract class in grpc-java's style whose methods fail with
 * UNIMPLEMENTED until overridden. The generated code calls the flavor's glue module ({@code
 * io.sluice.rpc.<flavor>}), which maps the flavor's types onto the neutral call model.
 */
final class FlavorGenerator extends ServiceGenerator {

  /** A non-reactor flavor: its class-name prefix, glue package and description. */
  enum Flavor {
    FUTURES("futures", "Futures", "io.sluice.rpc.futures", "CompletableFuture / java.util.concurrent.Flow"),
    GRPC("grpc", "Grpc", "io.sluice.rpc.grpcstub", "gRPC StreamObserver"),
    RXJAVA("rxjava", "Rx", "io.sluice.rpc.rxjava", "RxJava 3"),
    MUTINY("mutiny", "Mutiny", "io.sluice.rpc.mutiny", "Mutiny"),
    BLOCKING("blocking", "Blocking", "io.sluice.rpc.blocking", "blocking calls on virtual threads");

    final String option;
    final String prefix;
    final String glue;
    final String description;

    Flavor(String option, String prefix, String glue, String description) {
      this.option = option;
      this.prefix = prefix;
      this.glue = glue;
      this.description = description;
    }

    static Flavor of(String option) {
      for (Flavor f : values()) {
        if (f.option.equals(option)) {
          return f;
        }
      }
      throw new IllegalArgumentException("unknown flavor " + option);
    }
  }

  private final Flavor flavor;
  private final String implBase;

  FlavorGenerator(
      Flavor flavor,
      FileDescriptorProto file,
      ServiceDescriptorProto service,
      List<Generator.Method> methods,
      PluginOptions options) {
    super(file, service, methods, options, flavor.prefix, flavor.option);
    this.flavor = flavor;
    this.implBase = iface + "ImplBase";
  }

  @Override
  List<CodeGeneratorResponse.File> files() {
    List<CodeGeneratorResponse.File> out = new ArrayList<>();
    out.add(file(iface, iface()));
    out.add(file(client, client()));
    out.add(file(server, server()));
    if (flavor == Flavor.GRPC) {
      out.add(file(implBase, implBase()));
    }
    return out;
  }

  /** The flavor's type of one response (single) or of a stream of {@code t} (many). */
  private String one(String t) {
    switch (flavor) {
      case FUTURES:
        return "java.util.concurrent.CompletableFuture<" + t + ">";
      case RXJAVA:
        return "io.reactivex.rxjava3.core.Single<" + t + ">";
      case MUTINY:
        return "io.smallrye.mutiny.Uni<" + t + ">";
      default:
        return t;
    }
  }

  private String many(String t) {
    switch (flavor) {
      case FUTURES:
        return "java.util.concurrent.Flow.Publisher<" + t + ">";
      case RXJAVA:
        return "io.reactivex.rxjava3.core.Flowable<" + t + ">";
      case MUTINY:
        return "io.smallrye.mutiny.Multi<" + t + ">";
      default:
        return "java.util.stream.Stream<" + t + ">";
    }
  }

  private String done() {
    switch (flavor) {
      case FUTURES:
        return "java.util.concurrent.CompletableFuture<java.lang.Void>";
      case RXJAVA:
        return "io.reactivex.rxjava3.core.Completable";
      case MUTINY:
        return "io.smallrye.mutiny.Uni<java.lang.Void>";
      default:
        return "void";
    }
  }

  private static String observer(String t) {
    return "io.grpc.stub.StreamObserver<" + t + ">";
  }

  @Override
  String signature(Generator.Method m) {
    if (flavor == Flavor.GRPC) {
      if (streamingRequests(m)) {
        return observer(m.requestType) + " " + m.javaName + "(" + observer(m.responseType) + " responses)";
      }
      return "void " + m.javaName + "(" + m.requestType + " request, " + observer(m.responseType) + " responses)";
    }
    String arg = streamingRequests(m) ? many(m.requestType) + " requests" : m.requestType + " request";
    String result;
    if (m.kind == Generator.Method.Kind.FIRE_AND_FORGET) {
      result = done();
    } else {
      result = streamingResponses(m) ? many(m.responseType) : one(m.responseType);
    }
    return result + " " + m.javaName + "(" + arg + ")";
  }

  @Override
  String description() {
    return flavor.description;
  }

  @Override
  String ifaceNote() {
    return flavor == Flavor.GRPC ? " Methods not overridden fail with UNIMPLEMENTED." : "";
  }

  @Override
  void ifaceMethod(StringBuilder b, Generator.Method m) {
    if (flavor == Flavor.GRPC) {
      b.append("  default ").append(signature(m)).append(" {\n");
      b.append("    ").append(streamingRequests(m) ? "return " : "")
          .append("io.sluice.rpc.grpcstub.GrpcServerCalls.unimplemented(")
          .append(m.constant).append(", responses);\n");
      b.append("  }\n");
    } else {
      super.ifaceMethod(b, m);
    }
  }

  @Override
  void clientDoc(StringBuilder b) {
    b.append(" * Calls {@code ").append(fullServiceName).append("} over a Sluice connection. Thread-safe; each\n");
    if (flavor == Flavor.GRPC) {
      b.append(" * method call starts a new call. Failed calls end with {@code onError} and an\n");
      b.append(" * {@link io.grpc.StatusRuntimeException} (its cause is the Sluice status).\n");
    } else if (flavor == Flavor.BLOCKING) {
      b.append(" * method call is a new call that blocks the calling (virtual) thread. Failed calls throw\n");
    } else {
      b.append(" * returned future or publisher is a new call. Failed calls signal\n");
    }
    if (flavor != Flavor.GRPC) {
      b.append(" * {@link io.sluice.rpc.StatusException}.\n");
    }
  }

  @Override
  String clientCalls() {
    return flavor.glue + "." + flavor.prefix + "ClientCalls";
  }

  @Override
  String clientArgs(Generator.Method m) {
    if (flavor == Flavor.GRPC) {
      return streamingRequests(m) ? "responses" : "request, responses";
    }
    return super.clientArgs(m);
  }

  @Override
  boolean clientReturnsVoid(Generator.Method m) {
    return flavor == Flavor.GRPC && !streamingRequests(m)
        || flavor == Flavor.BLOCKING && m.kind == Generator.Method.Kind.FIRE_AND_FORGET;
  }

  @Override
  String serverCalls() {
    return flavor.glue + "." + flavor.prefix + "ServerCalls";
  }

  private String implBase() {
    StringBuilder b = header();
    String ifaceRef = qualified(iface);
    b.append("/**\n");
    b.append(" * Base class for a {@code ").append(fullServiceName)
        .append("} implementation in grpc-java's style: override the\n");
    b.append(" * methods you serve (the others fail with UNIMPLEMENTED) and add the instance to an\n");
    b.append(" * {@link io.sluice.rpc.ServiceRegistry}.\n");
    b.append(" */\n");
    annotation(b);
    b.append("public abstract class ").append(implBase).append(" implements ").append(ifaceRef).append(", ")
        .append(RPC).append("BindableService {\n");
    b.append("  @java.lang.Override\n");
    b.append("  public final ").append(RPC).append("ServiceDefinition bindService() {\n");
    b.append("    return new ").append(qualified(server)).append("(this).bindService();\n");
    b.append("  }\n");
    b.append("}\n");
    return b.toString();
  }
}
