package io.sluice.transport.grpc;

import static io.sluice.transport.http2.RawH2Peer.SETTINGS_INITIAL_WINDOW_SIZE;
import static io.sluice.transport.http2.RawH2Peer.concat;
import static io.sluice.transport.http2.RawH2Peer.data;
import static io.sluice.transport.http2.RawH2Peer.headers;
import static io.sluice.transport.http2.RawH2Peer.windowUpdate;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.transport.http2.RawH2Peer;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a gRPC-Web or HTTP/JSON request body may hold on the server: the bodies of one connection
 * count against the connection's read budget (the one its gRPC calls share, twice the message
 * limit and at least 8 MiB), whatever their content type, and a body must be complete within the
 * request body timeout, over HTTP/2 and HTTP/1.1.
 */
class WebBodyLimitsTest {
  private static final Duration GUARD = Duration.ofSeconds(30); // hang guard only
  private static final int LIMIT = 4 << 20; // the message limit: the connection's budget is 8 MiB
  private static final int FRAME = 16_384;
  private static final String WEB = "application/grpc-web+proto";
  private static final String JSON = "application/json";

  private GrpcServer.Running server;

  private int start(GrpcServices services) {
    server = GrpcServer.create("127.0.0.1", 0).withServices(services).start();
    return server.port();
  }

  private static GrpcServices services() {
    return GrpcServices.of(new EchoService().registry()).withMaxInboundMessageSize(LIMIT);
  }

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close();
      server.onClose().get();
    }
  }

  private static byte[] request(int id, String contentType) {
    return headers(
        id,
        false,
        RawH2Peer.Hpack.block(
            ":method", "POST", ":scheme", "http", ":authority", "127.0.0.1", ":path", "/" + EchoService.NAME + "/Bytes",
            "content-type", contentType, "x-grpc-web", "1"));
  }

  /** The start of a body that is never finished: a message prefix declaring the limit, or a JSON string. */
  private static byte[] bodyStart(String contentType) {
    return contentType.equals(JSON)
        ? "\"".getBytes(StandardCharsets.US_ASCII)
        : ByteBuffer.allocate(5).put((byte) 0).putInt(LIMIT).array();
  }

  /** A stream's grpc-status, from its (trailers-only) headers; null while unanswered. */
  private static String grpcStatus(RawH2Peer p, int id) {
    return p.trailer(id, "grpc-status");
  }

  @ParameterizedTest
  @ValueSource(strings = {WEB, JSON})
  void theBodiesOfOneConnectionShareItsReadBudget(String contentType) throws Exception {
    int port = start(services());
    int streams = 8;
    int each = 2 << 20; // 16 MiB in all, twice the budget: at most 4 bodies fit
    byte[] chunk = new byte[FRAME];
    Arrays.fill(chunk, (byte) 'A'); // base64 letters, for the JSON string of a BytesValue
    try (RawH2Peer p = RawH2Peer.handshake(port, SETTINGS_INITIAL_WINDOW_SIZE, 1 << 30)) {
      p.send(windowUpdate(0, (1 << 30) - 65_535));
      List<byte[]> first = new ArrayList<>();
      for (int i = 0; i < streams; i++) {
        first.add(concat(request(2 * i + 1, contentType), data(2 * i + 1, false, bodyStart(contentType))));
      }
      p.send(concat(first.toArray(new byte[0][])));
      // Rounds of 16 KiB on each stream not answered yet, each fenced by a PING: the server returns
      // the window as it copies the bytes, and a stream it answered is sent nothing more.
      for (int k = 0; k < each / FRAME; k++) {
        List<byte[]> round = new ArrayList<>();
        for (int i = 0; i < streams; i++) {
          int id = 2 * i + 1;
          if (!p.resets.containsKey(id) && p.status(id) == null) {
            round.add(data(id, false, chunk));
          }
        }
        if (round.isEmpty()) {
          break;
        }
        p.send(concat(round.toArray(new byte[0][])));
        assertThat(p.pingFence(1000 + k)).as("PING after round %d (GOAWAY: %s)", k, p.goAway).isTrue();
      }
      int refused = 0;
      int open = 0;
      String message = null;
      for (int i = 0; i < streams; i++) {
        int id = 2 * i + 1;
        if (p.status(id) == null) {
          open++;
          continue;
        }
        assertThat(grpcStatus(p, id)).as("grpc-status of stream %d", id).isEqualTo("8");
        assertThat(p.status(id)).as(":status of stream %d", id).isEqualTo(contentType.equals(JSON) ? "429" : "200");
        message = p.trailer(id, "grpc-message");
        refused++;
      }
      assertThat(refused).as("bodies refused RESOURCE_EXHAUSTED (%d still open)", open).isGreaterThanOrEqualTo(streams - 4);
      if (!contentType.equals(JSON)) {
        assertThat(message).contains("would hold more than 8388608 bytes");
      }
      assertThat(p.goAway).isNull();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {WEB, JSON})
  void aBodyNotCompleteWithinTheTimeoutIsRefusedOverHttp2(String contentType) throws Exception {
    int port = start(services().withRequestBodyTimeout(Duration.ofMillis(300)));
    try (RawH2Peer p = RawH2Peer.handshake(port)) {
      p.send(concat(request(1, contentType), data(1, false, concat(bodyStart(contentType), new byte[10]))));
      p.await(q -> q.status(1) != null, GUARD);
      assertThat(p.status(1)).as(":status").isEqualTo(contentType.equals(JSON) ? "408" : "200");
      if (!contentType.equals(JSON)) {
        assertThat(grpcStatus(p, 1)).as("grpc-status").isEqualTo("4");
        assertThat(p.trailer(1, "grpc-message")).contains("request body not complete within 300 ms");
      }
      // The connection goes on.
      p.send(concat(request(3, WEB), data(3, true, concat(bodyStart(WEB), new byte[0]))));
      p.await(q -> q.status(3) != null, GUARD);
      assertThat(grpcStatus(p, 3)).as("grpc-status of a call whose body lied about its length").isNotNull();
    }
  }

  @Test
  void aBodyNotCompleteWithinTheTimeoutIsRefusedOverHttp1() throws Exception {
    int port = start(services().withRequestBodyTimeout(Duration.ofMillis(300)));
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout((int) GUARD.toMillis());
      String head =
          "POST /" + EchoService.NAME + "/Bytes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: " + WEB
              + "\r\nContent-Length: 1000\r\n\r\n";
      s.getOutputStream().write(concat(head.getBytes(StandardCharsets.US_ASCII), bodyStart(WEB), new byte[10]));
      s.getOutputStream().flush();
      InputStream in = s.getInputStream();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      byte[] b = new byte[4096];
      for (int n; (n = in.read(b)) >= 0; ) { // to the end: the server closes the connection
        got.write(b, 0, n);
      }
      String answer = got.toString(StandardCharsets.ISO_8859_1);
      assertThat(answer).startsWith("HTTP/1.1 200").containsIgnoringCase("grpc-status: 4");
    }
  }
}
