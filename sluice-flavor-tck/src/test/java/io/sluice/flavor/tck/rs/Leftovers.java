package io.sluice.flavor.tck.rs;

import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.Message;
import io.sluice.test.UntrackedHeapAllocator;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * Request messages and publishers a TCK test leaves behind. A Sluice publisher owns its request
 * message until subscribed, and some TCK tests create a publisher they never subscribe: after each
 * test every publisher created is subscribed once more and canceled at once (one never subscribed
 * releases its message; the others refuse the second subscriber). The optional §1.11 tests
 * subscribe twice and abandon the first subscription without canceling it: only there the request
 * message is an untracked heap buffer.
 */
final class Leftovers<P> {
  private final Queue<P> created = new ConcurrentLinkedQueue<>();
  private volatile boolean abandons;

  void noteTest(String name) {
    abandons = name.startsWith("optional_spec111_");
  }

  Message request(String data) {
    return abandons
        ? Message.utf8(UntrackedHeapAllocator.INSTANCE, data)
        : Message.utf8(PooledByteBufAllocator.DEFAULT, data);
  }

  P track(P publisher) {
    created.add(publisher);
    return publisher;
  }

  void cancelAll(Consumer<P> subscribeAndCancel) {
    for (P p; (p = created.poll()) != null; ) {
      subscribeAndCancel.accept(p);
    }
  }
}
