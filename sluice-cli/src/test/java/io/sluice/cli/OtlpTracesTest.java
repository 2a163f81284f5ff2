package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code grpc-test-server} and {@code grpc-test-client} (and {@code demo --rpc}, {@code server},
 * {@code client}, {@code demo}, {@code demo --resume}, {@code client --resume --count}) in their own
 * JVMs, as ./sluice starts them,
 * with the standard OpenTelemetry variables pointing at a small OTLP/HTTP receiver on loopback (the
 * JDK's HTTP server, decoding {@code ExportTraceServiceRequest}'s protobuf fields by number): the
 * client's span and the server's span of a call arrive, the server's a child of the client's, each
 * from its own {@code service.name}. Without the variables nothing is sent.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class OtlpTracesTest {
  /** One span as OTLP sends it (opentelemetry-proto trace.proto field numbers). */
  record Span(String service, String traceId, String spanId, String parentSpanId, String name, int kind) {}

  private HttpServer receiver;
  private final List<Span> spans = new CopyOnWriteArrayList<>();
  private final List<Process> processes = new ArrayList<>();

  @BeforeEach
  void startReceiver() throws IOException {
    receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    receiver.createContext("/v1/traces", exchange -> {
      byte[] body = exchange.getRequestBody().readAllBytes();
      try {
        spans.addAll(decodeRequest(body));
        exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
        exchange.sendResponseHeaders(200, 0); // an empty ExportTraceServiceResponse
      } catch (IOException | RuntimeException e) {
        exchange.sendResponseHeaders(400, -1);
      }
      exchange.close();
    });
    receiver.start();
  }

  @AfterEach
  void stop() throws Exception {
    for (Process p : processes) {
      p.destroy();
      p.waitFor(30, TimeUnit.SECONDS);
    }
    receiver.stop(0);
  }

  private Process start(Map<String, String> env, String... args) throws IOException {
    List<String> cmd = ChildJvm.command(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
    pb.environment().keySet().removeIf(k -> k.startsWith("OTEL_"));
    pb.environment().putAll(env);
    Process p = pb.start();
    processes.add(p);
    return p;
  }

  private Map<String, String> otel(String service) {
    return Map.of(
        "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + receiver.getAddress().getPort(),
        "OTEL_SERVICE_NAME", service,
        "OTEL_TRACES_SAMPLER", "always_on",
        "OTEL_BSP_SCHEDULE_DELAY", "100");
  }

  private static int listening(Process p) throws IOException {
    BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String first = lines.readLine();
    assertThat(first).startsWith("LISTENING ");
    return Integer.parseInt(first.substring("LISTENING ".length()).strip());
  }

  private static String run(Process client) throws Exception {
    String out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(client.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(client.exitValue()).as(out).isZero();
    return out;
  }

  @Test
  void aGrpcTestClientCallAndItsServerSpanAreOneTrace() throws Exception {
    Process server = start(otel("test-server"), "grpc-test-server", "--port", "0");
    int port = listening(server);
    String out = run(start(otel("test-client"), "grpc-test-client", "--port", String.valueOf(port), "--test_case", "large_unary"));
    assertThat(out).contains("PASS large_unary");
    // The client flushed at exit; the server flushes every 100 ms.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (serverSpans("UnaryCall").isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    Span client = one("test-client", "grpc.testing.TestService/UnaryCall", 3);
    Span serverSpan = one("test-server", "grpc.testing.TestService/UnaryCall", 2);
    assertThat(serverSpan.traceId()).isEqualTo(client.traceId());
    assertThat(serverSpan.parentSpanId()).isEqualTo(client.spanId());
    assertThat(client.parentSpanId()).isEmpty();
  }

  @Test
  void theRpcDemosCallsAreTracedFromClientToServer() throws Exception {
    String out = run(start(otel("demo"), "demo", "--rpc", "--seconds", "1"));
    assertThat(out).contains("total: ");
    // The demo's JVM flushed its spans at exit: its calls' client spans, and under each the
    // server's span of the same call (one process, one service name).
    List<Span> clients = spans.stream()
        .filter(s -> s.service().equals("demo") && s.kind() == 3 && s.name().equals("sluice.examples.Greeter/SayHello"))
        .toList();
    assertThat(clients).as("client spans of SayHello in %s spans", spans.size()).isNotEmpty();
    java.util.Set<String> clientIds = new java.util.HashSet<>();
    clients.forEach(c -> clientIds.add(c.traceId() + "/" + c.spanId()));
    assertThat(spans.stream()
            .filter(s -> s.service().equals("demo") && s.kind() == 2 && s.name().equals("sluice.examples.Greeter/SayHello"))
            .filter(s -> clientIds.contains(s.traceId() + "/" + s.parentSpanId())))
        .as("server spans whose parent is a client span of the same trace")
        .isNotEmpty();
  }

  @Test
  void theEchoServerAndClientTraceEachRequestOnBothSides() throws Exception {
    Process server = start(otel("echo-server"), "server", "--port", "0");
    int port = listening(server);
    String out = run(start(otel("echo-client"), "client", "--port", String.valueOf(port)));
    assertThat(out).contains("0 failed").doesNotContain("FAIL");
    List<String> interactions = List.of("fire-and-forget", "request-response", "request-stream", "request-channel");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while ((!interactions.stream().allMatch(i -> childOfAClientSpan(i) != null)
            || count("echo-server", 2, "request-response") < count("echo-client", 3, "request-response"))
        && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    for (String interaction : interactions) {
      Span serverSpan = childOfAClientSpan(interaction);
      assertThat(serverSpan).as("a server span of %s under a client span, in %s", interaction, spans).isNotNull();
    }
    // A span per request: the client made as many request-response spans as the server has, each
    // request's server span under its own client span.
    List<Span> clientRr = spans.stream()
        .filter(s -> s.service().equals("echo-client") && s.kind() == 3 && s.name().equals("request-response"))
        .toList();
    List<Span> serverRr = spans.stream()
        .filter(s -> s.service().equals("echo-server") && s.kind() == 2 && s.name().equals("request-response"))
        .toList();
    assertThat(clientRr).hasSizeGreaterThan(3); // request-response, -error, stats polls, after
    assertThat(clientRr.stream().map(Span::traceId).distinct()).hasSize(clientRr.size());
    assertThat(serverRr).hasSameSizeAs(clientRr);
    // The one request with metadata of its own (request-response-metadata) sends no context: its
    // server span is a root; every other is the child of its own client span.
    java.util.Set<String> clientIds = new java.util.HashSet<>();
    clientRr.forEach(c -> clientIds.add(c.traceId() + "/" + c.spanId()));
    assertThat(serverRr.stream().filter(s -> s.parentSpanId().isEmpty())).hasSize(1);
    assertThat(serverRr.stream().filter(s -> clientIds.contains(s.traceId() + "/" + s.parentSpanId())))
        .hasSize(serverRr.size() - 1);
  }

  @Test
  void theThroughputDemosStreamIsOneClientSpanAndOneServerSpanUnderIt() throws Exception {
    String out = run(start(otel("demo-stream"), "demo", "--seconds", "1"));
    assertThat(out).contains("total: ");
    // The JVM flushed at exit: the stream's client span and the server's under it, and no
    // other span (none per message).
    oneStreamTrace("demo-stream", "demo-stream");
  }

  @Test
  void theResumeDemosStreamIsOneClientSpanAndOneServerSpanUnderIt() throws Exception {
    String out = run(start(otel("demo-resume"), "demo", "--resume", "--cut-every-ms", "50", "--count", "20000"));
    assertThat(out).contains("PASS stream 20000 messages in order");
    oneStreamTrace("demo-resume", "demo-resume");
  }

  @Test
  void theResumeCountClientsStreamIsTheParentOfTheServersSpan() throws Exception {
    Process server = start(otel("resume-server"), "server", "--resume", "--port", "0");
    int port = listening(server);
    String out = run(start(otel("resume-client"), "client", "--resume", "--count", "1000", "--port", String.valueOf(port)));
    assertThat(out).contains("PASS stream 1000 messages in order");
    // The client flushed at exit; the server flushes every 100 ms.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (count("resume-server", 2, "request-stream") == 0 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    oneStreamTrace("resume-client", "resume-server");
  }

  /**
   * {@code client}'s only span is a request-stream CLIENT span, and {@code server}'s only span a
   * request-stream SERVER span, its child in the same trace: one span per stream on each side.
   */
  private void oneStreamTrace(String client, String server) {
    List<Span> clientSpans = spans.stream().filter(s -> s.service().equals(client) && s.kind() != 2).toList();
    List<Span> serverSpans = spans.stream().filter(s -> s.service().equals(server) && s.kind() != 3).toList();
    assertThat(clientSpans).as("the client's spans in %s", spans).hasSize(1);
    assertThat(serverSpans).as("the server's spans in %s", spans).hasSize(1);
    Span c = clientSpans.get(0);
    Span s = serverSpans.get(0);
    assertThat(c.name()).isEqualTo("request-stream");
    assertThat(c.kind()).isEqualTo(3);
    assertThat(c.parentSpanId()).isEmpty();
    assertThat(s.name()).isEqualTo("request-stream");
    assertThat(s.kind()).isEqualTo(2);
    assertThat(s.traceId()).isEqualTo(c.traceId());
    assertThat(s.parentSpanId()).isEqualTo(c.spanId());
  }

  private long count(String service, int kind, String name) {
    return spans.stream().filter(s -> s.service().equals(service) && s.kind() == kind && s.name().equals(name)).count();
  }

  /** A server span of {@code interaction} whose parent is a client span of the same trace, or null. */
  private Span childOfAClientSpan(String interaction) {
    java.util.Set<String> clientIds = new java.util.HashSet<>();
    spans.stream()
        .filter(s -> s.service().equals("echo-client") && s.kind() == 3 && s.name().equals(interaction))
        .forEach(c -> clientIds.add(c.traceId() + "/" + c.spanId()));
    return spans.stream()
        .filter(s -> s.service().equals("echo-server") && s.kind() == 2 && s.name().equals(interaction))
        .filter(s -> clientIds.contains(s.traceId() + "/" + s.parentSpanId()))
        .findFirst()
        .orElse(null);
  }

  @Test
  void withoutTheVariablesNothingIsSent() throws Exception {
    Process server = start(Map.of(), "grpc-test-server", "--port", "0");
    int port = listening(server);
    run(start(Map.of(), "grpc-test-client", "--port", String.valueOf(port), "--test_case", "empty_unary"));
    server.destroy();
    assertThat(server.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(spans).isEmpty();
  }

  private List<Span> serverSpans(String method) {
    return spans.stream().filter(s -> s.kind() == 2 && s.name().endsWith("/" + method)).toList();
  }

  private Span one(String service, String name, int kind) {
    List<Span> found = spans.stream()
        .filter(s -> s.service().equals(service) && s.name().equals(name) && s.kind() == kind)
        .toList();
    assertThat(found).as(service + " " + name + " in " + spans).hasSize(1);
    return found.get(0);
  }

  // ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
  // ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
  // Resource { repeated KeyValue attributes = 1; }  KeyValue { string key = 1; AnyValue value = 2; }
  // AnyValue { string string_value = 1; ... }  ScopeSpans { scope = 1; repeated Span spans = 2; }
  // Span { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4;
  //        string name = 5; SpanKind kind = 6; ... }
  static List<Span> decodeRequest(byte[] body) throws IOException {
    List<Span> out = new ArrayList<>();
    CodedInputStream in = CodedInputStream.newInstance(body);
    for (int tag; (tag = in.readTag()) != 0; ) {
      if (WireFormat.getTagFieldNumber(tag) == 1) {
        decodeResourceSpans(in.readBytes(), out);
      } else {
        in.skipField(tag);
      }
    }
    return out;
  }

  private static void decodeResourceSpans(ByteString b, List<Span> out) throws IOException {
    CodedInputStream in = b.newCodedInput();
    String service = "";
    List<ByteString> scopes = new ArrayList<>();
    for (int tag; (tag = in.readTag()) != 0; ) {
      switch (WireFormat.getTagFieldNumber(tag)) {
        case 1 -> service = serviceName(in.readBytes());
        case 2 -> scopes.add(in.readBytes());
        default -> in.skipField(tag);
      }
    }
    for (ByteString scope : scopes) {
      CodedInputStream s = scope.newCodedInput();
      for (int tag; (tag = s.readTag()) != 0; ) {
        if (WireFormat.getTagFieldNumber(tag) == 2) {
          out.add(decodeSpan(service, s.readBytes()));
        } else {
          s.skipField(tag);
        }
      }
    }
  }

  private static String serviceName(ByteString resource) throws IOException {
    CodedInputStream in = resource.newCodedInput();
    for (int tag; (tag = in.readTag()) != 0; ) {
      if (WireFormat.getTagFieldNumber(tag) != 1) {
        in.skipField(tag);
        continue;
      }
      CodedInputStream kv = in.readBytes().newCodedInput();
      String key = null;
      String value = null;
      for (int t; (t = kv.readTag()) != 0; ) {
        switch (WireFormat.getTagFieldNumber(t)) {
          case 1 -> key = kv.readString();
          case 2 -> {
            CodedInputStream any = kv.readBytes().newCodedInput();
            for (int a; (a = any.readTag()) != 0; ) {
              if (WireFormat.getTagFieldNumber(a) == 1) {
                value = any.readString();
              } else {
                any.skipField(a);
              }
            }
          }
          default -> kv.skipField(t);
        }
      }
      if ("service.name".equals(key)) {
        return value;
      }
    }
    return "";
  }

  private static Span decodeSpan(String service, ByteString b) throws IOException {
    CodedInputStream in = b.newCodedInput();
    HexFormat hex = HexFormat.of();
    String traceId = "";
    String spanId = "";
    String parent = "";
    String name = "";
    int kind = 0;
    for (int tag; (tag = in.readTag()) != 0; ) {
      switch (WireFormat.getTagFieldNumber(tag)) {
        case 1 -> traceId = hex.formatHex(in.readBytes().toByteArray());
        case 2 -> spanId = hex.formatHex(in.readBytes().toByteArray());
        case 4 -> parent = hex.formatHex(in.readBytes().toByteArray());
        case 5 -> name = in.readString();
        case 6 -> kind = in.readEnum();
        default -> in.skipField(tag);
      }
    }
    return new Span(service, traceId, spanId, parent, name, kind);
  }
}
