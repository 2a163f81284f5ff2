package io.sluice.browserdemo;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The page's HTTP side, request by request (EmbeddedChannel; pooled buffers, leak-checked). */
class PageHandlerTest {
  private static final byte[] HTML = "<html>page</html>".getBytes(StandardCharsets.UTF_8);
  private static final byte[] SCRIPT = "console.log(1)".getBytes(StandardCharsets.UTF_8);

  private final List<String> reports = new ArrayList<>();
  private EmbeddedChannel channel;

  private EmbeddedChannel channel(Page page) {
    channel = new EmbeddedChannel(new PageHandler(page, reports::add));
    return channel;
  }

  @AfterEach
  void close() {
    if (channel != null) {
      channel.finishAndReleaseAll();
    }
  }

  private FullHttpResponse exchange(HttpMethod method, String uri, String body) {
    ByteBuf content = PooledByteBufAllocator.DEFAULT.buffer();
    content.writeCharSequence(body, StandardCharsets.UTF_8);
    FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri, content);
    channel.writeInbound(request);
    assertThat(request.refCnt()).as("the request is released").isZero();
    FullHttpResponse response = channel.readOutbound();
    assertThat(response).as("a response to %s %s", method, uri).isNotNull();
    return response;
  }

  private static String body(FullHttpResponse r) {
    try {
      return r.content().toString(StandardCharsets.UTF_8);
    } finally {
      r.release();
    }
  }

  @Test
  void servesThePageAndItsScriptWithTypesAndNoCaching() {
    channel(Page.of(HTML, SCRIPT));
    for (String uri : List.of("/", "/index.html", "/?stream=10")) {
      FullHttpResponse r = exchange(HttpMethod.GET, uri, "");
      assertThat(r.status()).isEqualTo(HttpResponseStatus.OK);
      assertThat(r.headers().get(HttpHeaderNames.CONTENT_TYPE)).isEqualTo("text/html; charset=utf-8");
      assertThat(r.headers().get(HttpHeaderNames.CACHE_CONTROL)).isEqualTo("no-store");
      assertThat(r.headers().get("x-content-type-options")).isEqualTo("nosniff");
      assertThat(r.headers().getInt(HttpHeaderNames.CONTENT_LENGTH)).isEqualTo(HTML.length);
      assertThat(body(r)).isEqualTo("<html>page</html>");
    }
    FullHttpResponse js = exchange(HttpMethod.GET, "/app.js", "");
    assertThat(js.headers().get(HttpHeaderNames.CONTENT_TYPE)).startsWith("text/javascript");
    assertThat(body(js)).isEqualTo("console.log(1)");
    assertThat(channel.isOpen()).as("HTTP/1.1 keeps the connection").isTrue();
  }

  @Test
  void headAnswersTheLengthWithoutTheBody() {
    channel(Page.of(HTML, SCRIPT));
    FullHttpResponse r = exchange(HttpMethod.HEAD, "/app.js", "");
    assertThat(r.status()).isEqualTo(HttpResponseStatus.OK);
    assertThat(r.headers().getInt(HttpHeaderNames.CONTENT_LENGTH)).isEqualTo(SCRIPT.length);
    assertThat(body(r)).isEmpty();
  }

  @Test
  void aReportGoesToTheListener() {
    channel(Page.of(HTML, SCRIPT));
    FullHttpResponse r = exchange(HttpMethod.POST, "/report", "result=pass\nstream.received=5\n");
    assertThat(r.status()).isEqualTo(HttpResponseStatus.NO_CONTENT);
    r.release();
    assertThat(reports).containsExactly("result=pass\nstream.received=5\n");
  }

  @Test
  void otherPathsAndMethodsAreRefused() {
    channel(Page.of(HTML, SCRIPT));
    FullHttpResponse missing = exchange(HttpMethod.GET, "/etc/passwd", "");
    assertThat(missing.status()).isEqualTo(HttpResponseStatus.NOT_FOUND);
    missing.release();
    FullHttpResponse post = exchange(HttpMethod.POST, "/", "x");
    assertThat(post.status()).isEqualTo(HttpResponseStatus.METHOD_NOT_ALLOWED);
    assertThat(post.headers().get(HttpHeaderNames.ALLOW)).isEqualTo("GET, HEAD");
    post.release();
    FullHttpResponse getReport = exchange(HttpMethod.GET, "/report", "");
    assertThat(getReport.status()).isEqualTo(HttpResponseStatus.METHOD_NOT_ALLOWED);
    getReport.release();
    assertThat(reports).isEmpty();
  }

  @Test
  void withoutTheBundleThePageSaysItIsUnavailable() {
    channel(Page.of(HTML, null));
    FullHttpResponse r = exchange(HttpMethod.GET, "/", "");
    assertThat(r.status()).isEqualTo(HttpResponseStatus.SERVICE_UNAVAILABLE);
    assertThat(body(r)).contains("browser page is unavailable").contains("npm");
    FullHttpResponse js = exchange(HttpMethod.GET, "/app.js", "");
    assertThat(js.status()).isEqualTo(HttpResponseStatus.NOT_FOUND);
    js.release();
  }

  @Test
  void connectionCloseIsHonoured() {
    channel(Page.of(HTML, SCRIPT));
    FullHttpRequest request =
        new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/");
    request.headers().set(HttpHeaderNames.CONNECTION, "close");
    channel.writeInbound(request);
    FullHttpResponse r = channel.readOutbound();
    assertThat(r.headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close");
    assertThat(ByteBufUtil.getBytes(r.content())).isEqualTo(HTML);
    r.release();
    assertThat(channel.isOpen()).isFalse();
  }
}
