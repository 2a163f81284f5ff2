package io.sluice.virtualthreads;

import io.netty.buffer.ByteBufAllocator;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.exceptions.ConnectionCloseException;
import io.sluice.exceptions.ConnectionErrorException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.LockSupport;

/**
 * Starts interactions with the peer as blocking calls, meant to be made from virtual threads (on
 * a platform thread they block it just the same). Thread-safe.
 *
 * <p>Errors are thrown as they arrive: RSocket errors as {@link
 * io.sluice.exceptions.SluiceException} subclasses (unchecked). An interrupt while waiting cancels
 * the stream and throws {@link CancellationException}, keeping the thread's interrupt status.
 *
 * <p><b>Ownership.</b> Every method takes ownership of the message it is given, also when it
 * throws. Returned messages belong to the caller, which releases them.
 */
public final class BlockingRequester {
  /** Inbound credit kept granted to the peer by default: 64 messages. */
  public static final int DEFAULT_PREFETCH = 64;

  private final Requester requester;

  public BlockingRequester(Requester requester) {
    this.requester = Objects.requireNonNull(requester, "requester");
  }

  /** Sends a fire-and-forget and waits until it is handed to the transport. */
  public void fireAndForget(Message request) {
    Objects.requireNonNull(request, "request");
    notOnTheLoop(request);
    Reply d = new Reply();
    requester.fireAndForget(request, d);
    d.await(null);
  }

  /** Sends a metadata push and waits until it is handed to the transport. */
  public void metadataPush(Message metadata) {
    Objects.requireNonNull(metadata, "metadata");
    notOnTheLoop(metadata);
    Reply d = new Reply();
    requester.metadataPush(metadata, d);
    d.await(null);
  }

  /**
   * A request-response: waits for and returns the response ({@code null} if the responder completed
   * without one).
   */
  public Message requestResponse(Message request) {
    Objects.requireNonNull(request, "request");
    notOnTheLoop(request);
    if (!requester.isOpen()) {
      request.release();
      throw notOpen();
    }
    Reply r = new Reply();
    return r.await(requester.requestResponse(request, r));
  }

  /** A request-stream with {@link #DEFAULT_PREFETCH}. */
  public BlockingStream requestStream(Message request) {
    return requestStream(request, DEFAULT_PREFETCH);
  }

  /**
   * A request-stream: the peer is granted {@code prefetch} messages at once, and more as the
   * returned iterator is consumed. Close the iterator (try-with-resources) to cancel early.
   */
  public BlockingStream requestStream(Message request, int prefetch) {
    Objects.requireNonNull(request, "request");
    Pipe p;
    try {
      p = new Pipe(prefetch, true, false, true).noOutbound();
    } catch (IllegalArgumentException e) {
      request.release();
      throw e;
    }
    if (!requester.isOpen()) {
      request.release();
      throw notOpen();
    }
    p.handle(requester.requestStream(request, prefetch, p));
    return p;
  }

  /** A request-channel with {@link #DEFAULT_PREFETCH}. */
  public BlockingChannel requestChannel(Message first) {
    return requestChannel(first, DEFAULT_PREFETCH);
  }

  /**
   * A request-channel whose first message is {@code first}, sent at once with an initial demand of
   * {@code prefetch}. Send the rest with {@link BlockingChannel#send}, end with {@link
   * BlockingChannel#complete()}, read the answers from {@link BlockingChannel#inbound()}.
   */
  public BlockingChannel requestChannel(Message first, int prefetch) {
    Objects.requireNonNull(first, "first");
    ChannelPipe p;
    try {
      p = new ChannelPipe(prefetch);
    } catch (IllegalArgumentException e) {
      first.release();
      throw e;
    }
    if (!requester.isOpen()) {
      first.release();
      throw notOpen();
    }
    p.handle(requester.requestChannel(first, false, prefetch, p));
    return p;
  }

  /**
   * A factory of virtual threads carried by this connection's event loop, for callers that make
   * short blocking calls on it: a response then wakes its caller on the thread that read it.
   * Experimental; see {@link EventLoopThreads} for the rules and what the JVM needs.
   *
   * @throws UnsupportedOperationException if this JVM does not allow it, saying why
   */
  public ThreadFactory eventLoopThreads() {
    return EventLoopThreads.factory(requester.executor());
  }

