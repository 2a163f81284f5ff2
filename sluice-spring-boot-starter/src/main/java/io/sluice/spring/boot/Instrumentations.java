package io.sluice.spring.boot;

import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.CallObservation;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.Status;
import java.util.ArrayList;
import java.util.List;

/**
 * Several {@link RpcInstrumentation}s as one: each sees every call, in order, and one that throws
 * keeps none of the others from seeing it. The combined call wants a first response (and the
 * transport reads the clock for it) only when one of them does.
 */
final class Instrumentations {
  private Instrumentations() {}

  /** The instrumentations of {@code all} that do something, as one ({@code NONE} for none). */
  static RpcInstrumentation combine(List<RpcInstrumentation> all) {
    List<RpcInstrumentation> some = new ArrayList<>();
    for (RpcInstrumentation i : all) {
      if (i != null && i != RpcInstrumentation.NONE) {
        some.add(i);
      }
    }
    if (some.isEmpty()) {
      return RpcInstrumentation.NONE;
    }
    if (some.size() == 1) {
      return some.get(0);
    }
    RpcInstrumentation[] each = some.toArray(new RpcInstrumentation[0]);
    return (CallMetadata metadata, MethodDescriptor<?, ?> method) -> {
      RpcInstrumentation.CallObserver[] calls = new RpcInstrumentation.CallObserver[each.length];
      for (int i = 0; i < each.length; i++) {
        try {
          calls[i] = each[i].onCallStart(metadata, method);
        } catch (RuntimeException e) {
          calls[i] = RpcInstrumentation.CallObserver.NONE; // instrumentation must not break calls
        }
        if (calls[i] == null) {
          calls[i] = RpcInstrumentation.CallObserver.NONE;
        }
      }
      return new Call(calls);
    };
  }

  private static final class Call implements RpcInstrumentation.CallObserver {
    private final RpcInstrumentation.CallObserver[] calls;

    Call(RpcInstrumentation.CallObserver[] calls) {
      this.calls = calls;
    }

    /** True when any of them wants a first response (each is asked: its answer stays for the call). */
    @Override
    public boolean observesFirstResponse() {
      for (RpcInstrumentation.CallObserver c : calls) {
        if (CallObservation.observesFirstResponse(c)) {
          return true;
        }
      }
      return false;
    }

    /** Passed to those that want it only. */
    @Override
    public void onFirstResponse(long nanosSinceStart) {
      for (RpcInstrumentation.CallObserver c : calls) {
        if (!CallObservation.observesFirstResponse(c)) {
          continue;
        }
        try {
          c.onFirstResponse(nanosSinceStart);
        } catch (RuntimeException e) {
          // ignored, as a transport ignores it
        }
      }
    }

    @Override
    public void onMessageReceived(int bytes) {
      for (RpcInstrumentation.CallObserver c : calls) {
        try {
          c.onMessageReceived(bytes);
        } catch (RuntimeException e) {
          // ignored, as a transport ignores it
        }
      }
    }

    @Override
    public void onMessageSent(int bytes) {
      for (RpcInstrumentation.CallObserver c : calls) {
        try {
          c.onMessageSent(bytes);
        } catch (RuntimeException e) {
          // ignored, as a transport ignores it
        }
      }
    }

    @Override
    public void onEnd(Status status, long nanosSinceStart) {
      for (RpcInstrumentation.CallObserver c : calls) {
        try {
          c.onEnd(status, nanosSinceStart);
        } catch (RuntimeException e) {
          // ignored, as a transport ignores it
        }
      }
    }
  }
}
