package io.sluice.reactor.tck;

import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.Message;
import io.sluice.reactor.ReactorResponder;
import io.sluice.test.UntrackedHeapAllocator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.reactivestreams.Publisher;
import org.reactivestreams.tck.PublisherVerification;
import org.testng.annotations.AfterClass;
import org.testng.annotations.AfterMethod;
import org.testng.annotations.BeforeClass;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Runs the TCK's {@link PublisherVerification} against the inbound {@code Flux} a {@link
 * ReactorResponder} receives in {@code requestChannel(first, rest)} (ResponderAdapter's
 * ChannelInbound): a real client opens a channel whose outbound is a first message plus exactly n
 * more, and the server's responder hands its {@code rest} Flux to the test.
 *
 * <p><b>Buffers.</b> As in {@link RequesterPublisherVerification}, but mirrored: here the client
 * sends the messages the TCK's subscribers receive and never release, so the client end allocates
 * its frames from {@link UntrackedHeapAllocator}; the server end stays on the pooled, tracked
 * allocator.
 *
 * <p><b>Cleanup.</b> Canceling {@code rest} sends no frame (the core's StreamHandle has no way
 * for a responder to cancel only the inbound half of a channel), so a client already granted
 * unbounded demand keeps sending, and the server releases what arrives. After each test the
 * client's outbound of that test is told to stop, which completes it at its next message.
 *
 * <p>The failed publisher is the inbound Flux of a channel whose client outbound fails right after
 * its first message.
 */
abstract class ChannelInboundVerification extends PublisherVerification<Message> {
  static {
    Tck.init();
  }

  private static final AtomicLong KEYS = new AtomicLong();
  private final boolean direct;
  private final TckResponder responder = new TckResponder();
  private volatile AtomicBoolean stopCurrent = new AtomicBoolean();
  private Peers peers;

  ChannelInboundVerification(boolean direct) {
    super(Tck.env(), Tck.PUBLISHER_REFERENCE_GC_TIMEOUT_MILLIS);
    this.direct = direct;
  }

  @BeforeClass
  public void startPeers() {
    peers = new Peers(responder, PooledByteBufAllocator.DEFAULT, UntrackedHeapAllocator.INSTANCE);
  }

  @AfterMethod(alwaysRun = true)
  public void stopOutbound() {
    stopCurrent.set(true);
    stopCurrent = new AtomicBoolean();
  }

  @AfterClass(alwaysRun = true)
  public void closePeersAndCheckLeaks() {
    if (peers != null) {
      peers.close();
    }
    Tck.assertNoLeaks(this);
  }

  private Publisher<Message> open(Flux<Message> more) {
    String key = Long.toString(KEYS.incrementAndGet());
    Flux<Message> outbound =
        Flux.concat(Mono.fromSupplier(() -> Message.utf8("inbound:" + key)), more);
    CompletableFuture<Flux<Message>> received = responder.inbound(key);
    peers.client.requestChannel(outbound).subscribe(Message::release, e -> {});
    Flux<Message> rest;
    try {
      rest = received.get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("the responder did not receive the channel", e);
    }
    return direct ? new DirectPublisher<>(rest) : rest;
  }

  @Override
  public Publisher<Message> createPublisher(long elements) {
    AtomicBoolean stop = stopCurrent;
    return open(
        Flux.range(0, (int) Math.min(elements, Integer.MAX_VALUE))
            .takeWhile(i -> !stop.get())
            .map(i -> Message.utf8("in" + i)));
  }

  @Override
  public Publisher<Message> createFailedPublisher() {
    return open(Flux.error(new IllegalStateException("the requester's outbound failed")));
  }
}
