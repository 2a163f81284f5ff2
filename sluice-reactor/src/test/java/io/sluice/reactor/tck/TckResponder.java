package io.sluice.reactor.tck;

import io.sluice.Message;
import io.sluice.reactor.ReactorResponder;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The server side of the requester-side TCK classes. A request's data is the number of messages to
 * answer with; answers are small unpooled heap messages (copied into frames by the connection).
 * A channel whose first message is {@code inbound:<key>} instead hands its inbound Flux to {@link
 * #inbound(String)} and answers with nothing.
 */
final class TckResponder implements ReactorResponder {
  private final Map<String, CompletableFuture<Flux<Message>>> inbound = new ConcurrentHashMap<>();

  /**
   * The inbound Flux of the channel whose first message is {@code inbound:<key>}: call before
   * opening that channel.
   */
  CompletableFuture<Flux<Message>> inbound(String key) {
    return inbound.computeIfAbsent(key, k -> new CompletableFuture<>());
  }

  private static long count(Message request) {
    try {
      return Long.parseLong(request.dataUtf8());
    } finally {
      request.release();
    }
  }

  static Flux<Message> messages(long n) {
    return Flux.range(0, (int) Math.min(n, Integer.MAX_VALUE)).map(i -> Message.utf8("m" + i));
  }

  @Override
  public Mono<Message> requestResponse(Message request) {
    long n = count(request);
    return n == 0 ? Mono.empty() : Mono.fromSupplier(() -> Message.utf8("response"));
  }

  @Override
  public Flux<Message> requestStream(Message request) {
    return messages(count(request));
  }

  @Override
  public Flux<Message> requestChannel(Message first, Flux<Message> rest) {
    String data = first.dataUtf8();
    if (data.startsWith("inbound:")) {
      first.release();
      CompletableFuture<Flux<Message>> f = inbound.remove(data.substring("inbound:".length()));
      if (f != null) {
        f.complete(rest);
      }
      return Flux.empty();
    }
    // Drain (and release) whatever else the requester sends; answer with exactly n messages.
    rest.subscribe(Message::release, e -> {});
    return messages(count(first));
  }
}
