package io.sluice.transport.multiprotocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.StringValue;
import io.netty.handler.ssl.SslContext;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.grpc.GrpcServices;
import io.sluice.transport.netty.Tls;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * gRPC-Web and HTTP/JSON on the one port ({@link MultiProtocolServerTransport#withHttpRoutes}): over
 * HTTP/1.1 cleartext (the first request's content type picks the gRPC server's HTTP/1.1
 * handling over the WebSocket upgrade), HTTP/1.1 over TLS and HTTP/2 over TLS; other HTTP/1.1
 * requests still get the WebSocket server's answer.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS) // hang guard only
class GrpcWebOnePortTest {
  private static final Duration WAIT = Duration.ofSeconds(20); // hang guard only
  private static final Tls.SelfSigned CERT = Tls.selfSigned("localhost", "127.0.0.1");
  private static final SslContext SERVER_TLS = Tls.server(CERT).alpn("h2", "http/1.1").build();
  private static final String SERVICE = "sluice.test.WebOnePort";

  private static ServerTransport.Bound server;
  private static int port;

  private static MethodDescriptor<StringValue, StringValue> method(String name, MethodKind kind) {
    return MethodDescriptor.<StringValue, StringValue>builder()
        .service(SERVICE)
        .method(name)
        .kind(kind)
        .requestParser(StringValue.parser())
        .responseParser(StringValue.parser())
        .build();
  }

  /** Sends {@code n} copies of the request ("n" for Hello: 1), as onReady allows. */
  private static io.sluice.rpc.ServerCallHandler<StringValue, StringValue> handler(int n) {
    return call -> {
      call.request(1);
      return new ServerCall.Listener<>() {
        String value;
        long credit;
        int sent;

        @Override
        public void onMessage(StringValue m) {
          value = m.getValue();
          pump();
        }

        @Override
        public void onReady(long more) {
          credit += more;
          pump();
        }

        private void pump() {
          while (value != null && credit > 0 && sent < n) {
            credit--;
            sent++;
            call.sendMessage(StringValue.of(value + sent));
          }
          if (value != null && sent == n) {
            call.close(Status.OK);
            value = null;
          }
        }

        @Override
        public void onHalfClose() {}

        @Override
        public void onCancel() {}
      };
    };
  }

  @BeforeAll
  static void bind() {
    ServiceRegistry registry =
        ServiceRegistry.builder()
            .add(
                ServiceDefinition.builder(SERVICE)
                    .add(method("Hello", MethodKind.UNARY), handler(1))
                    .add(method("Count", MethodKind.SERVER_STREAMING), handler(3))
                    .build())
            .build();
    server =
        MultiProtocolServerTransport.create("127.0.0.1", 0)
            .withSsl(SERVER_TLS)
            .withHttpRoutes(GrpcServices.of(registry).httpRoutes())
            .bind(t -> {})
            .orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS)
            .join();
    port = ((InetSocketAddress) server.address()).getPort();
  }

  @AfterAll
  static void close() {
    server.close();
    server.onClose().orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
  }

  private static HttpClient client(HttpClient.Version version, boolean tls) throws Exception {
    HttpClient.Builder b = HttpClient.newBuilder().version(version).connectTimeout(WAIT);
    if (tls) {
      KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
      ks.load(null, null);
      ks.setCertificateEntry(
          "server",
          CertificateFactory.getInstance("X.509")
              .generateCertificate(new ByteArrayInputStream(CERT.certificatePem().getBytes(StandardCharsets.US_ASCII))));
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      SSLContext ssl = SSLContext.getInstance("TLS");
      ssl.init(null, tmf.getTrustManagers(), null);
      b.sslContext(ssl);
    }
    return b.build();
  }

  private static HttpResponse<String> post(HttpClient c, String url, String type, byte[] body) throws Exception {
    return c.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(WAIT).header("content-type", type)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.ISO_8859_1));
  }

  private static void jsonAndGrpcWeb(HttpClient c, String base, HttpClient.Version version) throws Exception {
    HttpResponse<String> unary = post(c, base + "/" + SERVICE + "/Hello", "application/json", "\"json\"".getBytes());
    assertThat(unary.statusCode()).isEqualTo(200);
    assertThat(unary.version()).isEqualTo(version);
    assertThat(unary.body()).isEqualTo("\"json1\"");
    HttpResponse<String> stream = post(c, base + "/" + SERVICE + "/Count", "application/json", "\"n\"".getBytes());
    assertThat(stream.body()).isEqualTo("\"n1\"\n\"n2\"\n\"n3\"\n");
    HttpResponse<String> missing = post(c, base + "/" + SERVICE + "/Missing", "application/json", "{}".getBytes());
    assertThat(missing.statusCode()).isEqualTo(501);
    byte[] m = StringValue.of("web").toByteArray();
    byte[] frame = ByteBuffer.allocate(5 + m.length).put((byte) 0).putInt(m.length).put(m).array();
    HttpResponse<String> web = post(c, base + "/" + SERVICE + "/Hello", "application/grpc-web+proto", frame);
    assertThat(web.statusCode()).isEqualTo(200);
    assertThat(web.headers().firstValue("content-type")).hasValue("application/grpc-web+proto");
    assertThat(web.body()).contains("web1").endsWith("grpc-status:0\r\n");
  }

  @Test
  void http1Cleartext() throws Exception {
    jsonAndGrpcWeb(client(HttpClient.Version.HTTP_1_1, false), "http://127.0.0.1:" + port, HttpClient.Version.HTTP_1_1);
  }

  @Test
  void http1OverTls() throws Exception {
    jsonAndGrpcWeb(client(HttpClient.Version.HTTP_1_1, true), "https://127.0.0.1:" + port, HttpClient.Version.HTTP_1_1);
  }

  @Test
  void http2OverTls() throws Exception {
    jsonAndGrpcWeb(client(HttpClient.Version.HTTP_2, true), "https://127.0.0.1:" + port, HttpClient.Version.HTTP_2);
  }

  @Test
  void otherHttp1RequestsStillGetTheWebSocketServersAnswer() throws Exception {
    HttpResponse<String> r =
        client(HttpClient.Version.HTTP_1_1, false)
            .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/elsewhere")).timeout(WAIT).build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(404);
  }
}
