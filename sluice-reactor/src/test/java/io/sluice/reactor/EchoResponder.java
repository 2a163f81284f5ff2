package io.sluice.reactor;

import static io.sluice.reactor.Harness.ALLOC;

import io.sluice.Message;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Answers every interaction predictably, tagging replies with {@code name} so a test can tell
 * which side answered; records fire-and-forget and metadata-push.
 *
 * <ul>
 *   <li>request-response: the same metadata (or none), data {@code name:data}
 *   <li>request-stream with data {@code "<n>:<word>"}: n messages {@code word0..word(n-1)}
 *   <li>request-channel: each inbound message (first included) echoed as {@code name:data}
 * </ul>
 */
class EchoResponder implements ReactorResponder {
  final String name;
  final BlockingQueue<String> seen = new LinkedBlockingQueue<>();

  EchoResponder(String name) {
    this.name = name;
  }

  static Message echo(String name, Message m) {
    try {
      return Message.utf8(ALLOC, m.hasMetadata() ? m.metadataUtf8() : null, name + ":" + m.dataUtf8());
    } finally {
      m.release();
    }
  }

  @Override
  public Mono<Void> fireAndForget(Message request) {
    seen.add("fnf:" + Harness.text(request));
    return Mono.empty();
  }

  @Override
  public Mono<Void> metadataPush(Message metadata) {
    seen.add("push:" + metadata.metadataUtf8());
    metadata.release();
    return Mono.empty();
  }

  @Override
  public Mono<Message> requestResponse(Message request) {
    return Mono.just(echo(name, request));
  }

  @Override
  public Flux<Message> requestStream(Message request) {
    String d = Harness.data(request);
    int colon = d.indexOf(':');
    int n = Integer.parseInt(d.substring(0, colon));
    String word = d.substring(colon + 1);
    return Flux.range(0, n).map(i -> Harness.msg(word + i));
  }

  @Override
  public Flux<Message> requestChannel(Message first, Flux<Message> rest) {
    return Flux.concat(Mono.just(echo(name, first)), rest.map(m -> echo(name, m)));
  }

  String take() {
    try {
      String s = seen.poll(Harness.TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      if (s == null) {
        throw new AssertionError("nothing recorded within " + Harness.TIMEOUT);
      }
      return s;
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }
}
