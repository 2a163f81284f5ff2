package io.sluice.rpc.services;

import com.google.protobuf.MessageLite;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.Status;
import java.util.ArrayList;
import java.util.List;

/** A ServerCall that records what the handler does, for tests on one thread. */
final class FakeCall<Req extends MessageLite, Resp extends MessageLite> implements ServerCall<Req, Resp> {
  private final MethodDescriptor<Req, Resp> method;
  final List<Resp> sent = new ArrayList<>();
  long requested;
  Status closed;

  FakeCall(MethodDescriptor<Req, Resp> method) {
    this.method = method;
  }

  @Override
  public CallMetadata metadata() {
    throw new UnsupportedOperationException();
  }

  @Override
  public MethodDescriptor<Req, Resp> method() {
    return method;
  }

  @Override
  public void request(long n) {
    requested += n;
  }

  @Override
  public void sendMessage(Resp message) {
    if (closed != null) {
      throw new AssertionError("sent after close: " + message);
    }
    sent.add(message);
  }

  @Override
  public void close(Status status) {
    if (closed == null) {
      closed = status;
    }
  }

  @Override
  public boolean isClosed() {
    return closed != null;
  }
}
