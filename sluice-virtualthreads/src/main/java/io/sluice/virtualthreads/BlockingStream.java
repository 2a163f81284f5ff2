package io.sluice.virtualthreads;

import io.sluice.Message;
import java.util.Iterator;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The inbound messages of a stream or channel as a blocking, backpressured iterator: {@link
 * #hasNext()} waits for the next message, the peer is granted credit for at most {@code prefetch}
 * messages ahead of the consumer (more is requested as messages are taken), and {@link #close()}
 * cancels the stream and releases what was buffered.
 *
 * <p>An error from the peer is thrown by {@link #hasNext()} (a {@link
 * io.sluice.exceptions.SluiceException} for RSocket errors). An interrupt while waiting throws
 * {@link java.util.concurrent.CancellationException} and keeps the thread's interrupt status; on
 * the requester side it also cancels the stream.
 *
 * <p>Each message returned by {@link #next()} belongs to the caller, which releases it. Meant for
 * one consuming thread, which takes the messages that arrived in batches (one lock per batch, not
 * per message). {@link #close()} may also come from another thread: the stream ends at once, and
 * the messages the consumer had taken but not yet returned are released at its next {@link
 * #hasNext()}, {@link #next()} (which report the end) or {@link #close()}.
 */
public interface BlockingStream extends Iterator<Message>, AutoCloseable {

  @Override
  boolean hasNext();

  @Override
  Message next();

  /** Cancels the stream if it is still running and releases buffered messages. Idempotent. */
  @Override
  void close();

  /** This iterator as a sequential {@link Stream}; closing the Stream closes this iterator. */
  default Stream<Message> stream() {
    return StreamSupport.stream(
            Spliterators.spliteratorUnknownSize(this, Spliterator.ORDERED | Spliterator.NONNULL),
            false)
        .onClose(this::close);
  }
}
