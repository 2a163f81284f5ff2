package io.sluice.grpc.interop;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.grpc.testing.integration.Messages.ResponseParameters;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Sends the responses of one streaming call in order, as its requests' {@link ResponseParameters}
 * ask: each after its {@code interval_us}, of its {@code size}, compressed or not as its {@code
 * compressed} asks (a hint the transport may ignore), and only while the caller is ready for more
 * (gRPC's {@code isReady()}); then completes the call once the caller has half-closed and every
 * response is out. A cancelled call drops what is pending.
 *
 * <p><b>Threads.</b> {@link #enqueue}, {@link #finish} and {@link #fail} may be called from any
 * thread (the connection's event loop, in practice). Every signal to the observer, responses and
 * the end alike, is written from the shared single-threaded timer, so one thread writes each call
 * in order: a transport may reorder signals that different threads make (Sluice's gRPC server
 * call does: a response handed over from the timer was overtaken by a close made on the event
 * loop, and the call ended OK without it). State is guarded by {@code this}; the observer is never
 * called while holding it. <b>Limits.</b> At most {@link #MAX_PENDING} parameters wait at once (more fail the
 * call with RESOURCE_EXHAUSTED); each interval at most {@link #MAX_INTERVAL_US}.
 */
final class ResponseSender {
  /** Most response parameters that may wait to be sent. */
  static final int MAX_PENDING = 4096;

  /** Longest interval one response may ask for: one minute. */
  static final int MAX_INTERVAL_US = 60_000_000;

  private final ServerCallStreamObserver<StreamingOutputCallResponse> out;
  private final ScheduledExecutorService timer;
  private final ArrayDeque<ResponseParameters> pending = new ArrayDeque<>();
  private boolean sending; // a response is scheduled or being written
  private boolean finishing; // the caller half-closed
  private boolean ended;

  ResponseSender(StreamObserver<StreamingOutputCallResponse> out, ScheduledExecutorService timer) {
    this.out = (ServerCallStreamObserver<StreamingOutputCallResponse>) out;
    this.timer = timer;
    this.out.setOnCancelHandler(this::cancelled);
    this.out.setOnReadyHandler(this::ready);
    this.out.setCompression("gzip"); // per message: setMessageCompression below
  }

  /** Queues the responses one request asks for. */
  void enqueue(Iterable<ResponseParameters> parameters) {
    for (ResponseParameters p : parameters) {
      if (p.getIntervalUs() < 0 || p.getIntervalUs() > MAX_INTERVAL_US) {
        fail(Status.of(Status.Code.INVALID_ARGUMENT,
            "interval_us " + p.getIntervalUs() + " is outside 0.." + MAX_INTERVAL_US));
        return;
      }
    }
    synchronized (this) {
      if (ended) {
        return;
      }
      for (ResponseParameters p : parameters) {
        if (pending.size() >= MAX_PENDING) {
          pending.clear();
          ended = true;
          break;
        }
        pending.add(p);
      }
      if (!ended) {
        if (!sending) {
          scheduleNextLocked();
        }
        return;
      }
    }
    onTimer(() -> out.onError(new StatusException(Status.of(Status.Code.RESOURCE_EXHAUSTED,
        "more than " + MAX_PENDING + " responses waiting to be sent"))));
  }

  /** The caller sends nothing more: complete once every queued response is out. */
  void finish() {
    boolean complete;
    synchronized (this) {
      finishing = true;
      complete = !ended && !sending && pending.isEmpty();
      ended |= complete;
    }
    if (complete) {
      onTimer(out::onCompleted);
    }
  }

  /** Ends the call with {@code status}, dropping what is pending. */
  void fail(Status status) {
    synchronized (this) {
      if (ended) {
        return;
      }
      ended = true;
      pending.clear();
    }
    onTimer(() -> out.onError(new StatusException(status)));
  }

  /** Runs a signal on the timer, after what it already holds for this call. */
  private void onTimer(Runnable signal) {
    try {
      timer.execute(signal);
    } catch (RejectedExecutionException e) {
      // The service is closing, and its server with it: the call ends with its connection.
    }
  }

  private void cancelled() {
    synchronized (this) {
      ended = true;
      pending.clear();
    }
  }

  private void ready() {
    synchronized (this) {
      if (!ended && !sending && !pending.isEmpty()) {
        scheduleNextLocked();
      }
    }
  }

  private void scheduleNextLocked() {
    sending = true;
    long delayUs = pending.peek().getIntervalUs();
    try {
      timer.schedule(this::sendOne, delayUs, TimeUnit.MICROSECONDS);
    } catch (RejectedExecutionException e) {
      // The service is closing, and its server with it: the call ends with its connection.
      sending = false;
      ended = true;
      pending.clear();
    }
  }

  private void sendOne() {
    ResponseParameters p;
    synchronized (this) {
      if (ended) {
        sending = false;
        return;
      }
      if (!out.isReady()) {
        sending = false; // ready() schedules again when the caller asks for more
        if (out.isReady()) {
          scheduleNextLocked();
        }
        return;
      }
      p = pending.poll();
    }
    try {
      StreamingOutputCallResponse response =
          StreamingOutputCallResponse.newBuilder().setPayload(Payloads.response(p.getSize())).build();
      out.setMessageCompression(p.getCompressed().getValue());
      out.onNext(response);
    } catch (StatusException e) {
      synchronized (this) {
        sending = false;
      }
      fail(e.status());
      return;
    }
    boolean complete = false;
    synchronized (this) {
      sending = false;
      if (ended) {
        return;
      }
      if (!pending.isEmpty()) {
        scheduleNextLocked();
      } else if (finishing) {
        ended = true;
        complete = true;
      }
    }
    if (complete) {
      out.onCompleted();
    }
  }
}
