package io.sluice.reactor;

import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.reactor.internal.FireAndForgetMono;
import io.sluice.reactor.internal.RequestChannelFlux;
import io.sluice.reactor.internal.RequestResponseMono;
import io.sluice.reactor.internal.RequestStreamFlux;
import java.util.Objects;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Starts interactions with the peer, returning project-reactor types. Thread-safe.
 *
 * <p>Every returned publisher is cold and single-use: nothing is sent until it is subscribed (and,
 * for streams, until the first {@code request(n)}). The request message is owned by the
 * publisher: it is released once sent, or when the subscription is canceled before sending. A
 * publisher that is never subscribed keeps its message: subscribe to what you create.
 *
 * <p>Received messages belong to the subscriber, which must release them.
 */
public final class ReactorRequester {
  private final Requester requester;

  public ReactorRequester(Requester requester) {
    this.requester = Objects.requireNonNull(requester, "requester");
  }

  /** Completes when the frame is handed to the transport. */
  public Mono<Void> fireAndForget(Message request) {
    return new FireAndForgetMono(requester, Objects.requireNonNull(request, "request"), false);
  }

  public Mono<Message> requestResponse(Message request) {
    return new RequestResponseMono(requester, Objects.requireNonNull(request, "request"));
  }

  public Flux<Message> requestStream(Message request) {
    return new RequestStreamFlux(requester, Objects.requireNonNull(request, "request"));
  }

  /**
   * A request-channel: the first message of {@code outbound} travels in the REQUEST_CHANNEL frame,
   * the rest as the responder grants demand. An empty {@code outbound} completes the result without
   * sending anything.
   */
  public Flux<Message> requestChannel(Publisher<Message> outbound) {
    return new RequestChannelFlux(requester, Objects.requireNonNull(outbound, "outbound"));
  }

  /** Sends the message's metadata as a METADATA_PUSH. */
  public Mono<Void> metadataPush(Message metadata) {
    return new FireAndForgetMono(requester, Objects.requireNonNull(metadata, "metadata"), true);
  }

  /** The connection's allocator, for building messages. */
  public ByteBufAllocator alloc() {
    return requester.alloc();
  }

  /** See {@link Requester#availability()}: how much of the peer's lease is left, 0 to 1. */
  public double availability() {
    return requester.availability();
  }

  /** See {@link Requester#availability(int)}: as {@link #availability()} for a priority rank. */
  public double availability(int rank) {
    return requester.availability(rank);
  }

  public boolean isOpen() {
    return requester.isOpen();
  }

  /** Graceful close: CONNECTION_CLOSE, then live streams drain. */
  public void close() {
    requester.close();
  }

  /** Immediate close. */
  public void dispose() {
    requester.dispose();
  }

  /** Completes when the connection is closed. */
  public Mono<Void> onClose() {
    return Mono.fromFuture(requester.onClose(), false);
  }

  /** The flavor-neutral requester underneath. */
  public Requester unwrap() {
    return requester;
  }
}
