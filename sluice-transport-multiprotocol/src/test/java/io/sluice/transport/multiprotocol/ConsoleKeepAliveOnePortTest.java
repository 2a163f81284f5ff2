package io.sluice.transport.multiprotocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.StringValue;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.grpc.GrpcServices;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The console on the one port keeps an HTTP/1.1 connection only while its requests are the gRPC
 * routes' (the console, HTTP/JSON, gRPC-Web): a later request on the same kept-alive connection
 * for another route (the WebSocket upgrade) reaches that route, whether it comes after the
 * console's answer or pipelined behind the console's request.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS) // hang guard only
class ConsoleKeepAliveOnePortTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String SERVICE = "sluice.test.ConsoleKeepAlive";
  private static final String UPGRADE =
      "GET /rsocket HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
          + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
  private static final String CONSOLE = "GET /console/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

  private static final LinkedBlockingQueue<DuplexTransport> upgraded = new LinkedBlockingQueue<>();
  private static ServerTransport.Bound server;
  private static int port;

  @BeforeAll
  static void bind() {
    MethodDescriptor<StringValue, StringValue> hello =
        MethodDescriptor.<StringValue, StringValue>builder()
            .service(SERVICE)
            .method("Hello")
            .kind(MethodKind.UNARY)
            .requestParser(StringValue.parser())
            .responseParser(StringValue.parser())
            .build();
    ServiceRegistry registry =
        ServiceRegistry.builder()
            .add(
                ServiceDefinition.builder(SERVICE)
                    .add(
                        hello,
                        call -> {
                          call.request(1);
                          return new ServerCall.Listener<>() {
                            String value; // the request, until the peer allows the answer
                            boolean allowed;

                            @Override
                            public void onMessage(StringValue m) {
                              value = m.getValue();
                              answer();
                            }

                            @Override
                            public void onReady(long n) {
                              allowed = true;
                              answer();
                            }

                            private void answer() {
                              if (value != null && allowed) {
                                call.sendMessage(StringValue.of("hello " + value));
                                call.close(Status.OK);
                                value = null;
                              }
                            }

                            @Override
                            public void onHalfClose() {}

                            @Override
                            public void onCancel() {}
                          };
                        })
                    .build())
            .build();
    server =
        MultiProtocolServerTransport.create("127.0.0.1", 0)
            .withHttpRoutes(GrpcServices.of(registry).withConsole().httpRoutes())
            .bind(upgraded::add)
            .orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS)
            .join();
    port = ((InetSocketAddress) server.address()).getPort();
  }

  @AfterAll
  static void close() {
    DuplexTransport t;
    while ((t = upgraded.poll()) != null) {
      t.close();
    }
    server.close();
    server.onClose().orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
  }

  /** A response read off the socket: status, headers (names in lower case), body. */
  private record Response(int status, Map<String, String> headers, String body) {}

  private static Response read(InputStream in) throws IOException {
    String head = line(in);
    int status = Integer.parseInt(head.split(" ")[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    for (String l = line(in); !l.isEmpty(); l = line(in)) {
      int colon = l.indexOf(':');
      headers.put(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim());
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    if (headers.containsKey("content-length")) {
      body.write(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
    } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      for (int n = Integer.parseInt(line(in), 16); n > 0; n = Integer.parseInt(line(in), 16)) {
        body.write(in.readNBytes(n));
        line(in);
      }
      line(in);
    }
    return new Response(status, headers, body.toString(StandardCharsets.UTF_8));
  }

  private static String line(InputStream in) throws IOException {
    StringBuilder b = new StringBuilder();
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0) {
        throw new IOException("connection closed; line so far: " + b);
      }
      if (c != '\r') {
        b.append((char) c);
      }
    }
    return b.toString();
  }

  private static Socket connect() throws IOException {
    Socket s = new Socket("127.0.0.1", port);
    s.setSoTimeout((int) WAIT.toMillis());
    return s;
  }

  private static void send(OutputStream out, String request) throws IOException {
    out.write(request.getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  private static String json(String value) {
    String body = "\"" + value + "\"";
    return "POST /" + SERVICE + "/Hello HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + "Content-Length: " + body.length() + "\r\n\r\n" + body;
  }

  private static void assertConsolePage(Response r) {
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.headers().get("content-type")).startsWith("text/html");
    assertThat(r.headers().get("connection")).isNotEqualToIgnoringCase("close");
  }

  @Test
  void aWebSocketUpgradeAfterTheConsolesPageOnTheSameConnectionIsUpgraded() throws Exception {
    try (Socket s = connect()) {
      InputStream in = s.getInputStream();
      send(s.getOutputStream(), CONSOLE);
      assertConsolePage(read(in));
      send(s.getOutputStream(), UPGRADE);
      Response r = read(in);
      assertThat(r.status()).isEqualTo(101);
      assertThat(r.headers().get("upgrade")).isEqualToIgnoringCase("websocket");
      assertThat(upgraded.poll(WAIT.toSeconds(), TimeUnit.SECONDS)).isNotNull();
    }
  }

  @Test
  void aWebSocketUpgradePipelinedBehindConsoleAndJsonRequestsIsUpgradedAfterTheirAnswers() throws Exception {
    try (Socket s = connect()) {
      InputStream in = s.getInputStream();
      send(s.getOutputStream(), CONSOLE + json("pipelined") + UPGRADE);
      assertConsolePage(read(in));
      Response answer = read(in);
      assertThat(answer.status()).isEqualTo(200);
      assertThat(answer.body()).isEqualTo("\"hello pipelined\"");
      Response r = read(in);
      assertThat(r.status()).isEqualTo(101);
      assertThat(upgraded.poll(WAIT.toSeconds(), TimeUnit.SECONDS)).isNotNull();
    }
  }

  /** The routes' own requests keep the connection: the console, then JSON, then the console again. */
  @Test
  void theRoutesOwnRequestsShareAKeptAliveConnection() throws Exception {
    try (Socket s = connect()) {
      InputStream in = s.getInputStream();
      send(s.getOutputStream(), CONSOLE);
      assertConsolePage(read(in));
      send(s.getOutputStream(), json("again"));
      assertThat(read(in).body()).isEqualTo("\"hello again\"");
      send(s.getOutputStream(), CONSOLE);
      assertConsolePage(read(in));
    }
  }

  /**
   * A plain request for another path after the console's page gets the WebSocket server's answer
   * for it (404, and the connection closed), not the gRPC routes'.
   */
  @Test
  void anotherPathAfterTheConsoleGetsTheWebSocketServersAnswer() throws Exception {
    try (Socket s = connect()) {
      InputStream in = s.getInputStream();
      send(s.getOutputStream(), CONSOLE);
      assertConsolePage(read(in));
      send(s.getOutputStream(), "GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      Response r = read(in);
      assertThat(r.status()).isEqualTo(404);
      assertThat(in.read()).isEqualTo(-1); // the WebSocket server closes after a refusal
    }
  }
}
