package io.sluice.flavor.tck.rs;

import io.sluice.Message;
import io.sluice.reactor.ReactorRequester;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * For the TCK of a responder's channel inbound: the client opens a channel whose first message is
 * {@code inbound:<key>} and which then offers n more messages (made only when pulled, from the
 * untracked allocator, as the server's inbound subscriber asks for them) and completes; the server
 * hands the channel's inbound publisher to {@link #offer} and answers with nothing. For the TCK's
 * failed publisher ({@link #openFailed}) the client's outbound fails after the first message.
 */
final class InboundChannels<P> {
  private static final AtomicInteger KEYS = new AtomicInteger();
  private final Map<String, CompletableFuture<P>> waiting = new ConcurrentHashMap<>();

  /** Called by the server's channel handler; returns true if {@code first} named a waiting key. */
  boolean offer(Message first, P inbound) {
    String data = first.dataUtf8();
    first.release();
    CompletableFuture<P> f = waiting.remove(data.substring("inbound:".length()));
    if (f == null) {
      return false;
    }
    f.complete(inbound);
    return true;
  }

  /** Opens a channel carrying {@code elements} messages after the first; returns its inbound. */
  P open(TckPeers peers, long elements) {
    ReactorRequester r = new ReactorRequester(peers.client);
    return open(
        r,
        Flux.range(0, (int) Math.min(elements, Integer.MAX_VALUE))
            .map(i -> Message.utf8(r.alloc(), "m" + i)));
  }

  /**
   * Opens a channel whose requester's outbound fails right after the first message (the client
   * sends ERROR on the stream); returns its inbound, which fails without any element.
   */
  P openFailed(TckPeers peers) {
    return open(
        new ReactorRequester(peers.client),
        Flux.error(new IllegalStateException("the requester's outbound failed")));
  }

  private P open(ReactorRequester r, Flux<Message> afterFirst) {
    String key = Integer.toString(KEYS.incrementAndGet());
    CompletableFuture<P> f = new CompletableFuture<>();
    waiting.put(key, f);
    Flux<Message> outbound =
        Flux.concat(Mono.fromSupplier(() -> Message.utf8(r.alloc(), "inbound:" + key)), afterFirst);
    r.requestChannel(outbound).subscribe(Message::release, e -> {});
    try {
      return f.get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("the server did not receive the channel", e);
    }
  }
}
