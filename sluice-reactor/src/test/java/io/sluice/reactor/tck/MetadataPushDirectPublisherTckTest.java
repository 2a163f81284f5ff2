package io.sluice.reactor.tck;

import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.Message;
import org.reactivestreams.Publisher;

/**
 * TCK for the metadata-push {@code Mono<Void>} (FireAndForgetMono in metadata-push mode),
 * subscribed through {@link DirectPublisher}. It has no elements, so the TCK runs only its
 * element-free rules; the failed publisher is a metadata push on a connection that is already
 * closed.
 */
public class MetadataPushDirectPublisherTckTest extends RequesterPublisherVerification<Void> {
  public MetadataPushDirectPublisherTckTest() {
    super(true);
  }

  private static Message push() {
    return Message.utf8(PooledByteBufAllocator.DEFAULT, "pushed", "");
  }

  @Override
  public long maxElementsFromPublisher() {
    return 0;
  }

  @Override
  public Publisher<Void> createPublisher(long elements) {
    return expose(peers.client.metadataPush(push()));
  }

  @Override
  public Publisher<Void> createFailedPublisher() {
    return expose(peers.closedClient.metadataPush(push()));
  }
}
