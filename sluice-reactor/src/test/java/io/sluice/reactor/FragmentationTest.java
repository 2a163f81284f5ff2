package io.sluice.reactor;

import static io.sluice.reactor.Harness.ALLOC;
import static io.sluice.reactor.Harness.TIMEOUT;
import static io.sluice.reactor.Harness.msg;
import static io.sluice.reactor.Harness.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.sluice.ErrorCode;
import io.sluice.Message;
import io.sluice.core.ConnectionOptions;
import io.sluice.exceptions.InvalidException;
import io.sluice.exceptions.SluiceException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** Large messages through a small MTU, both directions, and the reassembly limit. */
class FragmentationTest {

  // Buffers are filled and read in bulk: under paranoid leak detection every single-byte access
  // to a tracked buffer records a stack trace.

  private static final java.util.Map<Long, byte[]> PATTERNS = new java.util.concurrent.ConcurrentHashMap<>();

  /** The pattern bytes; they depend on the seed only modulo 256, so they are cached (read-only). */
  static byte[] bytes(int size, int mul, int seed) {
    long key = ((long) size << 16) | ((long) mul << 8) | (seed & 0xFF);
    return PATTERNS.computeIfAbsent(key, k -> pattern(size, mul, seed));
  }

  private static byte[] pattern(int size, int mul, int seed) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) (i * mul + seed);
    }
    return b;
  }

  /** A message whose bytes encode (seed, index) so corruption or reordering shows. */
  static Message patterned(int metadataSize, int dataSize, int seed) {
    ByteBuf md = metadataSize < 0 ? null : ALLOC.buffer(metadataSize).writeBytes(bytes(metadataSize, 7, seed));
    ByteBuf data = ALLOC.buffer(dataSize).writeBytes(bytes(dataSize, 13, seed));
    return Message.of(md, data);
  }

  /** Checks a message made by {@link #patterned} and releases it. */
  static void check(Message m, int metadataSize, int dataSize, int seed) {
    try {
      if (metadataSize < 0) {
        assertThat(m.hasMetadata()).isFalse();
      } else {
        byte[] md = ByteBufUtil.getBytes(m.metadata());
        if (!java.util.Arrays.equals(md, bytes(metadataSize, 7, seed))) {
          throw new AssertionError(
              "metadata of message " + seed + " is wrong (" + md.length + " bytes, expected " + metadataSize + ")");
        }
      }
      byte[] data = ByteBufUtil.getBytes(m.data());
      if (!java.util.Arrays.equals(data, bytes(dataSize, 13, seed))) {
        throw new AssertionError(
            "data of message " + seed + " is wrong (" + data.length + " bytes, expected " + dataSize + ")");
      }
    } finally {
      m.release();
    }
  }

  /** Echoes whatever arrives, as it is: the message goes back out (and is fragmented again). */
  static final class Mirror implements ReactorResponder {
    final BlockingQueue<Message> fnf = new LinkedBlockingQueue<>();

    @Override
    public Mono<Void> fireAndForget(Message request) {
      fnf.add(request);
      return Mono.empty();
    }

    @Override
    public Mono<Message> requestResponse(Message request) {
      return Mono.just(request);
    }

    @Override
    public Flux<Message> requestStream(Message request) {
      // Three copies: the request and two more of the same content.
      Message a = request.retain(2);
      return Flux.just(a, a, a);
    }

    @Override
    public Flux<Message> requestChannel(Message first, Flux<Message> rest) {
      return Flux.concat(Mono.just(first), rest);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void largeMessagesRoundTripThroughEveryInteraction(TestTransport t) throws Exception {
    for (int mtu : new int[] {64, 200, 1024}) {
      ConnectionOptions o = ConnectionOptions.builder().mtu(mtu).build();
      Mirror mirror = new Mirror();
      try (Harness h = Harness.builder(t).options(o).responder(mirror).start()) {
        int md = 5 * mtu + 11;
        int data = 17 * mtu + 5;
        check(h.client.requestResponse(patterned(md, data, 1)).block(TIMEOUT), md, data, 1);
        check(h.client.requestResponse(patterned(-1, data, 2)).block(TIMEOUT), -1, data, 2);
        check(h.client.requestResponse(patterned(md, 0, 3)).block(TIMEOUT), md, 0, 3);
        for (Message m : h.client.requestStream(patterned(md, data, 4)).collectList().block(TIMEOUT)) {
          check(m, md, data, 4);
        }
        int[] seeds = {5, 6, 7, 8};
        java.util.List<Message> back =
            h.client
                .requestChannel(Flux.fromArray(new Integer[] {5, 6, 7, 8}).map(s -> patterned(md, data + s, s)))
                .collectList()
                .block(TIMEOUT);
        assertThat(back).hasSize(4);
        for (int i = 0; i < 4; i++) {
          check(back.get(i), md, data + seeds[i], seeds[i]);
        }
        h.client.fireAndForget(patterned(md, data, 9)).block(TIMEOUT);
        check(mirror.fnf.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS), md, data, 9);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void serverToClientFragmentation(TestTransport t) {
    ConnectionOptions o = ConnectionOptions.builder().mtu(128).build();
    try (Harness h =
        Harness.builder(t).options(o).responder(new EchoResponder("server")).clientResponder(r -> new Mirror()).start()) {
      ReactorRequester server = h.serverRequester();
      check(server.requestResponse(patterned(3000, 9000, 11)).block(TIMEOUT), 3000, 9000, 11);
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void longFragmentedStreamArrivesIntact(TestTransport t) {
    int count = 10_000;
    int size = 5 * 1024;
    ConnectionOptions o = ConnectionOptions.builder().mtu(1024).build();
    ReactorResponder server =
        new ReactorResponder() {
          @Override
          public Flux<Message> requestStream(Message request) {
            request.release();
            return Flux.range(0, count).map(i -> patterned(i % 3 == 0 ? 100 : -1, size, i));
          }
        };
    try (Harness h = Harness.builder(t).options(o).responder(server).start()) {
      AtomicLong seen = new AtomicLong();
      AtomicReference<Throwable> bad = new AtomicReference<>();
      h.client
          .requestStream(msg("go"))
          .doOnNext(
              m -> {
                int i = (int) seen.getAndIncrement();
                try {
                  check(m, i % 3 == 0 ? 100 : -1, size, i);
                } catch (Throwable e) {
                  bad.compareAndSet(null, e);
                }
              })
          .blockLast(Duration60.TIMEOUT);
      assertThat(bad.get()).isNull();
      assertThat(seen).hasValue(count);
    }
  }

  /** Longer bound for the bulk test only; it normally takes a second or two. */
  static final class Duration60 {
    static final java.time.Duration TIMEOUT = java.time.Duration.ofSeconds(60);
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void reassemblyLimitFailsTheStreamWithInvalidAndTheConnectionStaysUsable(TestTransport t) {
    // The client fragments at 256 bytes; the server accepts at most 4 KiB rebuilt.
    ConnectionOptions client = ConnectionOptions.builder().mtu(256).build();
    ConnectionOptions server = ConnectionOptions.builder().mtu(256).maxReassembledSize(4096).build();
    try (Harness h =
        Harness.builder(t).clientOptions(client).serverOptions(server).responder(new Mirror()).start()) {
      StepVerifier.create(h.client.requestResponse(patterned(100, 5000, 1)))
          .expectErrorSatisfies(
              e -> {
                assertThat(e).isInstanceOf(InvalidException.class);
                assertThat(((SluiceException) e).errorCode()).isEqualTo(ErrorCode.INVALID);
              })
          .verify(TIMEOUT);
      check(h.client.requestResponse(patterned(100, 3000, 2)).block(TIMEOUT), 100, 3000, 2);
      assertThat(text(h.client.requestResponse(msg("small")).block(TIMEOUT))).isEqualTo("small");
    }
  }

  @ParameterizedTest
  @EnumSource(TestTransport.class)
  void reassemblyLimitOnTheRequesterSide(TestTransport t) {
    ConnectionOptions client = ConnectionOptions.builder().mtu(256).maxReassembledSize(2048).build();
    ConnectionOptions server = ConnectionOptions.builder().mtu(256).build();
    ReactorResponder big =
        new ReactorResponder() {
          @Override
          public Flux<Message> requestStream(Message request) {
            int size = Integer.parseInt(Harness.data(request));
            return Flux.just(patterned(-1, 100, 1), patterned(-1, size, 2), patterned(-1, 100, 3));
          }
        };
    try (Harness h = Harness.builder(t).clientOptions(client).serverOptions(server).responder(big).start()) {
      StepVerifier.create(h.client.requestStream(msg("3000")))
          .assertNext(m -> check(m, -1, 100, 1))
          .expectError(InvalidException.class)
          .verify(TIMEOUT);
      StepVerifier.create(h.client.requestStream(msg("2000")))
          .assertNext(m -> check(m, -1, 100, 1))
          .assertNext(m -> check(m, -1, 2000, 2))
          .assertNext(m -> check(m, -1, 100, 3))
          .verifyComplete();
    }
  }
}
