package io.sluice.rpc.services.orca;

import com.google.protobuf.MessageLite;
import io.sluice.rpc.ForwardingServerCall;
import io.sluice.rpc.Headers;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.ServerInterceptor;
import io.sluice.rpc.Status;
import io.sluice.rpc.services.xds.data.orca.v3.OrcaLoadReport;
import java.util.Objects;

/**
 * ORCA per-call load reports: every call through this interceptor ends with an {@value #TRAILER}
 * trailer holding an {@code xds.data.orca.v3.OrcaLoadReport} (binary protobuf), which gRPC's
 * weighted round robin and xDS balancers read: the {@link ServerLoad}'s figures, the {@link
 * ServerMetricRecorder}'s laid over them, and what the handler recorded in its call's {@link
 * CallMetricRecorder#current()} laid over both. A call with nothing to report (no load, nothing
 * recorded) gets no trailer.
 *
 * <pre>{@code
 * OrcaServerInterceptor orca = OrcaServerInterceptor.create(ServerLoad.of(leasePolicy.stats()), recorder);
 * registry.add(ServerInterceptors.intercept(new ReactorGreeterServer(impl), orca));
 * }</pre>
 *
 * <p>Over gRPC the trailer is an HTTP/2 trailer; over RSocket it reaches callers that asked for
 * response metadata, like every trailer.
 *
 * <p><b>Cost.</b> Per call: one recorder, a thread-local set and restored around each callback,
 * and at the end one report encoded (tens of bytes). <b>Threads.</b> Stateless apart from its
 * inputs; any thread. Holds no buffers.
 */
public final class OrcaServerInterceptor implements ServerInterceptor {
  /** The trailer key gRPC's balancers read (binary: base64 in Sluice headers). */
  public static final String TRAILER = "endpoint-load-metrics-bin";

  private final ServerLoad load;
  private final ServerMetricRecorder server;

  private OrcaServerInterceptor(ServerLoad load, ServerMetricRecorder server) {
    this.load = Objects.requireNonNull(load, "load");
    this.server = Objects.requireNonNull(server, "server");
  }

  /** Reports with {@code load}'s figures and the server-wide ones of {@code server}. */
  public static OrcaServerInterceptor create(ServerLoad load, ServerMetricRecorder server) {
    return new OrcaServerInterceptor(load, server);
  }

  /** Reports only what handlers record per call. */
  public static OrcaServerInterceptor create() {
    return new OrcaServerInterceptor(ServerLoad.NONE, new ServerMetricRecorder());
  }

  @Override
  public <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> interceptCall(
      ServerCall<Req, Resp> call, ServerCallHandler<Req, Resp> next) {
    CallMetricRecorder recorder = CallMetricRecorder.forCall();
    ServerCall<Req, Resp> reporting =
        new ForwardingServerCall<>(call) {
          @Override
          public void close(Status status) {
            close(status, Headers.EMPTY);
          }

          @Override
          public void close(Status status, Headers trailers) {
            super.close(status, withReport(trailers, recorder));
          }
        };
    ServerCall.Listener<Req> listener;
    CallMetricRecorder previous = CallMetricRecorder.enter(recorder);
    try {
      listener = next.startCall(reporting);
    } finally {
      CallMetricRecorder.restore(previous);
    }
    return new Scoped<>(listener, recorder);
  }

  /** The largest report sent whole: its base64 form stays well inside an 8 KiB header list. */
  static final int MAX_REPORT_BYTES = 4096;

  /** {@code trailers} with the call's report added, or unchanged when there is nothing to report. */
  Headers withReport(Headers trailers, CallMetricRecorder recorder) {
    OrcaLoadReport.Builder b = OrcaLoadReport.newBuilder();
    ServerLoad.writeTo(load, b);
    server.writeTo(b);
    recorder.writeTo(b);
    OrcaLoadReport report = b.build();
    if (report.equals(OrcaLoadReport.getDefaultInstance())) {
      return trailers;
    }
    if (report.getSerializedSize() > MAX_REPORT_BYTES) {
      // Base64 in the trailers, a third larger: past this it could outgrow the header list a
      // client accepts (8 KiB by default in grpc-java and Sluice) and fail a call that succeeded.
      // The fixed figures stay; the named maps go.
      report =
          report.toBuilder().clearRequestCost().clearUtilization().clearNamedMetrics().build();
    }
    try {
      return trailers.toBuilder().addBinary(TRAILER, report.toByteArray()).build();
    } catch (IllegalArgumentException e) {
      return trailers; // the trailers are full: the call ends without its report
    }
  }

  @Override
  public String toString() {
    return "OrcaServerInterceptor(" + load + ")";
  }

  /** Makes the call's recorder current around each callback of the handler's listener. */
  private static final class Scoped<Req> implements ServerCall.Listener<Req> {
    private final ServerCall.Listener<Req> delegate;
    private final CallMetricRecorder recorder;

    Scoped(ServerCall.Listener<Req> delegate, CallMetricRecorder recorder) {
      this.delegate = delegate;
      this.recorder = recorder;
    }

    @Override
    public void onMessage(Req message) {
      CallMetricRecorder previous = CallMetricRecorder.enter(recorder);
      try {
        delegate.onMessage(message);
      } finally {
        CallMetricRecorder.restore(previous);
      }
    }

    @Override
    public void onHalfClose() {
      CallMetricRecorder previous = CallMetricRecorder.enter(recorder);
      try {
        delegate.onHalfClose();
      } finally {
        CallMetricRecorder.restore(previous);
      }
    }

    @Override
    public void onCancel() {
      CallMetricRecorder previous = CallMetricRecorder.enter(recorder);
      try {
        delegate.onCancel();
      } finally {
        CallMetricRecorder.restore(previous);
      }
    }

    @Override
    public void onReady(long n) {
      CallMetricRecorder previous = CallMetricRecorder.enter(recorder);
      try {
        delegate.onReady(n);
      } finally {
        CallMetricRecorder.restore(previous);
      }
    }
  }
}
