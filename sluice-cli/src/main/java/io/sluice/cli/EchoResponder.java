package io.sluice.cli;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.reactor.ReactorResponder;
import java.nio.charset.StandardCharsets;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The echo contract other RSocket implementations test against; one instance per connection.
 *
 * <ul>
 *   <li>request-response with data D (metadata M) answers {@code echo:D} (metadata M); D = {@code
 *       stats} answers {@code fnf=<last fire-and-forget data>;mp=<last metadata-push metadata>};
 *       D = {@code error} fails with APPLICATION_ERROR {@code boom}. Extensions for large payloads:
 *       D = {@code big:<n>} answers n bytes, byte i = i % 251; data longer than 1000 bytes answers
 *       {@code len:<length>:<sum of unsigned bytes mod 1000003>}.
 *   <li>request-stream D sends {@code D-0} … {@code D-4}; D = {@code many} sends {@code many-0} …
 *       {@code many-999}; always honouring request-n.
 *   <li>request-channel answers each inbound D (the first included) with {@code echo:D}.
 *   <li>fire-and-forget and metadata-push are remembered for {@code stats}.
 * </ul>
 *
 * Handlers run on the connection's event loop, so the remembered values need no synchronization.
 */
public final class EchoResponder implements ReactorResponder {
  private final ByteBufAllocator alloc;
  private String lastFnf = "";
  private String lastMetadataPush = "";

  public EchoResponder(ByteBufAllocator alloc) {
    this.alloc = alloc;
  }

  @Override
  public Mono<Void> fireAndForget(Message request) {
    try {
      lastFnf = request.dataUtf8();
    } finally {
      request.release();
    }
    return Mono.empty();
  }

  @Override
  public Mono<Void> metadataPush(Message metadata) {
    try {
      lastMetadataPush = metadata.metadata().toString(StandardCharsets.UTF_8);
    } finally {
      metadata.release();
    }
    return Mono.empty();
  }

  @Override
  public Mono<Message> requestResponse(Message request) {
    try {
      ByteBuf data = request.data();
      if (data.readableBytes() > 1000) {
        return Mono.just(Message.utf8(alloc, "len:" + data.readableBytes() + ":" + checksum(data)));
      }
      String d = request.dataUtf8();
      if (d.equals("stats")) {
        return Mono.just(Message.utf8(alloc, "fnf=" + lastFnf + ";mp=" + lastMetadataPush));
      }
      if (d.equals("error")) {
        return Mono.error(new ApplicationErrorException("boom"));
      }
      if (d.startsWith("big:")) {
        int n = Integer.parseInt(d.substring(4));
        return Mono.just(Message.of(pattern(alloc, n)));
      }
      ByteBuf md = request.hasMetadata() ? request.metadata().retainedDuplicate() : null;
      return Mono.just(Message.of(md, utf8(alloc, "echo:" + d)));
    } catch (NumberFormatException e) {
      return Mono.error(new ApplicationErrorException("bad size: " + e.getMessage()));
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
    if (d.startsWith("seq:")) { // ./sluice client --resume --count N: N messages "0".."N-1"
      int n;
      try {
        n = Integer.parseInt(d.substring(4));
      } catch (NumberFormatException e) {
        return Flux.error(new IllegalArgumentException("seq:<count> wants a number: " + d));
      }
      return Flux.range(0, Math.max(0, n)).map(i -> Message.utf8(alloc, Integer.toString(i)));
    }
    int count = d.equals("many") ? 1000 : 5;
    return Flux.range(0, count).map(i -> Message.utf8(alloc, d + "-" + i));
  }

  @Override
  public Flux<Message> requestChannel(Message first, Flux<Message> rest) {
    return Flux.concat(Mono.just(first), rest).map(this::echo);
  }

  private Message echo(Message in) {
    try {
      return Message.utf8(alloc, "echo:" + in.dataUtf8());
    } finally {
      in.release();
    }
  }

  /** n bytes with byte i = i % 251: the large-payload check pattern. */
  // Bulk copies, not per-byte buffer calls: under PARANOID leak detection every buffer access
  // records a stack trace, which would make a 1 MiB loop take minutes.
  static ByteBuf pattern(ByteBufAllocator alloc, int n) {
    byte[] bytes = new byte[n];
    for (int i = 0; i < n; i++) {
      bytes[i] = (byte) (i % 251);
    }
    return alloc.buffer(n).writeBytes(bytes);
  }

  /** Sum of the unsigned bytes modulo 1000003. */
  static long checksum(ByteBuf b) {
    byte[] bytes = io.netty.buffer.ByteBufUtil.getBytes(b);
    long sum = 0;
    for (byte x : bytes) {
      sum = (sum + (x & 0xFF)) % 1000003;
    }
    return sum;
  }

  private static ByteBuf utf8(ByteBufAllocator alloc, String s) {
    ByteBuf b = alloc.buffer(s.length() * 3);
    b.writeCharSequence(s, StandardCharsets.UTF_8);
    return b;
  }
}
