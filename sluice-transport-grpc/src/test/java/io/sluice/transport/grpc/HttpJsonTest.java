package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.rpc.Status;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * HTTP/JSON on a {@link GrpcServer} ({@code POST /service/method}, {@code application/json}),
 * called by the JDK's HttpClient over HTTP/1.1 and HTTP/2 (TLS), plus CORS for both gRPC-Web and
 * JSON, and a raw socket for the body that must be refused before it is all sent.
 */
class HttpJsonTest {
  static final String JSON = "application/json";
  static final String UNARY = "/" + EchoService.NAME + "/Unary";
  static final String COUNT = "/" + EchoService.NAME + "/Count";

  private GrpcServer.Running server;

  static Stream<Arguments> modes() {
    return Stream.of(GrpcWebTest.Mode.values()).map(Arguments::of);
  }

  String start(GrpcWebTest.Mode mode, GrpcServices services) {
    GrpcServer s = GrpcServer.create("127.0.0.1", 0).withServices(services);
    if (mode.tls) {
      s = s.withSsl(io.sluice.transport.netty.Tls.server(GrpcWebTest.CERT).alpn("h2", "http/1.1").build());
    }
    server = s.start();
    return (mode.tls ? "https" : "http") + "://127.0.0.1:" + server.port();
  }

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close();
      server.onClose().get();
      server = null;
    }
  }

  static String text(HttpResponse<byte[]> r) {
    return new String(r.body(), StandardCharsets.UTF_8);
  }

  static HttpResponse<byte[]> post(HttpClient c, String url, String body) throws Exception {
    return WebHttp.post(c, url, JSON, body.getBytes(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @MethodSource("modes")
  void unaryAnswersJson(GrpcWebTest.Mode mode) throws Exception {
    String base = start(mode, GrpcServices.of(new EchoService().registry()));
    HttpResponse<byte[]> r = post(GrpcWebTest.client(mode), base + UNARY, "\"hello json\"");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.version()).isEqualTo(mode.version);
    assertThat(r.headers().firstValue("content-type")).hasValue(JSON);
    assertThat(text(r)).isEqualTo("\"hello json\"");
  }

  @ParameterizedTest
  @MethodSource("modes")
  void serverStreamingAnswersNdjson(GrpcWebTest.Mode mode) throws Exception {
    String base = start(mode, GrpcServices.of(new EchoService().registry()));
    HttpResponse<byte[]> r = post(GrpcWebTest.client(mode), base + COUNT, "\"40:3\"");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/x-ndjson");
    String[] lines = text(r).split("\n");
    assertThat(lines).hasSize(40);
    // BytesValue maps to a base64 JSON string; the service sends zero bytes.
    assertThat(lines).allMatch(l -> l.equals("\"" + Base64.getEncoder().encodeToString(new byte[3]) + "\""));
  }

  @Test
  void everyStatusHasItsHttpStatusAndAJsonBody() throws Exception {
    String base = start(GrpcWebTest.Mode.H1_CLEARTEXT, GrpcServices.of(new EchoService().registry()));
    HttpClient c = GrpcWebTest.client(GrpcWebTest.Mode.H1_CLEARTEXT);
    Map<Status.Code, Integer> expected =
        Map.ofEntries(
            Map.entry(Status.Code.CANCELLED, 499),
            Map.entry(Status.Code.UNKNOWN, 500),
            Map.entry(Status.Code.INVALID_ARGUMENT, 400),
            Map.entry(Status.Code.DEADLINE_EXCEEDED, 504),
            Map.entry(Status.Code.NOT_FOUND, 404),
            Map.entry(Status.Code.ALREADY_EXISTS, 409),
            Map.entry(Status.Code.PERMISSION_DENIED, 403),
            Map.entry(Status.Code.RESOURCE_EXHAUSTED, 429),
            Map.entry(Status.Code.FAILED_PRECONDITION, 400),
            Map.entry(Status.Code.ABORTED, 409),
            Map.entry(Status.Code.OUT_OF_RANGE, 400),
            Map.entry(Status.Code.UNIMPLEMENTED, 501),
            Map.entry(Status.Code.INTERNAL, 500),
            Map.entry(Status.Code.UNAVAILABLE, 503),
            Map.entry(Status.Code.DATA_LOSS, 500),
            Map.entry(Status.Code.UNAUTHENTICATED, 401));
    assertThat(expected).hasSize(Status.Code.values().length - 1);
    for (Map.Entry<Status.Code, Integer> e : expected.entrySet()) {
      int code = e.getKey().value();
      HttpResponse<byte[]> r = post(c, base + UNARY, "\"status:" + code + ":why \\\"" + code + "\\\"\"");
      assertThat(r.statusCode()).as(e.getKey().name()).isEqualTo(e.getValue());
      assertThat(r.headers().firstValue("content-type")).hasValue(JSON);
      assertThat(text(r)).isEqualTo("{\"code\":" + code + ",\"message\":\"why \\\"" + code + "\\\"\"}");
    }
  }

  @Test
  void aHandlerThatThrowsIs500WithoutItsTextUnlessTheServiceOptsIn() throws Exception {
    String base = start(GrpcWebTest.Mode.H1_CLEARTEXT, GrpcServices.of(new EchoService().registry()));
    HttpClient c = GrpcWebTest.client(GrpcWebTest.Mode.H1_CLEARTEXT);
    HttpResponse<byte[]> r = post(c, base + UNARY, "\"throw\"");
    assertThat(r.statusCode()).isEqualTo(500);
    assertThat(text(r)).startsWith("{\"code\":2,").doesNotContain("boom");
    stop();

    base = start(GrpcWebTest.Mode.H1_CLEARTEXT, GrpcServices.of(GrpcWebTest.exposing(new EchoService())));
    r = post(c, base + UNARY, "\"throw\"");
    assertThat(r.statusCode()).isEqualTo(500);
    assertThat(text(r)).isEqualTo("{\"code\":2,\"message\":\"boom\"}");
  }

  @ParameterizedTest
  @MethodSource("modes")
  void malformedJsonIsInvalidArgument(GrpcWebTest.Mode mode) throws Exception {
    String base = start(mode, GrpcServices.of(new EchoService().registry()));
    HttpClient c = GrpcWebTest.client(mode);
    for (String bad : new String[] {"{\"value\": ", "[1, 2]", "\"unterminated"}) {
      HttpResponse<byte[]> r = post(c, base + UNARY, bad);
      assertThat(r.statusCode()).as(bad).isEqualTo(400);
      assertThat(text(r)).startsWith("{\"code\":3,\"message\":\"malformed JSON for google.protobuf.StringValue");
    }
    assertThat(text(post(c, base + UNARY, "\"still serving\""))).isEqualTo("\"still serving\"");
  }

  @ParameterizedTest
  @MethodSource("modes")
  void unknownMethodsAndStreamingRequestsAre501(GrpcWebTest.Mode mode) throws Exception {
    String base = start(mode, GrpcServices.of(new EchoService().registry()));
    HttpClient c = GrpcWebTest.client(mode);
    HttpResponse<byte[]> unknown = post(c, base + "/" + EchoService.NAME + "/Nope", "{}");
    assertThat(unknown.statusCode()).isEqualTo(501);
    assertThat(text(unknown)).contains("\"code\":12", "unknown method Nope");
    HttpResponse<byte[]> sum = post(c, base + "/" + EchoService.NAME + "/Sum", "{}");
    assertThat(sum.statusCode()).isEqualTo(501);
    assertThat(text(sum)).contains("streams requests, which HTTP/JSON cannot carry");
    HttpResponse<byte[]> bidi = post(c, base + "/" + EchoService.NAME + "/Chat", "{}");
    assertThat(bidi.statusCode()).isEqualTo(501);
  }

  @ParameterizedTest
  @MethodSource("modes")
  void otherContentTypesAndMethodsAreRefused(GrpcWebTest.Mode mode) throws Exception {
    String base = start(mode, GrpcServices.of(new EchoService().registry()));
    HttpClient c = GrpcWebTest.client(mode);
    assertThat(WebHttp.post(c, base + UNARY, "text/plain", new byte[] {1}).statusCode()).isEqualTo(415);
    assertThat(WebHttp.post(c, base + UNARY, "application/grpc-web+json", new byte[] {1}).statusCode()).isEqualTo(415);
    HttpResponse<byte[]> get =
        c.send(
            HttpRequest.newBuilder(URI.create(base + UNARY)).header("content-type", JSON).GET().build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertThat(get.statusCode()).isEqualTo(405);
  }

  @ParameterizedTest
  @MethodSource("modes")
  void aJsonBodyOverTheLimitIs413(GrpcWebTest.Mode mode) throws Exception {
    String base = start(mode, GrpcServices.of(new EchoService().registry()).withMaxInboundMessageSize(100));
    HttpResponse<byte[]> r = post(GrpcWebTest.client(mode), base + UNARY, "\"" + "x".repeat(200) + "\"");
    assertThat(r.statusCode()).isEqualTo(413);
    assertThat(text(r)).contains("larger than 100 bytes");
  }

  /**
   * 100 MB announced, 8 KiB sent: the 413 comes back at once, so the server never needed the
   * rest (it keeps no more than the limit); the connection is closed after it.
   */
  @Test
  void anOversizeBodyIsRefusedBeforeItIsSent() throws Exception {
    start(GrpcWebTest.Mode.H1_CLEARTEXT, GrpcServices.of(new EchoService().registry()).withMaxInboundMessageSize(1024));
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.setSoTimeout(30_000);
      OutputStream out = s.getOutputStream();
      out.write(
          ("POST " + UNARY + " HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                  + "content-length: 100000000\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.write(new byte[8192]);
      out.flush();
      InputStream in = s.getInputStream();
      String response = new String(in.readAllBytes(), StandardCharsets.US_ASCII); // until the close
      assertThat(response).startsWith("HTTP/1.1 413 ");
      assertThat(response).containsIgnoringCase("connection: close");
    }
  }

  /**
   * Three requests in one write (pipelined), the first answered later from another thread: three
   * answers, in order, on the one connection.
   */
  @Test
  void pipelinedRequestsAreAnsweredInOrder() throws Exception {
    java.util.concurrent.ScheduledExecutorService later = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
    io.sluice.rpc.ServerCallHandler<com.google.protobuf.StringValue, com.google.protobuf.StringValue> laterHandler =
        call -> {
          call.request(1);
          return new EchoService.Adapter<>() {
            @Override
            public void onMessage(com.google.protobuf.StringValue m) {
              later.schedule(() -> {
                call.sendMessage(m);
                call.close(Status.OK);
              }, 100, java.util.concurrent.TimeUnit.MILLISECONDS);
            }
          };
        };
    io.sluice.rpc.ServiceRegistry registry =
        io.sluice.rpc.ServiceRegistry.builder()
            .add(new EchoService().registry().service(EchoService.NAME))
            .add(
                io.sluice.rpc.ServiceDefinition.builder(EchoService.NAME + "Later")
                    .add(
                        io.sluice.rpc.MethodDescriptor.<com.google.protobuf.StringValue, com.google.protobuf.StringValue>builder()
                            .service(EchoService.NAME + "Later").method("Unary").kind(io.sluice.rpc.MethodKind.UNARY)
                            .requestParser(com.google.protobuf.StringValue.parser())
                            .responseParser(com.google.protobuf.StringValue.parser()).build(),
                        laterHandler)
                    .build())
            .build();
    start(GrpcWebTest.Mode.H1_CLEARTEXT, GrpcServices.of(registry));
    StringBuilder requests = new StringBuilder();
    String[] bodies = {"\"first\"", "\"2:1\"", "\"third\""};
    String[] paths = {"/" + EchoService.NAME + "Later/Unary", COUNT, UNARY};
    for (int i = 0; i < 3; i++) {
      requests.append("POST ").append(paths[i]).append(" HTTP/1.1\r\nhost: 127.0.0.1\r\n")
          .append("content-type: application/json\r\ncontent-length: ").append(bodies[i].length()).append("\r\n")
          .append(i == 2 ? "connection: close\r\n" : "").append("\r\n").append(bodies[i]);
    }
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.setSoTimeout(30_000);
      s.getOutputStream().write(requests.toString().getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      String all = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII); // until the close
      int first = all.indexOf("\"first\"");
      int stream = all.indexOf("application/x-ndjson");
      int third = all.indexOf("\"third\"");
      assertThat(all.split("HTTP/1.1 200 ", -1)).hasSize(4);
      assertThat(first).isPositive();
      assertThat(stream).isGreaterThan(first);
      assertThat(third).isGreaterThan(stream);
    } finally {
      later.shutdownNow();
    }
  }

  /** grpc-timeout reaches HTTP/JSON calls: the handler is cancelled and the caller gets 504. */
  @Test
  void aDeadlineIs504() throws Exception {
    EchoService service = new EchoService();
    String base = start(GrpcWebTest.Mode.H1_CLEARTEXT, GrpcServices.of(service.registry()));
    HttpResponse<byte[]> r =
        WebHttp.post(GrpcWebTest.client(GrpcWebTest.Mode.H1_CLEARTEXT), base + "/" + EchoService.NAME + "/Hang", JSON,
            "\"wait\"".getBytes(StandardCharsets.UTF_8), "grpc-timeout", "50m");
    assertThat(r.statusCode()).isEqualTo(504);
    assertThat(text(r)).startsWith("{\"code\":4,");
    assertThat(service.hangCancelled.get(30, java.util.concurrent.TimeUnit.SECONDS)).isNotNull();
  }

  @Test
  void corsIsOffByDefault() throws Exception {
    String base = start(GrpcWebTest.Mode.H1_CLEARTEXT, GrpcServices.of(new EchoService().registry()));
    HttpClient c = GrpcWebTest.client(GrpcWebTest.Mode.H1_CLEARTEXT);
    HttpResponse<byte[]> preflight = c.send(preflight(base + UNARY, "https://app.example"), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(preflight.statusCode()).isEqualTo(403);
    assertThat(preflight.headers().firstValue("access-control-allow-origin")).isEmpty();
    HttpResponse<byte[]> call =
        WebHttp.post(c, base + UNARY, JSON, "\"x\"".getBytes(StandardCharsets.UTF_8), "origin", "https://app.example");
    assertThat(call.statusCode()).isEqualTo(200);
    assertThat(call.headers().firstValue("access-control-allow-origin")).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("modes")
  void corsAllowsTheOriginsGiven(GrpcWebTest.Mode mode) throws Exception {
    String base =
        start(mode, GrpcServices.of(new EchoService().registry()).withCorsAllowedOrigins("https://app.example"));
    HttpClient c = GrpcWebTest.client(mode);
    HttpResponse<byte[]> ok = c.send(preflight(base + UNARY, "https://app.example"), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(ok.statusCode()).isEqualTo(204);
    assertThat(ok.headers().firstValue("access-control-allow-origin")).hasValue("https://app.example");
    assertThat(ok.headers().firstValue("access-control-allow-methods")).hasValue("POST");
    assertThat(ok.headers().firstValue("access-control-allow-headers")).hasValue("content-type,x-grpc-web,grpc-timeout");
    HttpResponse<byte[]> other = c.send(preflight(base + UNARY, "https://evil.example"), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(other.statusCode()).isEqualTo(403);
    assertThat(other.headers().firstValue("access-control-allow-origin")).isEmpty();

    HttpResponse<byte[]> web =
        WebHttp.post(c, base + UNARY, GrpcWebTest.WEB, WebHttp.frame(com.google.protobuf.StringValue.of("c")),
            "origin", "https://app.example");
    assertThat(web.headers().firstValue("access-control-allow-origin")).hasValue("https://app.example");
    assertThat(web.headers().firstValue("access-control-expose-headers").orElse("")).contains("grpc-status", "grpc-message");
    HttpResponse<byte[]> json =
        WebHttp.post(c, base + UNARY, JSON, "\"c\"".getBytes(StandardCharsets.UTF_8), "origin", "https://evil.example");
    assertThat(json.headers().firstValue("access-control-allow-origin")).isEmpty();
  }

  private static HttpRequest preflight(String url, String origin) {
    return HttpRequest.newBuilder(URI.create(url))
        .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "content-type,x-grpc-web,grpc-timeout")
        .build();
  }
}
