package io.sluice.rpc.blocking;

import com.google.protobuf.MessageLite;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.reactor.ReactorClientCalls;
import java.util.Objects;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;

/**
 * Client side of the blocking flavor; generated {@code Blocking*Client} classes delegate here. Meant
 * for virtual threads: single-response calls block the calling thread until the call ends and
 * throw {@link io.sluice.rpc.StatusException} when it fails. Streams of responses are lazy {@link
 * Stream}s that pull from the connection as they are consumed (with bounded prefetch); close them
 * (try-with-resources) to cancel a call before its end. Streams of requests are pulled on a
 * virtual thread as the server asks for more. Deadlines, headers and instrumentation come from the
 * {@link CallOptions}, as in the reactor flavor.
 *
 * <p><b>Threads.</b> Single-response methods block the calling thread: never call them on a
 * connection's event loop, which has to deliver the response. On the event loop thread of the call's
 * own connection (a handler, a reactor or future callback run there) they throw {@link
 * IllegalStateException} at once, as does reading a returned {@link Stream} there, instead of
 * waiting for that thread forever. A returned {@link Stream} is consumed on the thread that reads
 * it; a {@link Stream} of requests is pulled on this flavor's virtual threads.
 *
 * <p><b>Buffers.</b> None reach the caller: each request is encoded into a message that the
 * requester owns (released once sent, or when the call ends first), and each response message is
 * released once parsed.
 */
public final class BlockingClientCalls {
  private BlockingClientCalls() {}

  /** A unary call (request-response). */
  public static <Req extends MessageLite, Resp extends MessageLite> Resp unary(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    notOnTheLoop(requester.unwrap().executor());
    return ReactorClientCalls.unary(requester, method, options, request).block();
  }

  /** A server-streaming call (request-stream); close the stream to cancel early. */
  public static <Req extends MessageLite, Resp extends MessageLite> Stream<Resp> serverStreaming(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    return inOrder(requester, ReactorClientCalls.serverStreaming(requester, method, options, request));
  }

  /** A client-streaming call (request-channel); {@code requests} may be empty. */
  public static <Req extends MessageLite, Resp extends MessageLite> Resp clientStreaming(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Stream<Req> requests) {
    notOnTheLoop(requester.unwrap().executor());
    return ReactorClientCalls.clientStreaming(requester, method, options, pull(requests)).block();
  }

  /** A bidi-streaming call (request-channel); close the returned stream to cancel early. */
  public static <Req extends MessageLite, Resp extends MessageLite> Stream<Resp> bidiStreaming(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Stream<Req> requests) {
    return inOrder(requester, ReactorClientCalls.bidiStreaming(requester, method, options, pull(requests)));
  }

  /** A fire-and-forget call: returns once the request is handed to the transport. */
  public static <Req extends MessageLite, Resp extends MessageLite> void fireAndForget(
      ReactorRequester requester, MethodDescriptor<Req, Resp> method, CallOptions options, Req request) {
    notOnTheLoop(requester.unwrap().executor());
    ReactorClientCalls.fireAndForget(requester, method, options, request).block();
  }

  /**
   * Refuses a wait on the connection's own event loop thread, which would wait for itself (a
   * deadline cannot end it either: its timer fires on that thread too), and on any other netty
   * executor thread (an event loop): a requester over a Balancer names no connection's loop (its executor is the
   * balancer's), and the connection it picks may live on the calling loop; any other loop would
   * stall every connection it serves. A virtual thread carried by the loop is not the loop's
   * thread.
   */
  private static void notOnTheLoop(Executor loop) {
    if ((loop instanceof EventExecutor e && e.inEventLoop())
        || ThreadExecutorMap.currentExecutor() != null) {
      throw new IllegalStateException(
          "a blocking call on its connection's event loop thread would wait for that thread forever;"
              + " make it from a virtual thread or another thread that may block");
    }
  }

  /**
   * The responses as a lazy Stream that ends with the call's error only after every response that
   * arrived before it. ({@code Flux.toStream()} alone throws a terminal error as soon as it arrives,
   * dropping responses still queued for the consumer.)
   */
  private static <T> Stream<T> inOrder(ReactorRequester requester, Flux<T> responses) {
    Stream<T> inOrder = responses.materialize().toStream()
        .filter(signal -> !signal.isOnComplete())
        .map(signal -> {
          if (signal.isOnError()) {
            throw Exceptions.propagate(signal.getThrowable());
          }
          return signal.get();
        });
    // Each read may wait: refused on the connection's loop, like the single-response calls.
    Executor loop = requester.unwrap().executor();
    Spliterator<T> reads = inOrder.spliterator();
    Spliterator<T> checked =
        new Spliterators.AbstractSpliterator<T>(Long.MAX_VALUE, Spliterator.ORDERED) {
          @Override
          public boolean tryAdvance(Consumer<? super T> action) {
            notOnTheLoop(loop);
            return reads.tryAdvance(action);
          }
        };
    return StreamSupport.stream(checked, false).onClose(inOrder::close);
  }

  /** The caller's request stream, pulled on a virtual thread (never on the connection's event loop). */
  private static <Req> Flux<Req> pull(Stream<Req> requests) {
    Objects.requireNonNull(requests, "requests");
    return Flux.fromStream(requests).subscribeOn(VirtualThreads.SCHEDULER);
  }
}
