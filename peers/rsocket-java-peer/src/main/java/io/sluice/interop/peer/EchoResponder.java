package io.sluice.interop.peer;

import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.exceptions.ApplicationErrorException;
import io.rsocket.util.DefaultPayload;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The responder side of one connection of the echo server; one instance per connection, so the
 * remembered fire-and-forget / metadata-push values are connection scoped.
 *
 * <p>The echo contract (shared with Sluice's own interop peers):
 *
 * <ul>
 *   <li>request-response, in this order of precedence:
 *       <ul>
 *         <li>data longer than {@value #LARGE_THRESHOLD} bytes: data {@code len:<length>:<sum of
 *             unsigned bytes mod 1000003>};
 *         <li>{@code stats}: data {@code fnf=<last fire-and-forget data>;mp=<last metadata-push
 *             metadata>} (empty strings if none yet);
 *         <li>{@code error}: an APPLICATION_ERROR with message {@code boom};
 *         <li>{@code big:<n>}: exactly {@code n} data bytes, byte {@code i} = {@code (byte) (i %
 *             251)};
 *         <li>anything else {@code D}: data {@code echo:D}, plus the request's metadata (same bytes)
 *             if and only if the request carried metadata.
 *       </ul>
 *   <li>request-stream {@code D}: {@code D-0} … {@code D-4}, then complete; {@code many}: {@code
 *       many-0} … {@code many-999}. Items are produced on demand, so request-n is honoured.
 *   <li>request-channel: every inbound payload {@code D}, including the first, is answered with
 *       {@code echo:D}; completes when the inbound side completes.
 *   <li>fire-and-forget / metadata-push: remembered for {@code stats}.
 *   <li>on a connection whose SETUP metadata MIME type is composite metadata, request-response
 *       is routed instead (see {@link Routing}).
 * </ul>
 */
final class EchoResponder implements RSocket {

  /** Request-response data longer than this is answered with a length/checksum summary. */
  static final int LARGE_THRESHOLD = 1000;

  /** Number of items of a regular request-stream. */
  static final int STREAM_ITEMS = 5;

  /** Number of items of the {@code many} request-stream. */
  static final int MANY_ITEMS = 1000;

  private static final String BIG_PREFIX = "big:";

  private final AtomicReference<String> lastFireAndForget = new AtomicReference<>("");
  private final AtomicReference<String> lastMetadataPush = new AtomicReference<>("");

  /** Whether request metadata is composite metadata to route by (see {@link Routing}). */
  private final boolean routed;

  EchoResponder() {
    this(false);
  }

  EchoResponder(boolean routed) {
    this.routed = routed;
  }

  @Override
  public Mono<Void> fireAndForget(Payload payload) {
    try {
      lastFireAndForget.set(payload.getDataUtf8());
    } finally {
      payload.release();
    }
    return Mono.empty();
  }

  @Override
  public Mono<Void> metadataPush(Payload payload) {
    try {
      lastMetadataPush.set(payload.hasMetadata() ? payload.getMetadataUtf8() : "");
    } finally {
      payload.release();
    }
    return Mono.empty();
  }

  @Override
  public Mono<Payload> requestResponse(Payload payload) {
    byte[] data;
    byte[] metadata;
    try {
      data = Payloads.data(payload);
      metadata = Payloads.metadataOrNull(payload);
    } finally {
      payload.release();
    }
    if (routed) {
      return Mono.fromCallable(() -> Routing.answer(metadata == null ? new byte[0] : metadata, data));
    }
    return Mono.fromCallable(() -> answer(data, metadata));
  }

  private Payload answer(byte[] data, byte[] metadata) {
    if (data.length > LARGE_THRESHOLD) {
      return Payloads.text("len:" + data.length + ":" + Payloads.checksum(data));
    }
    String text = new String(data, StandardCharsets.UTF_8);
    if (text.equals("stats")) {
      return Payloads.text("fnf=" + lastFireAndForget.get() + ";mp=" + lastMetadataPush.get());
    }
    if (text.equals("error")) {
      throw new ApplicationErrorException("boom");
    }
    if (text.startsWith(BIG_PREFIX)) {
      return DefaultPayload.create(Payloads.pattern(parseSize(text.substring(BIG_PREFIX.length()))));
    }
    byte[] echoed = Payloads.concat("echo:", data);
    return metadata == null
        ? DefaultPayload.create(echoed)
        : DefaultPayload.create(echoed, metadata);
  }

  private static int parseSize(String digits) {
    try {
      int size = Integer.parseInt(digits);
      if (size < 0) {
        throw new NumberFormatException("negative");
      }
      return size;
    } catch (NumberFormatException e) {
      throw new ApplicationErrorException("bad size: " + digits);
    }
  }

  @Override
  public Flux<Payload> requestStream(Payload payload) {
    String prefix;
    try {
      prefix = payload.getDataUtf8();
    } finally {
      payload.release();
    }
    if (prefix.startsWith("seq:")) { // resume interop: N messages "0".."N-1"
      return Flux.range(0, Integer.parseInt(prefix.substring(4)))
          .map(i -> Payloads.text(Integer.toString(i)));
    }
    int count = prefix.equals("many") ? MANY_ITEMS : STREAM_ITEMS;
    // Flux.range only emits what has been requested downstream, which rsocket-java maps 1:1 to
    // the requester's initial request-n and later REQUEST_N frames.
    return Flux.range(0, count).map(i -> Payloads.text(prefix + "-" + i));
  }

  @Override
  public Flux<Payload> requestChannel(Publisher<Payload> payloads) {
    return Flux.from(payloads)
        .map(
            payload -> {
              try {
                return DefaultPayload.create(Payloads.concat("echo:", Payloads.data(payload)));
              } finally {
                payload.release();
              }
            });
  }
}
