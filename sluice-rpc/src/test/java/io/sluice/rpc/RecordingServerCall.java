package io.sluice.rpc;

import com.google.protobuf.MessageLite;
import java.util.ArrayList;
import java.util.List;

/** A {@link ServerCall} that records what is done to it, for tests of what wraps calls. One thread. */
final class RecordingServerCall<Req extends MessageLite, Resp extends MessageLite>
    implements ServerCall<Req, Resp> {
  final MethodDescriptor<Req, Resp> method;
  final CallMetadata metadata;
  final List<String> events = new ArrayList<>();
  final List<Resp> sent = new ArrayList<>();
  Headers headers;
  Status status;
  Headers trailers;
  long requested;

  RecordingServerCall(MethodDescriptor<Req, Resp> method, Headers requestHeaders) {
    this.method = method;
    this.metadata = CallMetadata.of(method.service(), method.method(), requestHeaders, CallMetadata.NO_TIMEOUT, false, 0);
  }

  @Override
  public CallMetadata metadata() {
    return metadata;
  }

  @Override
  public MethodDescriptor<Req, Resp> method() {
    return method;
  }

  @Override
  public void request(long n) {
    events.add("request(" + n + ")");
    requested += n;
  }

  @Override
  public void sendMessage(Resp message) {
    events.add("sendMessage");
    sent.add(message);
  }

  @Override
  public void sendHeaders(Headers headers) {
    events.add("sendHeaders");
    this.headers = headers;
  }

  @Override
  public void close(Status status) {
    events.add("close(" + status.code() + ")");
    this.status = status;
  }

  @Override
  public void close(Status status, Headers trailers) {
    events.add("close(" + status.code() + ", trailers)");
    this.status = status;
    this.trailers = trailers;
  }

  @Override
  public boolean isClosed() {
    return status != null;
  }
}
