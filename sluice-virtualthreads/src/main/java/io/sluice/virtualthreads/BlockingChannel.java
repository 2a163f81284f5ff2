package io.sluice.virtualthreads;

import io.sluice.Message;

/**
 * A requester's request-channel for blocking threads: {@link #send(Message)} and {@link
 * #complete()} drive the outbound half (paced by the responder's demand), {@link #inbound()} reads
 * the responder's messages. {@link #close()} cancels whatever is still running. Typically one
 * thread sends and another reads.
 */
public interface BlockingChannel extends BlockingSink, AutoCloseable {

  /** The responder's messages, as a backpressured iterator. */
  BlockingStream inbound();

  /** Cancels the channel (both halves) if it is still running; releases buffered messages. */
  @Override
  void close();
}
