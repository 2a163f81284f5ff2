package io.sluice.browserdemo;

import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.reactor.ReactorResponder;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What the browser page asks of the server; one instance per connection.
 *
 * <ul>
 *   <li>request-stream {@code count:N} (1 &le; N &le; {@link BrowserDemo#MAX_STREAM_COUNT}) sends
 *       the messages {@code 0}, {@code 1}, ... {@code N-1} as decimal text, honouring request-n,
 *       then completes; anything else fails with APPLICATION_ERROR.
 *   <li>request-response D answers {@code echo:D}.
 * </ul>
 *
 * Handlers run on the connection's event loop. Each request is released here; the messages sent
 * are released by Sluice once written.
 */
final class DemoResponder implements ReactorResponder {
  private final ByteBufAllocator alloc;

  DemoResponder(ByteBufAllocator alloc) {
    this.alloc = alloc;
  }

  @Override
  public Mono<Message> requestResponse(Message request) {
    try {
      return Mono.just(Message.utf8(alloc, "echo:" + request.dataUtf8()));
    } finally {
      request.release();
    }
  }

  @Override
  public Flux<Message> requestStream(Message request) {
    String d;
    try {
      d = request.dataUtf8();
    } finally {
      request.release();
    }
    int count;
    try {
      count = d.startsWith("count:") ? Integer.parseInt(d.substring(6)) : -1;
    } catch (NumberFormatException e) {
      count = -1;
    }
    if (count < 1 || count > BrowserDemo.MAX_STREAM_COUNT) {
      String shown = d.length() > 40 ? d.substring(0, 40) + "..." : d;
      return Flux.error(
          new ApplicationErrorException(
              "request-stream takes 'count:N' with N in 1.." + BrowserDemo.MAX_STREAM_COUNT
                  + ", got '" + shown + "'"));
    }
    return Flux.range(0, count).map(i -> Message.utf8(alloc, Integer.toString(i)));
  }
}
