package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.BytesValue;
import com.google.protobuf.StringValue;
import io.sluice.rpc.ServerInterceptors;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.transport.netty.Tls;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * gRPC-Web on a {@link GrpcServer}, called with raw requests by the JDK's HttpClient: HTTP/1.1
 * cleartext, HTTP/1.1 over TLS (ALPN http/1.1) and HTTP/2 over TLS (ALPN h2).
 */
class GrpcWebTest {
  static final Tls.SelfSigned CERT = Tls.selfSigned("localhost", "127.0.0.1");
  static final String UNARY = "/" + EchoService.NAME + "/Unary";
  static final String COUNT = "/" + EchoService.NAME + "/Count";
  static final String WEB = "application/grpc-web+proto";

  private GrpcServer.Running server;

  /** How a test reaches the server. */
  enum Mode {
    H1_CLEARTEXT(HttpClient.Version.HTTP_1_1, false),
    H1_TLS(HttpClient.Version.HTTP_1_1, true),
    H2_TLS(HttpClient.Version.HTTP_2, true);

    final HttpClient.Version version;
    final boolean tls;

    Mode(HttpClient.Version version, boolean tls) {
      this.version = version;
      this.tls = tls;
    }
  }

  static Stream<Arguments> modes() {
    return Stream.of(Mode.values()).map(Arguments::of);
  }

  String start(Mode mode, GrpcServices services) {
    GrpcServer s = GrpcServer.create("127.0.0.1", 0).withServices(services);
    if (mode.tls) {
      s = s.withSsl(Tls.server(CERT).alpn("h2", "http/1.1").build());
    }
    server = s.start();
    return (mode.tls ? "https" : "http") + "://127.0.0.1:" + server.port();
  }

