package io.sluice.transport.grpc;

import static io.sluice.transport.http2.RawH2Peer.concat;
import static io.sluice.transport.http2.RawH2Peer.data;
import static io.sluice.transport.http2.RawH2Peer.headers;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.StringValue;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.transport.http2.RawH2Peer;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/**
 * gRPC-Web and HTTP/JSON streams that fail after their first messages, and gRPC-Web over h2c
 * (HTTP/2 with prior knowledge, which the JDK's client does not speak) with a raw HTTP/2 peer.
 */
class WebStreamTest {
  private static final Duration GUARD = Duration.ofSeconds(20); // hang guard only
  private static final String FAIL = "sluice.test.Fail";

  private GrpcServer.Running server;

  /** Two responses ("a1", "a2" for "a"), then NOT_FOUND "gone". */
  private static ServiceRegistry failing() {
    ServerCallHandler<StringValue, StringValue> twoThenFail =
        call -> {
          call.request(1);
          return new EchoService.Adapter<>() {
            @Override
            public void onMessage(StringValue m) {
              call.sendMessage(StringValue.of(m.getValue() + "1"));
              call.sendMessage(StringValue.of(m.getValue() + "2"));
              call.close(Status.of(Status.Code.NOT_FOUND, "gone"));
            }
          };
        };
    return ServiceRegistry.builder()
        .add(
            ServiceDefinition.builder(FAIL)
                .add(
                    MethodDescriptor.<StringValue, StringValue>builder()
                        .service(FAIL).method("Some").kind(MethodKind.SERVER_STREAMING)
                        .requestParser(StringValue.parser()).responseParser(StringValue.parser()).build(),
                    twoThenFail)
                .build())
        .build();
  }

