package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.examples.rpc.GreeterService;
import io.sluice.examples.rpc.ReactorGreeterServer;
import io.sluice.grpc.interop.InteropGrpc;
import io.sluice.grpc.interop.InteropRsocket;
import io.sluice.grpc.interop.InteropServices;
import io.sluice.grpc.interop.TestServiceImpl;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.rsocket.RpcResponder;
import io.sluice.test.ClosedPort;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.grpc.GrpcServer;
import io.sluice.transport.netty.TcpServerTransport;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code ./sluice call} as a user runs it: list, describe and the four kinds of call against the
 * grpc-test-server's services (TestService with health and reflection, in this JVM) over gRPC and
 * over RSocket; against a stock grpc-java server with grpc-java's reflection service (v1alpha);
 * against a Greeter server without reflection through {@code --proto}; statuses on stderr with
 * exit code 1; bad input said clearly.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CallCommandTest {
  private static final Path GREETER_PROTO =
      Path.of("..", "sluice-examples", "src", "main", "proto", "sluice", "examples", "greeter.proto");

  private static TestServiceImpl interop;
  private static GrpcServer.Running interopGrpc;
  private static ServerTransport.Bound interopRsocket;
  private static GreeterService greeter;
  private static GrpcServer.Running greeterGrpc;
  private static ServerTransport.Bound greeterRsocket;
  private static GrpcJavaReflectionServer grpcJava;

  @BeforeAll
  static void startServers() throws Exception {
    interop = new TestServiceImpl("sluice-call-test");
    ServiceRegistry registry = InteropServices.registry(interop);
    interopGrpc = InteropGrpc.serve("127.0.0.1", 0, registry);
    interopRsocket = InteropRsocket.serve("127.0.0.1", 0, registry);
    greeter = new GreeterService();
    // No reflection here: --proto tells the command what the server has.
    ServiceRegistry greeterRegistry = ServiceRegistry.builder().add(new ReactorGreeterServer(greeter)).build();
    greeterGrpc = GrpcServer.create("127.0.0.1", 0).withServices(greeterRegistry).start();
    greeterRsocket =
        Connections.serve(
                TcpServerTransport.create("127.0.0.1", 0),
                ConnectionOptions.defaults(),
                RpcResponder.acceptor(greeterRegistry))
            .get(30, TimeUnit.SECONDS);
    grpcJava = new GrpcJavaReflectionServer();
  }

  @AfterAll
  static void stopServers() throws Exception {
    if (grpcJava != null) {
      grpcJava.close();
    }
    for (GrpcServer.Running s : new GrpcServer.Running[] {interopGrpc, greeterGrpc}) {
      if (s != null) {
        s.stop(java.time.Duration.ZERO).get(30, TimeUnit.SECONDS);
      }
    }
    for (ServerTransport.Bound b : new ServerTransport.Bound[] {interopRsocket, greeterRsocket}) {
      if (b != null) {
        b.close();
        b.onClose().get(30, TimeUnit.SECONDS);
      }
    }
    if (interop != null) {
      interop.close();
    }
  }

  private record Run(int exit, String out, String err) {
    List<String> lines() {
      return out.isEmpty() ? List.of() : List.of(out.split("\n"));
    }
  }

  private static Run withStdin(String stdin, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<String> argv = new ArrayList<>();
    argv.add("call");
    argv.addAll(List.of(args));
    int exit =
        Main.run(
            argv.toArray(String[]::new),
            new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private static Run call(String... args) {
    return withStdin("", args);
  }

  private static String interop(String wire) {
    return "127.0.0.1:" + (wire.equals("grpc") ? interopGrpc.port() : port(interopRsocket));
  }

  private static int port(ServerTransport.Bound b) {
    return ((InetSocketAddress) b.address()).getPort();
  }

  @ParameterizedTest
  @ValueSource(strings = {"grpc", "rsocket"})
  void listNamesEveryServiceOneALine(String wire) {
    Run r = call("--wire", wire, interop(wire), "list");
    assertThat(r.exit).as(r.err).isZero();
    assertThat(r.lines())
        .containsExactly(
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection",
            "grpc.testing.TestService",
            "xds.service.orca.v3.OpenRcaService");
  }

  @ParameterizedTest
  @ValueSource(strings = {"grpc", "rsocket"})
  void listWithAServiceNamesItsMethods(String wire) {
    Run r = call("--wire", wire, interop(wire), "list", "grpc.testing.TestService");
    assertThat(r.exit).as(r.err).isZero();
    assertThat(r.lines())
        .containsExactly(
            "grpc.testing.TestService.EmptyCall",
            "grpc.testing.TestService.UnaryCall",
            "grpc.testing.TestService.CacheableUnaryCall",
            "grpc.testing.TestService.StreamingOutputCall",
            "grpc.testing.TestService.StreamingInputCall",
            "grpc.testing.TestService.FullDuplexCall",
            "grpc.testing.TestService.HalfDuplexCall",
            "grpc.testing.TestService.UnimplementedCall");
  }

  @Test
  void describeShowsServicesMethodsAndMessagesAsProtoSource() {
    Run service = call(interop("grpc"), "describe", "grpc.testing.TestService");
    assertThat(service.exit).as(service.err).isZero();
    assertThat(service.out)
        .startsWith("grpc.testing.TestService is a service:\nservice TestService {\n")
        .contains("  rpc UnaryCall ( .grpc.testing.SimpleRequest ) returns ( .grpc.testing.SimpleResponse );\n")
        .contains(
            "  rpc FullDuplexCall ( stream .grpc.testing.StreamingOutputCallRequest )"
                + " returns ( stream .grpc.testing.StreamingOutputCallResponse );\n");

    Run method = call(interop("grpc"), "describe", "grpc.testing.TestService.StreamingOutputCall");
    assertThat(method.out.strip())
        .isEqualTo(
            "grpc.testing.TestService.StreamingOutputCall is a method:\n"
                + "rpc StreamingOutputCall ( .grpc.testing.StreamingOutputCallRequest )"
                + " returns ( stream .grpc.testing.StreamingOutputCallResponse );");

    Run message = call("--wire", "rsocket", interop("rsocket"), "describe", ".grpc.testing.Payload");
    assertThat(message.exit).as(message.err).isZero();
    assertThat(message.out.strip())
        .isEqualTo(
            "grpc.testing.Payload is a message:\n"
                + "message Payload {\n"
                + "  .grpc.testing.PayloadType type = 1;\n"
                + "  bytes body = 2;\n"
                + "}");

    Run enumType = call(interop("grpc"), "describe", "grpc.testing.PayloadType");
    assertThat(enumType.out).startsWith("grpc.testing.PayloadType is an enum:\nenum PayloadType {\n  COMPRESSABLE = 0;");
  }

  @ParameterizedTest
  @ValueSource(strings = {"grpc", "rsocket"})
  void unaryAnswersAsJson(String wire) {
    Run r = call("--wire", wire, "-d", "{\"responseSize\": 3, \"fillServerId\": true}", interop(wire),
        "grpc.testing.TestService/UnaryCall");
    assertThat(r.exit).as(r.err).isZero();
    assertThat(r.lines()).containsExactly("{\"payload\":{\"body\":\"AAAA\"},\"serverId\":\"sluice-call-test\"}");
    assertThat(r.err).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"grpc", "rsocket"})
  void serverStreamPrintsOneObjectALine(String wire) {
    Run r = call("--wire", wire,
        "-d", "{\"responseParameters\": [{\"size\": 1}, {\"size\": 2}, {\"size\": 3}]}",
        interop(wire), "grpc.testing.TestService.StreamingOutputCall");
    assertThat(r.exit).as(r.err).isZero();
    assertThat(r.lines())
        .containsExactly(
            "{\"payload\":{\"body\":\"AA==\"}}", "{\"payload\":{\"body\":\"AAA=\"}}", "{\"payload\":{\"body\":\"AAAA\"}}");
  }

  @ParameterizedTest
  @ValueSource(strings = {"grpc", "rsocket"})
  void clientStreamReadsNdjsonFromStdin(String wire) {
    String ndjson = "{\"payload\": {\"body\": \"AAAA\"}}\n{\"payload\": {\"body\": \"AAAAAA==\"}}\n\n";
    Run r = withStdin(ndjson, "--wire", wire, "-d", "@", interop(wire), "grpc.testing.TestService/StreamingInputCall");
    assertThat(r.exit).as(r.err).isZero();
    assertThat(r.lines()).containsExactly("{\"aggregatedPayloadSize\":7}");
  }

  @ParameterizedTest
  @ValueSource(strings = {"grpc", "rsocket"})
  void bidiAnswersEachRequest(String wire) {
    String ndjson =
        "{\"responseParameters\": [{\"size\": 1}]}\n{\"responseParameters\": [{\"size\": 2}, {\"size\": 3}]}\n";
    Run r = withStdin(ndjson, "--wire", wire, "-d", "@", interop(wire), "grpc.testing.TestService/FullDuplexCall");
    assertThat(r.exit).as(r.err).isZero();
    assertThat(r.lines())
        .containsExactly(
            "{\"payload\":{\"body\":\"AA==\"}}", "{\"payload\":{\"body\":\"AAA=\"}}", "{\"payload\":{\"body\":\"AAAA\"}}");
  }

  @ParameterizedTest
  @ValueSource(strings = {"grpc", "rsocket"})
  void aNonOkStatusGoesToStderrWithExitCode1(String wire) {
    Run r = call("--wire", wire, "-d", "{\"responseStatus\": {\"code\": 7, \"message\": \"not you\"}}",
        interop(wire), "grpc.testing.TestService/UnaryCall");
    assertThat(r.exit).isEqualTo(1);
    assertThat(r.out).isEmpty();
    assertThat(r.err.strip()).isEqualTo("ERROR PERMISSION_DENIED: not you");

    Run unimplemented = call("--wire", wire, interop(wire), "grpc.testing.TestService/UnimplementedCall");
    assertThat(unimplemented.exit).isEqualTo(1);
    assertThat(unimplemented.err).startsWith("ERROR UNIMPLEMENTED: ");
  }

  @ParameterizedTest
  @ValueSource(strings = {"grpc", "rsocket"})
  void theDeadlineEndsASlowCall(String wire) {
    // The first answer would come after 20 s: the deadline of 300 ms ends the call first.
    Run r = call("--wire", wire, "--deadline", "300ms",
        "-d", "{\"responseParameters\": [{\"size\": 1, \"intervalUs\": 20000000}]}",
        interop(wire), "grpc.testing.TestService/StreamingOutputCall");
    assertThat(r.exit).isEqualTo(1);
    assertThat(r.out).isEmpty();
    assertThat(r.err).startsWith("ERROR DEADLINE_EXCEEDED: ");
  }

  @Test
  void grpcJavasReflectionV1alphaIsUsedWhenV1IsMissing() {
    String address = "127.0.0.1:" + grpcJava.port();
    Run list = call(address, "list");
    assertThat(list.exit).as(list.err).isZero();
    assertThat(list.lines()).containsExactly("grpc.reflection.v1alpha.ServerReflection", "grpc.testing.TestService");

    Run describe = call(address, "describe", "grpc.testing.SimpleResponse");
    assertThat(describe.exit).as(describe.err).isZero();
    assertThat(describe.out).contains("  .grpc.testing.Payload payload = 1;\n  string username = 2;\n");

    Run unary = call("-d", "{\"responseSize\": 2}", address, "grpc.testing.TestService/UnaryCall");
    assertThat(unary.exit).as(unary.err).isZero();
    assertThat(unary.lines()).containsExactly("{\"payload\":{\"body\":\"AAA=\"},\"username\":\"grpc-java\"}");

    Run stream = call("-d", "{\"responseParameters\": [{\"size\": 1}, {\"size\": 1}]}", address,
        "grpc.testing.TestService/StreamingOutputCall");
    assertThat(stream.lines()).containsExactly("{\"payload\":{\"body\":\"AA==\"}}", "{\"payload\":{\"body\":\"AA==\"}}");

    Run error = call("-d", "{\"responseStatus\": {\"code\": 5, \"message\": \"no such thing\"}}", address,
        "grpc.testing.TestService/UnaryCall");
    assertThat(error.exit).isEqualTo(1);
    assertThat(error.err.strip()).isEqualTo("ERROR NOT_FOUND: no such thing");
  }

  @ParameterizedTest
  @ValueSource(strings = {"grpc", "rsocket"})
  void withoutReflectionTheProtoFileTellsTheMethods(String wire) {
    String address = "127.0.0.1:" + (wire.equals("grpc") ? greeterGrpc.port() : port(greeterRsocket));
    Run noReflection = call("--wire", wire, address, "list");
    assertThat(noReflection.exit).isEqualTo(1);
    assertThat(noReflection.err).contains("sluice call: the server has no reflection service").contains("--proto");

    String proto = GREETER_PROTO.toString();
    Run list = call("--wire", wire, "--proto", proto, address, "list", "sluice.examples.Greeter");
    assertThat(list.exit).as(list.err).isZero();
    assertThat(list.lines())
        .containsExactly(
            "sluice.examples.Greeter.SayHello", "sluice.examples.Greeter.StreamGreetings",
            "sluice.examples.Greeter.CollectNames", "sluice.examples.Greeter.Chat", "sluice.examples.Greeter.Notify");

    Run hello = call("--wire", wire, "--proto", proto, "-H", "lang: fr", "-d", "{\"name\": \"ada\"}", address,
        "sluice.examples.Greeter/SayHello");
    assertThat(hello.exit).as(hello.err).isZero();
    assertThat(hello.lines()).containsExactly("{\"message\":\"bonjour ada\"}");

    Run collect = withStdin("{\"name\": \"a\"} {\"name\": \"b\"}", "--wire", wire, "--proto", proto, "-d", "@", address,
        "sluice.examples.Greeter/CollectNames");
    assertThat(collect.lines()).containsExactly("{\"message\":\"hello a, b\",\"index\":\"2\"}");

    // Fire-and-forget (its (sluice.method) option read from the file): over RSocket no answer,
    // exit 0; gRPC has no fire-and-forget, so the call goes as unary and the server's refusal shows.
    long before = greeter.notifications.get();
    Run notify = call("--wire", wire, "--proto", proto, "-d", "{\"name\": \"x\"}", address,
        "sluice.examples.Greeter/Notify");
    if (wire.equals("rsocket")) {
      assertThat(notify.exit).as(notify.err).isZero();
      assertThat(notify.out).isEmpty();
      assertThat(waitFor(() -> greeter.notifications.get() > before)).isTrue();
    } else {
      assertThat(notify.exit).isEqualTo(1);
      assertThat(notify.err.strip())
          .isEqualTo("ERROR UNIMPLEMENTED: sluice.examples.Greeter/Notify is fire-and-forget, which gRPC does not call");
    }
  }

  private static boolean waitFor(java.util.function.BooleanSupplier condition) {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < end) {
      if (condition.getAsBoolean()) {
        return true;
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return condition.getAsBoolean();
  }

  @Test
  void aDescriptorSetWorksAsProto(@TempDir Path dir) throws Exception {
    Path set = dir.resolve("greeter.protoset");
    Process protoc =
        new ProcessBuilder(
                CallProtoFiles.protoc(dir).toString(), "--include_imports", "--descriptor_set_out=" + set,
                "-I" + GREETER_PROTO.getParent().getParent().getParent(),
                "-I" + Path.of("..", "sluice-rpc", "src", "main", "resources"),
                "-I" + extractedWellKnownTypes(dir),
                GREETER_PROTO.toString())
            .redirectErrorStream(true)
            .start();
    String log = new String(protoc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(protoc.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(protoc.exitValue()).as(log).isZero();
    Run r = call("--proto", set.toString(), "-d", "{\"name\": \"set\", \"count\": 2}",
        "127.0.0.1:" + greeterGrpc.port(), "sluice.examples.Greeter/StreamGreetings");
    assertThat(r.exit).as(r.err).isZero();
    assertThat(r.lines()).containsExactly("{\"message\":\"hello set\"}", "{\"message\":\"hello set\",\"index\":\"1\"}");
  }

  private static Path extractedWellKnownTypes(Path dir) throws Exception {
    Path include = dir.resolve("wkt");
    for (String name : List.of("google/protobuf/empty.proto", "google/protobuf/descriptor.proto")) {
      Path file = include.resolve(name);
      Files.createDirectories(file.getParent());
      try (var in = CallCommandTest.class.getClassLoader().getResourceAsStream(name)) {
        Files.copy(in, file);
      }
    }
    return include;
  }

  @Test
  void badInputIsSaidClearly() {
    String address = interop("grpc");
    Run unknownMethod = call(address, "grpc.testing.TestService/Nope");
    assertThat(unknownMethod.exit).isEqualTo(1);
    assertThat(unknownMethod.err.strip())
        .isEqualTo(
            "sluice call: service grpc.testing.TestService has no method Nope (it has EmptyCall, UnaryCall,"
                + " CacheableUnaryCall, StreamingOutputCall, StreamingInputCall, FullDuplexCall, HalfDuplexCall,"
                + " UnimplementedCall)");

    Run unknownService = call(address, "grpc.testing.Nothing/Call");
    assertThat(unknownService.exit).isEqualTo(1);
    assertThat(unknownService.err).startsWith("sluice call: unknown service grpc.testing.Nothing");

    Run invalidJson = call("-d", "{\"responseSize\": ", address, "grpc.testing.TestService/UnaryCall");
    assertThat(invalidJson.exit).isEqualTo(1);
    assertThat(invalidJson.err).startsWith("sluice call: request 1 is not JSON of grpc.testing.SimpleRequest: ");

    Run wrongField = call("-d", "{\"noSuchField\": 1}", address, "grpc.testing.TestService/UnaryCall");
    assertThat(wrongField.exit).isEqualTo(1);
    assertThat(wrongField.err)
        .startsWith("sluice call: request 1 is not JSON of grpc.testing.SimpleRequest: ")
        .contains("noSuchField");

    Run twoForUnary = call("-d", "{} {}", address, "grpc.testing.TestService/UnaryCall");
    assertThat(twoForUnary.exit).isEqualTo(1);
    assertThat(twoForUnary.err.strip())
        .isEqualTo("sluice call: grpc.testing.TestService.UnaryCall takes one request message, got 2");

    Run unknownSymbol = call(address, "describe", "grpc.testing.Nope");
    assertThat(unknownSymbol.exit).isEqualTo(1);
    assertThat(unknownSymbol.err).startsWith("sluice call: symbol grpc.testing.Nope not found");
  }

  @Test
  void usageErrorsExitTwo() {
    Run noVerb = call(interop("grpc"));
    assertThat(noVerb.exit).isEqualTo(2);
    assertThat(noVerb.err).contains("give an address and a verb").contains("usage: ./sluice call");

    Run wire = call("--wire", "pigeon", interop("grpc"), "list");
    assertThat(wire.exit).isEqualTo(2);
    assertThat(wire.err).contains("--wire is grpc or rsocket, got 'pigeon'");

    Run deadline = call("--deadline", "soon", interop("grpc"), "list");
    assertThat(deadline.exit).isEqualTo(2);
    assertThat(deadline.err).contains("--deadline: a duration like 5s, 250ms or 2m, got 'soon'");

    Run header = call("-H", "novalue", interop("grpc"), "list");
    assertThat(header.exit).isEqualTo(2);
    assertThat(header.err).contains("-H takes KEY:VALUE, got 'novalue'");

    Run transport = call("--transport", "ws", interop("grpc"), "list");
    assertThat(transport.exit).isEqualTo(2);
    assertThat(transport.err).contains("--transport and --ws-path are for --wire rsocket");
  }

  @Test
  void anUnreachableServerFailsClearly() throws Exception {
    try (ClosedPort closed = ClosedPort.any()) {
      int free = closed.port();
      Run r = call("127.0.0.1:" + free, "list");
      assertThat(r.exit).isEqualTo(1);
      assertThat(r.err).startsWith("sluice call: cannot connect to 127.0.0.1:" + free + " (grpc)");
    }
  }

  /** As ./sluice runs it: its own JVM, stdin piped, the exit code from System.exit. */
  @Test
  void inItsOwnJvmStdinAndTheExitCodeAreReal() throws Exception {
    Process ok =
        new ProcessBuilder(ChildJvm.command("call", "-d", "@", interop("grpc"),
                "grpc.testing.TestService/StreamingInputCall"))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    ok.getOutputStream().write("{\"payload\":{\"body\":\"AAAA\"}}\n{}\n".getBytes(StandardCharsets.UTF_8));
    ok.getOutputStream().close();
    String out = new String(ok.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(ok.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(ok.exitValue()).isZero();
    assertThat(out.strip()).isEqualTo("{\"aggregatedPayloadSize\":3}");

    Process failing =
        new ProcessBuilder(ChildJvm.command("call", "-d",
                "{\"responseStatus\": {\"code\": 3, \"message\": \"bad\"}}", interop("grpc"),
                "grpc.testing.TestService/UnaryCall"))
            .start();
    failing.getOutputStream().close();
    String err = new String(failing.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(failing.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(failing.exitValue()).isEqualTo(1);
    assertThat(err).contains("ERROR INVALID_ARGUMENT: bad");
  }
}
