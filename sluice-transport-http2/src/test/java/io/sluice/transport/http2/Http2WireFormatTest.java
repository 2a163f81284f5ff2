package io.sluice.transport.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.test.LeakCheckExtension;
import io.sluice.test.TestMessages;
import io.sluice.transport.ServerTransport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The examples of docs/http2-stream-mapping.md, read from the page, against real ends: a Sluice
 * server answering a plain HTTP/2 client, and a Sluice client talking to a plain HTTP/2 server.
 */
@ExtendWith(LeakCheckExtension.class)
class Http2WireFormatTest {
  private static final Map<String, String> HEX = new HashMap<>();

  @BeforeAll
  static void readThePage() throws IOException {
    String page = Files.readString(Path.of("..", "docs", "http2-stream-mapping.md"));
    Matcher m = Pattern.compile("<!-- hex: ([a-z-]+) -->\\s*```text\\n(.*?)```", Pattern.DOTALL).matcher(page);
    while (m.find()) {
      StringBuilder hex = new StringBuilder();
      for (String line : m.group(2).split("\n")) {
        for (String token : line.trim().split(" ")) {
          if (!token.matches("[0-9a-f]{2}")) {
            break;
          }
          hex.append(token);
        }
      }
      HEX.put(m.group(1), hex.toString());
    }
    assertThat(HEX).containsOnlyKeys("response-request", "response-answer", "stream-request", "stream-answer");
  }

  private static Http2Headers requestHeaders(String path) {
    return new DefaultHttp2Headers()
        .method("POST")
        .scheme("http")
        .authority("127.0.0.1")
        .path(path)
        .add("content-type", "application/rsocket+http2");
  }

  /** Echoes request-response; a request-stream sends "a", then fails with "no more". */
  private static final class ExampleResponder implements Responder {
    @Override
    public StreamListener requestResponse(Message request, StreamHandle response) {
      response.nextAndComplete(TestMessages.utf8(response.alloc(), null, TestMessages.dataAndRelease(request)));
      return ignoring();
    }

    @Override
    public StreamListener requestStream(Message request, StreamHandle stream) {
      request.release();
      return new StreamListener() {
        @Override
        public void onRequest(long n) {
          stream.next(TestMessages.utf8(stream.alloc(), null, "a"));
          stream.error(new ApplicationErrorException("no more"));
        }

        @Override
        public void onNext(Message message) {
          message.release();
        }

        @Override
        public void onComplete() {}

        @Override
        public void onError(Throwable cause) {}
      };
    }

    private static StreamListener ignoring() {
      return new StreamListener() {
        @Override
        public void onNext(Message message) {
          message.release();
        }

        @Override
        public void onComplete() {}

        @Override
        public void onError(Throwable cause) {}
      };
    }
  }

  @Test
  void aSluiceServerAnswersAsThePageSays() throws Exception {
    ServerTransport.Bound bound =
        Connections.serve(
                Http2ServerTransport.create("127.0.0.1", 0),
                ConnectionOptions.defaults(),
                (setup, requester) -> new ExampleResponder())
            .get(20, TimeUnit.SECONDS);
    try (RawH2 client = RawH2.client(((InetSocketAddress) bound.address()).getPort())) {
      client.headers(1, requestHeaders("/rsocket/response"), false);
      client.data(1, HEX.get("response-request"), true);
      RawH2.Event headers = client.next();
      assertThat(headers.kind()).isEqualTo("HEADERS");
      assertThat(headers.headers().status().toString()).isEqualTo("200");
      assertThat(headers.headers().get("content-type").toString()).isEqualTo("application/rsocket+http2");
      assertThat(headers.endStream()).isFalse();
      RawH2.Event data = client.next();
      assertThat(data.kind()).isEqualTo("DATA");
      assertThat(data.hex()).isEqualTo(HEX.get("response-answer"));
      RawH2.Event trailers = client.next();
      assertThat(trailers.kind()).isEqualTo("HEADERS");
      assertThat(trailers.endStream()).isTrue();
      assertThat(trailers.headers().get("rsocket-status").toString()).isEqualTo("0");

      client.headers(3, requestHeaders("/rsocket/stream"), false);
      client.data(3, HEX.get("stream-request"), false);
      assertThat(client.next().headers().status().toString()).isEqualTo("200");
      assertThat(client.next().hex()).isEqualTo(HEX.get("stream-answer"));
      RawH2.Event error = client.next();
      assertThat(error.endStream()).isTrue();
      assertThat(error.headers().get("rsocket-status").toString()).isEqualTo("513");
      assertThat(error.headers().get("rsocket-message").toString()).isEqualTo("no more");
    } finally {
      bound.close();
    }
  }

