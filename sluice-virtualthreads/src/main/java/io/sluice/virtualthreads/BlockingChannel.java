package io.sluice.virtualthreads;

import io.sluice.Message;

/**
 * A requester's request-channel for blocking threads: {@link #send(Message)} and {@link
 * #complete()} drive the outbound half (paced by the responder's demand), {@link #inbound()} reads
 * the responder's messages. {@link #close()} cancels whatever is still running. Typically one
 * thread sends and another reads.
 *
 * <p><b>Threads.</b> One thread at a time sends (see {@link BlockingSink}) and one reads {@link
 * #inbound()} (see {@link BlockingStream}); {@link #close()} may come from any thread.
 *
 * <p><b>Buffers.</b> {@link #send(Message)} takes ownership of each message, also when it throws.
 * Each message the inbound iterator returns belongs to the caller, which releases it; {@link
 * #close()} releases the messages buffered but not yet taken.
 */
public interface BlockingChannel extends BlockingSink, AutoCloseable {

  /** The responder's messages, as a backpressured iterator. */
  BlockingStream inbound();

  /** Cancels the channel (both halves) if it is still running; releases buffered messages. */
  @Override
  void close();
}
