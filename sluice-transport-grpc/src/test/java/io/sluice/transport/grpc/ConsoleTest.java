package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.transport.grpc.internal.web.Http1Handler;
import io.sluice.transport.grpc.internal.web.WebRoute;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The console of a {@link GrpcServer} ({@link GrpcServer#withConsole()}), read by the JDK's
 * HttpClient over HTTP/1.1 and HTTP/2: the page and its files, the services as JSON, the figures
 * counting a call made through HTTP/JSON, the paths it refuses; off by default; 403 for a client
 * off loopback (an embedded channel's address), unless remote access is on. The page in a browser
 * is sluice-cli's ConsolePageTest.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConsoleTest {
  private GrpcServer.Running server;

  static Stream<Arguments> modes() {
    return Stream.of(GrpcWebTest.Mode.values()).map(Arguments::of);
  }

  private String start(GrpcWebTest.Mode mode, boolean console) {
    GrpcServer s = GrpcServer.create("127.0.0.1", 0).withServices(new EchoService().registry());
    if (console) {
      s = s.withConsole();
    }
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
      server.onClose().get(30, TimeUnit.SECONDS);
      server = null;
    }
  }

  private static HttpResponse<String> get(HttpClient c, String url) throws Exception {
    return c.send(HttpRequest.newBuilder(URI.create(url)).timeout(WebHttp.TIMEOUT).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @ParameterizedTest
  @MethodSource("modes")
  void servesThePageItsFilesAndTheServices(GrpcWebTest.Mode mode) throws Exception {
    String base = start(mode, true);
    HttpClient c = GrpcWebTest.client(mode);
    HttpResponse<String> page = get(c, base + "/console/");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.version()).isEqualTo(mode.version);
    assertThat(page.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
    assertThat(page.headers().firstValue("content-security-policy")).hasValueSatisfying(v -> assertThat(v).contains("default-src 'self'"));
    assertThat(page.body()).contains("<title>Sluice console</title>").contains("<script src=\"console.js\" defer>");
    // Nothing from another origin: every src and href is relative.
    assertThat(page.body()).doesNotContain("http://", "https://", "//cdn");
    HttpResponse<String> js = get(c, base + "/console/console.js");
    assertThat(js.statusCode()).isEqualTo(200);
    assertThat(js.headers().firstValue("content-type")).hasValue("text/javascript; charset=utf-8");
    assertThat(js.body()).contains("api/services").doesNotContain("https://");
    assertThat(get(c, base + "/console/console.css").statusCode()).isEqualTo(200);

    HttpResponse<String> services = get(c, base + "/console/api/services");
    assertThat(services.statusCode()).isEqualTo(200);
    assertThat(services.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(services.body())
        .startsWith("{\"services\":[{\"name\":\"sluice.test.Echo\",\"methods\":[")
        .contains("{\"name\":\"Unary\",\"kind\":\"UNARY\",\"json\":true,\"request\":\"google.protobuf.StringValue\","
            + "\"response\":\"google.protobuf.StringValue\"}")
        .contains("\"google.protobuf.StringValue\":{\"fields\":[{\"name\":\"value\",\"json\":\"value\",\"number\":1,"
            + "\"type\":\"string\",\"repeated\":false,\"map\":false}]}");
  }

  @ParameterizedTest
  @MethodSource("modes")
  void theFiguresCountACallMadeThroughJson(GrpcWebTest.Mode mode) throws Exception {
    String base = start(mode, true);
    HttpClient c = GrpcWebTest.client(mode);
    String before = get(c, base + "/console/api/figures").body();
    assertThat(before).startsWith("{\"source\":\"the console's own counts (RpcInstrumentation)\",\"connections\":");
    assertThat(before).doesNotContain("sluice.test.Echo/Unary");
    HttpResponse<byte[]> r = HttpJsonTest.post(c, base + HttpJsonTest.UNARY, "\"figures\"");
    assertThat(r.statusCode()).isEqualTo(200);
    String after = "";
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < end && !after.contains("\"calls\":1,")) {
      after = get(c, base + "/console/api/figures").body(); // the call's end is counted after its answer
      Thread.sleep(after.contains("\"calls\":1,") ? 0 : 20);
    }
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile(
                "\\{\"method\":\"sluice.test.Echo/Unary\",\"calls\":1,\"failures\":0,\"callsPerSecond\":([0-9.]+),\"p99Millis\":")
            .matcher(after);
    assertThat(m.find()).as(after).isTrue();
    // One call over the window: 5 s and the part of the second under way, so 1/6 to 1/5 a second.
    assertThat(Double.parseDouble(m.group(1))).isBetween(0.166, 0.2);
    assertThat(after).matches(".*\"connections\":[1-9][0-9]*,\"openCalls\":0,.*");
  }

  @Test
  void refusesWhatItDoesNotServe() throws Exception {
    String base = start(GrpcWebTest.Mode.H1_CLEARTEXT, true);
    HttpClient c = GrpcWebTest.client(GrpcWebTest.Mode.H1_CLEARTEXT);
    assertThat(get(c, base + "/console/nope.html").statusCode()).isEqualTo(404);
    HttpResponse<String> redirect = get(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build(), base + "/console");
    assertThat(redirect.statusCode()).isEqualTo(308);
    assertThat(redirect.headers().firstValue("location")).hasValue("/console/");
    HttpResponse<byte[]> post = WebHttp.post(c, base + "/console/", "application/json", "{}".getBytes(StandardCharsets.UTF_8));
    assertThat(post.statusCode()).isEqualTo(405);
    // The services are served as before beside it.
    assertThat(HttpJsonTest.post(c, base + HttpJsonTest.UNARY, "\"still\"").statusCode()).isEqualTo(200);
  }

  /** docs/guide/console.md's java block, run. */
  @Test
  void theGuidesServerServesTheConsole() throws Exception {
    io.sluice.rpc.ServiceRegistry registry = new EchoService().registry();
    // tag::console[]
    GrpcServer.Running server =
        GrpcServer.create("127.0.0.1", 8080 - 8080) // 0 here: a free port
            .withServices(registry)
            .withConsole() // http://127.0.0.1:PORT/console/, loopback clients only
            .start();
    // end::console[]
    try {
      HttpResponse<String> page =
          get(GrpcWebTest.client(GrpcWebTest.Mode.H1_CLEARTEXT), "http://127.0.0.1:" + server.port() + "/console/");
      assertThat(page.statusCode()).isEqualTo(200);
    } finally {
      server.close();
      server.onClose().get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void offByDefault() throws Exception {
    String base = start(GrpcWebTest.Mode.H1_CLEARTEXT, false);
    HttpResponse<String> page = get(GrpcWebTest.client(GrpcWebTest.Mode.H1_CLEARTEXT), base + "/console/");
    assertThat(page.statusCode()).isEqualTo(415);
    assertThat(page.body()).doesNotContain("Sluice console");
  }

  /** An embedded channel's remote address is no loopback address: the console says 403. */
  @Test
  void aClientOffLoopbackGets403UnlessRemoteAccessIsOn() {
    assertThat(firstLine(Console.create())).isEqualTo("HTTP/1.1 403 Forbidden");
    assertThat(firstLine(Console.create().withRemoteAccess(true))).isEqualTo("HTTP/1.1 200 OK");
  }

  private static String firstLine(Console console) {
    WebRoute route = new WebRoute(GrpcServices.of(new EchoService().registry()).withConsole(console));
    EmbeddedChannel ch = new EmbeddedChannel();
    Http1Handler.install(ch.pipeline(), route, 0, 8192);
    ch.writeInbound(Unpooled.copiedBuffer("GET /console/ HTTP/1.1\r\nHost: x\r\n\r\n", StandardCharsets.US_ASCII));
    ch.runPendingTasks();
    StringBuilder out = new StringBuilder();
    List<Object> written = new java.util.ArrayList<>();
    Object o;
    while ((o = ch.readOutbound()) != null) {
      written.add(o);
    }
    for (Object w : written) {
      if (w instanceof ByteBuf b) {
        out.append(b.toString(StandardCharsets.ISO_8859_1));
      }
      io.netty.util.ReferenceCountUtil.release(w);
    }
    ch.finishAndReleaseAll();
    String text = out.toString();
    return text.isEmpty() ? "(nothing written)" : text.substring(0, text.indexOf("\r\n"));
  }
}