  public ByteBufAllocator alloc() {
    return requester.alloc();
  }

  /** See {@link Requester#availability()}: how much of the peer's lease is left, 0 to 1. */
  public double availability() {
    return requester.availability();
  }

  /** See {@link Requester#availability(int)}: as {@link #availability()} for a priority rank. */
  public double availability(int rank) {
    return requester.availability(rank);
  }

  public boolean isOpen() {
    return requester.isOpen();
  }

  /** Graceful close: CONNECTION_CLOSE, then live streams drain. */
  public void close() {
    requester.close();
  }

  /** Immediate close. */
  public void dispose() {
    requester.dispose();
  }

  /** Completes when the connection is closed. */
  public CompletableFuture<Void> onClose() {
    return requester.onClose();
  }

  public Requester unwrap() {
    return requester;
  }

  /** A wait on the connection's own event loop thread would wait for itself: refuse it. */
  private void notOnTheLoop(Message owned) {
    if (Pipe.onLoopThread(requester.executor())) {
      owned.release();
      throw Pipe.onLoopError();
    }
  }

  private RuntimeException notOpen() {
    return requester.onClose().isDone()
        ? new ConnectionErrorException("connection closed")
        : new ConnectionCloseException("connection is closing; no new requests");
  }

  /**
   * The outcome of a request-response, fire-and-forget or metadata push, awaited by the thread
   * that made it: a parked thread woken by the event loop, without a {@code CompletableFuture}'s
   * completion stack (a blocking request-response makes one of these per call). A response that
   * arrives after the wait was given up is released.
   */
  private static final class Reply implements StreamListener {
    private static final Object PENDING = new Object();
    private static final Object EMPTY = new Object(); // completed without a message
    private static final Object GIVEN_UP = new Object();
    private static final VarHandle RESULT;

    static {
      try {
        RESULT = MethodHandles.lookup().findVarHandle(Reply.class, "result", Object.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private final Thread waiter = Thread.currentThread();
    /** PENDING, then a Message, EMPTY, a Throwable or GIVEN_UP. */
    private volatile Object result = PENDING;
    private Message response; // event loop only

    @Override
    public void onNext(Message message) {
      if (response != null || result != PENDING) {
        message.release();
        return;
      }
      response = message;
    }

    @Override
    public void onComplete() {
      Message m = response;
      response = null;
      if (RESULT.compareAndSet(this, PENDING, m != null ? m : EMPTY)) {
        wake();
      } else if (m != null) {
        m.release();
      }
    }

    @Override
    public void onError(Throwable cause) {
      Message m = response;
      response = null;
      if (m != null) {
        m.release();
      }
      if (RESULT.compareAndSet(this, PENDING, cause)) {
        wake();
      }
    }

    private void wake() {
      int[] window = InlineRuns.open(); // on the loop, a waiter carried by it resumes right here
      try {
        LockSupport.unpark(waiter);
      } finally {
        InlineRuns.close(window);
      }
    }

    /** Waits for the outcome; an interrupt first cancels {@code h} (if any) and throws. */
    Message await(StreamHandle h) {
      Object r;
      while ((r = result) == PENDING) {
        LockSupport.park(this);
        if (Thread.interrupted()) {
          Thread.currentThread().interrupt(); // kept either way: handlers learn of cancels by it
          if (RESULT.compareAndSet(this, PENDING, GIVEN_UP)) {
            if (h != null) {
              h.cancel();
            }
            throw new CancellationException("interrupted while waiting");
          }
          // the outcome arrived just now: return it, still interrupted
        }
      }
      if (r instanceof Message m) {
        return m;
      }
      if (r instanceof Throwable t) {
        throw Pipe.propagate(t);
      }
      return null;
    }
  }

  /** A requester's channel: closing the inbound iterator cancels the whole channel. */
  static final class ChannelPipe extends Pipe implements BlockingChannel {
    ChannelPipe(int prefetch) {
      super(prefetch, true, false, true);
    }

    @Override
    public BlockingStream inbound() {
      return this;
    }
  }
}