  @Test
  void aSluiceClientSpeaksAsThePageSays() throws Exception {
    try (RawH2 server = RawH2.server()) {
      Requester client =
          Connections.connect(
                  Http2ClientTransport.create("127.0.0.1", server.port()),
                  ConnectionOptions.defaults(),
                  ClientSetup.defaults(),
                  r -> new Responder() {})
              .get(20, TimeUnit.SECONDS);
      try {
        CompletableFuture<String> response = new CompletableFuture<>();
        client.requestResponse(TestMessages.utf8(client.alloc(), null, "hi"), collect(response));
        RawH2.Event request = server.next();
        assertThat(request.kind()).isEqualTo("HEADERS");
        assertThat(request.streamId()).isEqualTo(1);
        assertThat(request.headers().method().toString()).isEqualTo("POST");
        assertThat(request.headers().path().toString()).isEqualTo("/rsocket/response");
        assertThat(request.headers().scheme().toString()).isEqualTo("http");
        assertThat(request.headers().get("content-type").toString()).isEqualTo("application/rsocket+http2");
        RawH2.Event data = server.next();
        assertThat(data.hex()).isEqualTo(HEX.get("response-request"));
        assertThat(data.endStream()).isTrue();
        server.headers(1, new DefaultHttp2Headers().status("200").add("content-type", "application/rsocket+http2"), false);
        server.data(1, HEX.get("response-answer"), false);
        server.headers(1, new DefaultHttp2Headers().add("rsocket-status", "0"), true);
        assertThat(response.get(20, TimeUnit.SECONDS)).isEqualTo("hi");

        CompletableFuture<String> stream = new CompletableFuture<>();
        client.requestStream(TestMessages.utf8(client.alloc(), "m", "go"), 2, collect(stream));
        RawH2.Event streamRequest = server.next();
        assertThat(streamRequest.streamId()).isEqualTo(3);
        assertThat(streamRequest.headers().path().toString()).isEqualTo("/rsocket/stream");
        RawH2.Event streamData = server.next();
        assertThat(streamData.hex()).isEqualTo(HEX.get("stream-request"));
        assertThat(streamData.endStream()).isFalse();
        server.headers(3, new DefaultHttp2Headers().status("200").add("content-type", "application/rsocket+http2"), false);
        server.data(3, HEX.get("stream-answer"), false);
        server.headers(3, new DefaultHttp2Headers().add("rsocket-status", "513").add("rsocket-message", "no more"), true);
        assertThat(stream)
            .failsWithin(20, TimeUnit.SECONDS)
            .withThrowableOfType(java.util.concurrent.ExecutionException.class)
            .havingCause()
            .isInstanceOf(ApplicationErrorException.class)
            .withMessage("no more [after: a]");
        RawH2.Event end = server.next();
        assertThat(end.kind()).isEqualTo("DATA");
        assertThat(end.streamId()).isEqualTo(3);
        assertThat(end.hex()).isEmpty();
        assertThat(end.endStream()).isTrue();
      } finally {
        client.dispose();
      }
    }
  }

  /** Collects data as text; completes with them joined, or fails with the error and what came. */
  private static StreamListener collect(CompletableFuture<String> result) {
    List<String> received = new ArrayList<>();
    return new StreamListener() {
      @Override
      public void onNext(Message message) {
        received.add(TestMessages.dataAndRelease(message));
      }

      @Override
      public void onComplete() {
        result.complete(String.join(",", received));
      }

      @Override
      public void onError(Throwable cause) {
        result.completeExceptionally(
            new ApplicationErrorException(cause.getMessage() + " [after: " + String.join(",", received) + "]"));
        if (!(cause instanceof ApplicationErrorException)) {
          result.obtrudeException(cause);
        }
      }
    };
  }
}