  /**
   * Headers, three responses and the close, all from another thread while the event loop is held
   * (the handler's onMessage waits for that thread): they reach the loop queued, and must keep
   * their order.
   */
  private static ServiceRegistry offLoop() {
    ServerCallHandler<StringValue, StringValue> fromElsewhere =
        call -> {
          call.request(1);
          return new EchoService.Adapter<>() {
            @Override
            public void onMessage(StringValue m) {
              Thread t =
                  new Thread(
                      () -> {
                        call.sendHeaders(io.sluice.rpc.Headers.of("x-from", "elsewhere"));
                        for (int i = 1; i <= 3; i++) {
                          call.sendMessage(StringValue.of(m.getValue() + i));
                        }
                        call.close(Status.OK);
                      });
              t.start();
              try {
                t.join(); // the loop is held until all of it is queued
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          };
        };
    return ServiceRegistry.builder()
        .add(
            ServiceDefinition.builder(FAIL)
                .add(
                    MethodDescriptor.<StringValue, StringValue>builder()
                        .service(FAIL).method("Elsewhere").kind(MethodKind.SERVER_STREAMING)
                        .requestParser(StringValue.parser()).responseParser(StringValue.parser()).build(),
                    fromElsewhere)
                .build())
        .build();
  }

  @ParameterizedTest
  @EnumSource(GrpcWebTest.Mode.class)
  void whatAHandlerSendsFromAnotherThreadKeepsItsOrder(GrpcWebTest.Mode mode) throws Exception {
    String base = start(mode, offLoop());
    java.net.http.HttpClient c = GrpcWebTest.client(mode);
    HttpResponse<byte[]> web =
        WebHttp.post(c, base + "/" + FAIL + "/Elsewhere", GrpcWebTest.WEB, WebHttp.frame(StringValue.of("w")));
    assertThat(web.headers().firstValue("x-from")).hasValue("elsewhere");
    WebHttp.Body body = WebHttp.parse(web.body());
    assertThat(body.messages()).extracting(b -> StringValue.parseFrom(b).getValue()).containsExactly("w1", "w2", "w3");
    assertThat(body.trailers()).containsEntry("grpc-status", "0");
    HttpResponse<byte[]> json =
        WebHttp.post(c, base + "/" + FAIL + "/Elsewhere", "application/json", "\"j\"".getBytes(StandardCharsets.UTF_8));
    assertThat(new String(json.body(), StandardCharsets.UTF_8)).isEqualTo("\"j1\"\n\"j2\"\n\"j3\"\n");
  }

  private String start(GrpcWebTest.Mode mode, ServiceRegistry registry) {
    GrpcServer s = GrpcServer.create("127.0.0.1", 0).withServices(GrpcServices.of(registry));
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
    }
  }

  @ParameterizedTest
  @EnumSource(GrpcWebTest.Mode.class)
  void aGrpcWebStreamEndsWithTheFailureInItsTrailersFrame(GrpcWebTest.Mode mode) throws Exception {
    String base = start(mode, failing());
    HttpResponse<byte[]> r =
        WebHttp.post(GrpcWebTest.client(mode), base + "/" + FAIL + "/Some", GrpcWebTest.WEB, WebHttp.frame(StringValue.of("a")));
    assertThat(r.statusCode()).isEqualTo(200);
    WebHttp.Body body = WebHttp.parse(r.body());
    assertThat(body.messages()).extracting(b -> StringValue.parseFrom(b).getValue()).containsExactly("a1", "a2");
    assertThat(body.trailers()).containsEntry("grpc-status", "5").containsEntry("grpc-message", "gone");
  }

  @ParameterizedTest
  @EnumSource(GrpcWebTest.Mode.class)
  void anNdjsonStreamEndsWithAnErrorLine(GrpcWebTest.Mode mode) throws Exception {
    String base = start(mode, failing());
    HttpResponse<byte[]> r =
        WebHttp.post(GrpcWebTest.client(mode), base + "/" + FAIL + "/Some", "application/json",
            "\"b\"".getBytes(StandardCharsets.UTF_8));
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(new String(r.body(), StandardCharsets.UTF_8))
        .isEqualTo("\"b1\"\n\"b2\"\n{\"error\":{\"code\":5,\"message\":\"gone\"}}\n");
  }

  @Test
  void grpcWebOverH2c() throws Exception {
    start(GrpcWebTest.Mode.H1_CLEARTEXT, new EchoService().registry()); // cleartext: h2c too
    byte[] block =
        RawH2Peer.Hpack.block(
            ":method", "POST", ":scheme", "http", ":authority", "127.0.0.1", ":path", "/" + EchoService.NAME + "/Count",
            "content-type", "application/grpc-web-text", "x-grpc-web", "1");
    byte[] body = java.util.Base64.getEncoder().encode(WebHttp.frame(StringValue.of("3:2")));
    try (RawH2Peer p = RawH2Peer.handshake(server.port())) {
      p.send(concat(headers(1, false, block), data(1, true, body)));
      p.await(peer -> endedWithData(peer, 1), GUARD);
      assertThat(p.status(1)).isEqualTo("200");
      ByteArrayOutputStream text = new ByteArrayOutputStream();
      for (RawH2Peer.Frame f : p.frames) {
        if (f.streamId() == 1 && f.type() == RawH2Peer.DATA) {
          text.writeBytes(f.payload());
        }
      }
      WebHttp.Body parsed = WebHttp.parse(WebHttp.fromText(text.toByteArray()));
      assertThat(parsed.messages()).hasSize(3).allMatch(m -> m.equals(bytesValue(2)));
      assertThat(parsed.trailers()).containsEntry("grpc-status", "0");
    }
  }

  private static ByteString bytesValue(int size) {
    return com.google.protobuf.BytesValue.of(ByteString.copyFrom(new byte[size])).toByteString();
  }

  private static boolean endedWithData(RawH2Peer p, int stream) {
    for (RawH2Peer.Frame f : p.frames) {
      if (f.streamId() == stream && f.type() == RawH2Peer.DATA && (f.flags() & RawH2Peer.FLAG_END_STREAM) != 0) {
        return true;
      }
    }
    return false;
  }
}
