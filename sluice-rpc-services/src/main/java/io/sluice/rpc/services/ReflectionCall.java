package io.sluice.rpc.services;

import com.google.protobuf.MessageLite;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.Status;
import java.util.function.Function;

/**
 * One {@code ServerReflectionInfo} call: answers each request in order, one at a time. It asks for
 * the next request only after the answer to the last one went out within the caller's demand, so a
 * caller that stops reading stops the call, and at most one answer waits. Ends the call with OK
 * once the caller has half-closed and every answer is sent.
 *
 * <p><b>Threads.</b> Every callback comes on the call's event loop, one at a time, so the state is
 * plain fields.
 */
final class ReflectionCall<Req extends MessageLite, Resp extends MessageLite> implements ServerCall.Listener<Req> {
  private final ServerCall<Req, Resp> call;
  private final Function<Req, Resp> answer;
  private long demand;
  private Resp unsent;
  private boolean halfClosed;

  ReflectionCall(ServerCall<Req, Resp> call, Function<Req, Resp> answer) {
    this.call = call;
    this.answer = answer;
    call.request(1);
  }

  @Override
  public void onMessage(Req request) {
    Resp r;
    try {
      r = answer.apply(request);
    } catch (RuntimeException e) {
      call.close(Status.of(Status.Code.INTERNAL, "reflection failed: " + e.getMessage()));
      return;
    }
    unsent = r;
    drain();
  }

  @Override
  public void onHalfClose() {
    halfClosed = true;
    drain();
  }

  @Override
  public void onCancel() {
    unsent = null;
  }

  @Override
  public void onReady(long n) {
    demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
    drain();
  }

  private void drain() {
    if (unsent != null) {
      if (demand == 0) {
        return;
      }
      Resp r = unsent;
      unsent = null;
      demand--;
      call.sendMessage(r);
      if (!halfClosed) {
        call.request(1);
      }
    }
    if (halfClosed) {
      call.close(Status.OK);
    }
  }
}
