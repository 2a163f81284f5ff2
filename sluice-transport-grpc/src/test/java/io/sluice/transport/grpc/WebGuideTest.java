package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.rpc.ServiceRegistry;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The gRPC-Web and HTTP/JSON sections of docs/guide/grpc.md: their java blocks, run. */
class WebGuideTest {
  @Test
  void browsersAndCurlCallTheSameServer() throws Exception {
    ServiceRegistry registry = new EchoService().registry();
    // tag::web[]
    // gRPC, gRPC-Web and HTTP/JSON on one port, HTTP/2 and HTTP/1.1 alike.
    GrpcServer.Running server =
        GrpcServer.create("127.0.0.1", 0)
            .withServices(
                GrpcServices.of(registry)
                    // CORS: pages of these origins may call across origins (default: none,
                    // same-origin pages only).
                    .withCorsAllowedOrigins("https://app.example.com"))
            .start();
    // end::web[]
    try {
      HttpClient c = WebHttp.client(HttpClient.Version.HTTP_1_1, null);
      String base = "http://127.0.0.1:" + server.port() + "/" + EchoService.NAME;
      HttpResponse<byte[]> json =
          WebHttp.post(c, base + "/Unary", "application/json", "\"Ada\"".getBytes(StandardCharsets.UTF_8));
      assertThat(new String(json.body(), StandardCharsets.UTF_8)).isEqualTo("\"Ada\"");
      HttpResponse<byte[]> web =
          WebHttp.post(c, base + "/Unary", "application/grpc-web+proto", WebHttp.frame(com.google.protobuf.StringValue.of("Ada")),
              "origin", "https://app.example.com");
      assertThat(web.headers().firstValue("access-control-allow-origin")).hasValue("https://app.example.com");
      assertThat(WebHttp.parse(web.body()).trailers()).containsEntry("grpc-status", "0");
    } finally {
      server.close();
      server.onClose().get();
    }
  }
}