  static HttpClient client(Mode mode) throws Exception {
    return WebHttp.client(mode.version, mode.tls ? CERT : null);
  }

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close();
      server.onClose().get();
      server = null;
    }
  }

  @ParameterizedTest
  @MethodSource("modes")
  void unaryAnswersOneMessageThenTheTrailersFrame(Mode mode) throws Exception {
    String base = start(mode, GrpcServices.of(new EchoService().registry()));
    HttpResponse<byte[]> r =
        WebHttp.post(client(mode), base + UNARY, WEB, WebHttp.frame(StringValue.of("hello web")), "x-grpc-web", "1");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.version()).isEqualTo(mode.version);
    assertThat(r.headers().firstValue("content-type")).hasValue(WEB);
    assertThat(r.headers().firstValue("access-control-expose-headers").orElse(""))
        .contains("grpc-status", "grpc-message");
    WebHttp.Body body = WebHttp.parse(r.body());
    assertThat(body.messages()).hasSize(1);
    assertThat(StringValue.parseFrom(body.messages().get(0)).getValue()).isEqualTo("hello web");
    assertThat(body.trailers()).containsEntry("grpc-status", "0");
  }

  @ParameterizedTest
  @MethodSource("modes")
  void customResponseMetadataIsExposedToPagesOfOtherOrigins(Mode mode) throws Exception {
    String base = start(mode, GrpcServices.of(new EchoService().registry()).withCorsAllowedOrigins("https://app.example"));
    HttpResponse<byte[]> r =
        WebHttp.post(client(mode), base + UNARY, WEB, WebHttp.frame(StringValue.of("hello")),
            "origin", "https://app.example", "x-echo-initial", "hi");
    assertThat(r.headers().firstValue("x-echo-initial")).hasValue("hi");
    assertThat(r.headers().firstValue("access-control-allow-origin")).hasValue("https://app.example");
    assertThat(r.headers().firstValue("access-control-expose-headers").orElse("").split(","))
        .as("names a browser lets the page read")
        .contains("grpc-status", "grpc-message", "x-echo-initial");
    HttpResponse<byte[]> json =
        WebHttp.post(client(mode), base + UNARY, "application/json", "\"hello\"".getBytes(StandardCharsets.UTF_8),
            "origin", "https://app.example", "x-echo-initial", "hi");
    assertThat(json.headers().firstValue("access-control-expose-headers").orElse("").split(","))
        .contains("x-echo-initial");
  }

  @ParameterizedTest
  @MethodSource("modes")
  void serverStreamingAnswersEveryMessageInOrder(Mode mode) throws Exception {
    String base = start(mode, GrpcServices.of(new EchoService().registry()));
    HttpResponse<byte[]> r = WebHttp.post(client(mode), base + COUNT, WEB, WebHttp.frame(StringValue.of("50:300")));
    assertThat(r.statusCode()).isEqualTo(200);
    WebHttp.Body body = WebHttp.parse(r.body());
    assertThat(body.messages()).hasSize(50);
    for (var m : body.messages()) {
      assertThat(BytesValue.parseFrom(m).getValue().size()).isEqualTo(300);
    }
    assertThat(body.trailers()).containsEntry("grpc-status", "0");
  }

  @ParameterizedTest
  @MethodSource("modes")
  void textIsBase64BothWays(Mode mode) throws Exception {
    String base = start(mode, GrpcServices.of(new EchoService().registry()));
    byte[] request = Base64.getEncoder().encode(WebHttp.frame(StringValue.of("as text")));
    HttpResponse<byte[]> r = WebHttp.post(client(mode), base + UNARY, "application/grpc-web-text", request);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/grpc-web-text+proto");
    WebHttp.Body body = WebHttp.parse(WebHttp.fromText(r.body()));
    assertThat(StringValue.parseFrom(body.messages().get(0)).getValue()).isEqualTo("as text");
    assertThat(body.trailers()).containsEntry("grpc-status", "0");

    HttpResponse<byte[]> s =
        WebHttp.post(client(mode), base + COUNT, "application/grpc-web-text+proto",
            Base64.getEncoder().encode(WebHttp.frame(StringValue.of("3:7"))));
    WebHttp.Body streamed = WebHttp.parse(WebHttp.fromText(s.body()));
    assertThat(streamed.messages()).hasSize(3);
    assertThat(streamed.trailers()).containsEntry("grpc-status", "0");
  }

  @ParameterizedTest
  @MethodSource("modes")
  void anErrorBeforeAnyMessageIsTrailersOnly(Mode mode) throws Exception {
    String base = start(mode, GrpcServices.of(new EchoService().registry()));
    HttpResponse<byte[]> r =
        WebHttp.post(client(mode), base + UNARY, WEB, WebHttp.frame(StringValue.of("status:5:no such thing 100%")));
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("grpc-status")).hasValue("5");
    assertThat(r.headers().firstValue("grpc-message")).hasValue("no such thing 100%25");
    assertThat(r.body()).isEmpty();
  }

  /** A service whose handlers' exception text callers may read ({@link ServerInterceptors#exposeErrorMessages}). */
  static ServiceRegistry exposing(EchoService echo) {
    return ServiceRegistry.builder()
        .add(ServerInterceptors.intercept(
            echo.registry().service(EchoService.NAME), ServerInterceptors.exposeErrorMessages()))
        .build();
  }

  @Test
  void aHandlerThatThrowsEndsUnknownWithoutItsTextUnlessTheServiceOptsIn() throws Exception {
    String base = start(Mode.H1_CLEARTEXT, GrpcServices.of(new EchoService().registry()));
    HttpClient c = client(Mode.H1_CLEARTEXT);
    HttpResponse<byte[]> r = WebHttp.post(c, base + UNARY, WEB, WebHttp.frame(StringValue.of("throw")));
    assertThat(r.headers().firstValue("grpc-status")).hasValue("2");
    assertThat(r.headers().firstValue("grpc-message").orElse("")).doesNotContain("boom");
    assertThat(new String(r.body(), StandardCharsets.ISO_8859_1)).doesNotContain("boom");
    stop();

    base = start(Mode.H1_CLEARTEXT, GrpcServices.of(exposing(new EchoService())));
    r = WebHttp.post(c, base + UNARY, WEB, WebHttp.frame(StringValue.of("throw")));
    assertThat(r.headers().firstValue("grpc-status")).hasValue("2");
    assertThat(r.headers().firstValue("grpc-message")).hasValue("boom");
  }

  @ParameterizedTest
  @MethodSource("modes")
  void unknownMethodsAndStreamingRequestsAreUnimplemented(Mode mode) throws Exception {
    String base = start(mode, GrpcServices.of(new EchoService().registry()));
    HttpClient c = client(mode);
    HttpResponse<byte[]> unknown = WebHttp.post(c, base + "/" + EchoService.NAME + "/Nope", WEB, WebHttp.frame(StringValue.of("x")));
    assertThat(unknown.headers().firstValue("grpc-status")).hasValue("12");
    HttpResponse<byte[]> sum =
        WebHttp.post(c, base + "/" + EchoService.NAME + "/Sum", WEB, WebHttp.frame(BytesValue.getDefaultInstance()));
    assertThat(sum.headers().firstValue("grpc-status")).hasValue("12");
    assertThat(sum.headers().firstValue("grpc-message").orElse("")).contains("streams requests");
  }

  @ParameterizedTest
  @MethodSource("modes")
  void aBodyOfTwoMessagesOrHalfAMessageIsRefused(Mode mode) throws Exception {
    String base = start(mode, GrpcServices.of(new EchoService().registry()));
    HttpClient c = client(mode);
    byte[] one = WebHttp.frame(StringValue.of("a"));
    byte[] two = new byte[one.length * 2];
    System.arraycopy(one, 0, two, 0, one.length);
    System.arraycopy(one, 0, two, one.length, one.length);
    assertThat(WebHttp.post(c, base + UNARY, WEB, two).headers().firstValue("grpc-status")).hasValue("13");
    byte[] half = java.util.Arrays.copyOf(one, one.length - 1);
    assertThat(WebHttp.post(c, base + UNARY, WEB, half).headers().firstValue("grpc-status")).hasValue("13");
    // The connection still serves.
    assertThat(WebHttp.parse(WebHttp.post(c, base + UNARY, WEB, one).body()).trailers()).containsEntry("grpc-status", "0");
  }

  @ParameterizedTest
  @MethodSource("modes")
  void aTooLargeMessageIsResourceExhausted(Mode mode) throws Exception {
    String base = start(mode, GrpcServices.of(new EchoService().registry()).withMaxInboundMessageSize(1000));
    HttpResponse<byte[]> r =
        WebHttp.post(client(mode), base + "/" + EchoService.NAME + "/Bytes", WEB,
            WebHttp.frame(BytesValue.of(com.google.protobuf.ByteString.copyFrom(new byte[5000]))));
    assertThat(r.headers().firstValue("grpc-status")).hasValue("8");
  }

  @ParameterizedTest
  @MethodSource("modes")
  void responseMetadataAndTrailersReachTheCaller(Mode mode) throws Exception {
    String base = start(mode, GrpcServices.of(new EchoService().registry()));
    byte[] bin = "trailing".getBytes(StandardCharsets.US_ASCII);
    HttpResponse<byte[]> r =
        WebHttp.post(client(mode), base + UNARY, WEB, WebHttp.frame(StringValue.of("meta")),
            "x-echo-initial", "first", "x-echo-trailing-bin", Base64.getEncoder().encodeToString(bin));
    assertThat(r.headers().firstValue("x-echo-initial")).hasValue("first");
    WebHttp.Body body = WebHttp.parse(r.body());
    assertThat(Base64.getDecoder().decode(body.trailers().get("x-echo-trailing-bin"))).isEqualTo(bin);
  }
}
