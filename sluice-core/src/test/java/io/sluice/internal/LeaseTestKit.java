package io.sluice.internal;

import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.lease.ConnectionLease;
import io.sluice.lease.LeaseGrants;
import io.sluice.lease.LeasePolicy;
import io.sluice.lease.RequestStats;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;

/** Test doubles for leasing: a policy the test drives, a stats log, a responder that holds on. */
final class LeaseTestKit {
  private LeaseTestKit() {}

  /** A policy whose grants the test makes; records what it is asked. */
  static final class TestPolicy implements LeasePolicy {
    volatile LeaseGrants grants;
    volatile Consumer<LeaseGrants> onAttach =
        g -> g.grant(Duration.ofSeconds(10), 5, LeaseGrants.ALL_RANKS);
    volatile Predicate<Message> admit = m -> true;
    volatile RequestStats stats;
    final List<String> asked = new CopyOnWriteArrayList<>();
    final AtomicInteger attached = new AtomicInteger();
    final AtomicInteger closed = new AtomicInteger();

    @Override
    public ConnectionLease attach(LeaseGrants g) {
      grants = g;
      attached.incrementAndGet();
      onAttach.accept(g);
      return new ConnectionLease() {
        @Override
        public boolean admit(Message request) {
          asked.add(request.dataUtf8());
          return admit.test(request);
        }

        @Override
        public void close() {
          closed.incrementAndGet();
        }
      };
    }

    @Override
    public RequestStats requestStats() {
      return stats;
    }
  }

  /** Every call, as a line: "start REQUEST_RESPONSE", "first ... 5000000", "end ... COMPLETE 9". */
  static final class StatsLog implements RequestStats {
    final BlockingQueue<String> events = new LinkedBlockingQueue<>();
    final List<String> all = new CopyOnWriteArrayList<>();
    /** Logs onEndUnanswered too ("unanswered KIND") once a test sets it. */
    volatile boolean logUnanswered;

    private void add(String e) {
      all.add(e);
      events.add(e);
    }

    @Override
    public void onStart(Kind kind) {
      add("start " + kind);
    }

    @Override
    public void onFirstResponse(Kind kind, long latencyNanos) {
      add("first " + kind + " " + latencyNanos);
    }

    @Override
    public void onEnd(Kind kind, long latencyNanos, Outcome outcome) {
      add("end " + kind + " " + outcome + " " + latencyNanos);
    }

    @Override
    public void onEndUnanswered(Kind kind) {
      if (logUnanswered) {
        add("unanswered " + kind);
      }
    }

    @Override
    public void onRejected(Kind kind) {
      add("rejected " + kind);
    }
  }

  /**
   * A responder that records each request ("rr:data", "rs:data", "rc:data", "fnf:data") and keeps
   * each stream's handle for the test to answer on; its listeners are {@link
   * EngineTestBase.Recorder}s.
   */
  static final class Holding implements Responder {
    final BlockingQueue<StreamHandle> handles = new LinkedBlockingQueue<>();
    final BlockingQueue<EngineTestBase.Recorder> listeners = new LinkedBlockingQueue<>();
    final List<String> seen = new CopyOnWriteArrayList<>();

    private StreamListener hold(String what, Message m, StreamHandle h) {
      try {
        seen.add(what + ":" + m.dataUtf8());
      } finally {
        m.release();
      }
      handles.add(h);
      EngineTestBase.Recorder r = new EngineTestBase.Recorder();
      listeners.add(r);
      return r;
    }

    @Override
    public void fireAndForget(Message request) {
      try {
        seen.add("fnf:" + request.dataUtf8());
      } finally {
        request.release();
      }
    }

    @Override
    public StreamListener requestResponse(Message request, StreamHandle response) {
      return hold("rr", request, response);
    }

    @Override
    public StreamListener requestStream(Message request, StreamHandle stream) {
      return hold("rs", request, stream);
    }

    @Override
    public StreamListener requestChannel(
        Message first, boolean inboundComplete, StreamHandle channel) {
      return hold("rc", first, channel);
    }

    StreamHandle take() {
      try {
        StreamHandle h = handles.poll(Loop.WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
        if (h == null) {
          throw new AssertionError("no request reached the responder");
        }
        return h;
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }
  }
}
