package io.sluice.grpc.interop;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.grpc.testing.integration.EmptyProtos.Empty;
import io.grpc.testing.integration.GrpcTestServiceImplBase;
import io.grpc.testing.integration.Messages.EchoStatus;
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.Messages.SimpleResponse;
import io.grpc.testing.integration.Messages.StreamingInputCallRequest;
import io.grpc.testing.integration.Messages.StreamingInputCallResponse;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import io.grpc.testing.integration.Messages.TestOrcaReport;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.services.orca.CallMetricRecorder;
import io.sluice.rpc.services.orca.OrcaService;
import io.sluice.rpc.services.orca.ServerMetricRecorder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * {@code grpc.testing.TestService} with Sluice's generated gRPC-flavor server stubs: what
 * grpc-java's interop client asks of a server (shared/GRPC-NOTES.md). Unary and streaming calls
 * answer with zero-filled payloads of the sizes the request names, streamed responses after the
 * intervals it names; a request's {@code response_status} ends the call with that code and message;
 * {@code fill_server_id} fills {@code server_id}. A FullDuplexCall whose requests ask for no
 * response keeps the call open until the caller ends it or its deadline passes (the "sleeping
 * server" of timeout_on_sleeping_server). UnimplementedCall stays unimplemented (UNIMPLEMENTED, from
 * the generated base), as does CacheableUnaryCall (grpc-java's reference server lacks it too).
 *
 * <p><b>Compression.</b> {@code response_compressed} and a response parameter's {@code compressed}
 * are passed on per message through {@code ServerCallStreamObserver.setMessageCompression}, a hint
 * the transport honours if it compresses (RSocket does not). {@code expect_compressed} is not
 * checked: Sluice's call model does not tell a handler whether a request arrived compressed, so an
 * uncompressed request flagged {@code expect_compressed} is served like any other, as grpc-java's
 * reference server does (the two probe cases then fail, as they do against it).
 *
 * <p><b>ORCA.</b> A UnaryCall's {@code orca_per_query_report} is recorded in the call's {@link
 * CallMetricRecorder} (sent back in its {@code endpoint-load-metrics-bin} trailer by the {@link
 * io.sluice.rpc.services.orca.OrcaServerInterceptor} of {@link InteropServices#registry}); a
 * FullDuplexCall request's {@code orca_oob_report} replaces the server-wide figures of {@link
 * #orcaService()}, which sends them on its OpenRcaService streams (every second at most, as
 * grpc-java's interop server does).
 *
 * <p>Custom metadata is echoed by {@link MetadataEcho}, which wraps this service's definition
 * ({@link InteropServices#registry}): as response header and trailer over gRPC, dropped over
 * RSocket, which has neither.
 *
 * <p><b>Threads.</b> Handlers run on the connection's event loop and never block there; streamed
 * responses are written from one timer thread this service owns, released by {@link #close()}.
 * <b>Limits.</b> Responses of at most {@link Payloads#MAX_RESPONSE_SIZE} bytes, at most {@link
 * ResponseSender#MAX_PENDING} of them waiting per call, at most {@link #MAX_HALF_DUPLEX_REQUESTS}
 * requests held by a HalfDuplexCall. Holds no buffers.
 */
public final class TestServiceImpl extends GrpcTestServiceImplBase implements AutoCloseable {
  /** Most requests a HalfDuplexCall holds before its caller half-closes. */
  public static final int MAX_HALF_DUPLEX_REQUESTS = 1024;

  /** The shortest interval between two out-of-band ORCA reports (grpc-java's interop server's). */
  public static final Duration ORCA_MIN_REPORT_INTERVAL = Duration.ofSeconds(1);

  private final String serverId;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "sluice-interop-responses");
            t.setDaemon(true);
            return t;
          });

  private final ServerMetricRecorder orcaRecorder = new ServerMetricRecorder();
  private final OrcaService orca =
      OrcaService.builder()
          .recorder(orcaRecorder)
          .minReportInterval(ORCA_MIN_REPORT_INTERVAL)
          .timer(timer)
          .build();

  /** A service that answers {@code fill_server_id} with {@code serverId}. */
  public TestServiceImpl(String serverId) {
    this.serverId = Objects.requireNonNull(serverId, "serverId");
  }

  /** The ORCA out-of-band service whose figures FullDuplexCall's {@code orca_oob_report} sets. */
  public OrcaService orcaService() {
    return orca;
  }

  @Override
  public void emptyCall(Empty request, StreamObserver<Empty> responses) {
    responses.onNext(Empty.getDefaultInstance());
    responses.onCompleted();
  }

  @Override
  public void unaryCall(SimpleRequest request, StreamObserver<SimpleResponse> responses) {
    if (request.hasOrcaPerQueryReport()) {
      record(request.getOrcaPerQueryReport(), CallMetricRecorder.current());
    }
    Status status = requested(request.hasResponseStatus(), request.getResponseStatus());
    if (status != null) {
      responses.onError(new StatusException(status));
      return;
    }
    SimpleResponse.Builder b = SimpleResponse.newBuilder();
    try {
      if (request.getResponseSize() != 0) {
        b.setPayload(Payloads.response(request.getResponseSize()));
      }
    } catch (StatusException e) {
      responses.onError(e);
      return;
    }
    if (request.getFillServerId()) {
      b.setServerId(serverId);
    }
    if (request.getResponseCompressed().getValue()) {
      ServerCallStreamObserver<SimpleResponse> out = (ServerCallStreamObserver<SimpleResponse>) responses;
      out.setCompression("gzip");
      out.setMessageCompression(true);
    }
    responses.onNext(b.build());
    responses.onCompleted();
  }

  @Override
  public void streamingOutputCall(
      StreamingOutputCallRequest request, StreamObserver<StreamingOutputCallResponse> responses) {
    ResponseSender sender = new ResponseSender(responses, timer);
    Status status = requested(request.hasResponseStatus(), request.getResponseStatus());
    if (status != null) {
      sender.fail(status);
      return;
    }
    sender.enqueue(request.getResponseParametersList());
    sender.finish();
  }

  @Override
  public StreamObserver<StreamingInputCallRequest> streamingInputCall(
      StreamObserver<StreamingInputCallResponse> responses) {
    return new StreamObserver<>() {
      private long total;

      @Override
      public void onNext(StreamingInputCallRequest request) {
        total += request.getPayload().getBody().size();
      }

      @Override
      public void onError(Throwable t) {} // the call was cancelled: nothing to answer

      @Override
      public void onCompleted() {
        if (total > Integer.MAX_VALUE) {
          responses.onError(StatusException.of(Status.Code.OUT_OF_RANGE,
              "aggregated payload size " + total + " does not fit the response's int32"));
          return;
        }
        responses.onNext(
            StreamingInputCallResponse.newBuilder().setAggregatedPayloadSize((int) total).build());
        responses.onCompleted();
      }
    };
  }

  @Override
  public StreamObserver<StreamingOutputCallRequest> fullDuplexCall(
      StreamObserver<StreamingOutputCallResponse> responses) {
    ResponseSender sender = new ResponseSender(responses, timer);
    return new StreamObserver<>() {
      @Override
      public void onNext(StreamingOutputCallRequest request) {
        if (request.hasOrcaOobReport()) {
          TestOrcaReport r = request.getOrcaOobReport();
          // One change: a concurrent call's report, or a report sent meanwhile, never mixes two.
          orcaRecorder.update(
              o -> o.clear()
                  .setCpuUtilization(r.getCpuUtilization())
                  .setMemoryUtilization(r.getMemoryUtilization())
                  .setAllUtilization(r.getUtilizationMap()));
        }
        Status status = requested(request.hasResponseStatus(), request.getResponseStatus());
        if (status != null) {
          sender.fail(status);
        } else {
          sender.enqueue(request.getResponseParametersList());
        }
      }

      @Override
      public void onError(Throwable t) {} // cancelled: the sender saw it too

      @Override
      public void onCompleted() {
        sender.finish();
      }
    };
  }

  @Override
  public StreamObserver<StreamingOutputCallRequest> halfDuplexCall(
      StreamObserver<StreamingOutputCallResponse> responses) {
    ResponseSender sender = new ResponseSender(responses, timer);
    List<StreamingOutputCallRequest> held = new ArrayList<>();
    return new StreamObserver<>() {
      private boolean failed;

      @Override
      public void onNext(StreamingOutputCallRequest request) {
        if (failed) {
          return;
        }
        if (held.size() >= MAX_HALF_DUPLEX_REQUESTS) {
          failed = true;
          held.clear();
          sender.fail(Status.of(Status.Code.RESOURCE_EXHAUSTED,
              "a HalfDuplexCall holds at most " + MAX_HALF_DUPLEX_REQUESTS + " requests"));
          return;
        }
        held.add(request);
      }

      @Override
      public void onError(Throwable t) {
        held.clear();
      }

      @Override
      public void onCompleted() {
        for (StreamingOutputCallRequest request : held) {
          Status status = requested(request.hasResponseStatus(), request.getResponseStatus());
          if (status != null) {
            sender.fail(status);
            return;
          }
          sender.enqueue(request.getResponseParametersList());
        }
        held.clear();
        sender.finish();
      }
    };
  }

  /** Records a per-query report's figures in a call's recorder. */
  private static void record(TestOrcaReport r, CallMetricRecorder recorder) {
    recorder.recordCpuUtilization(r.getCpuUtilization()).recordMemoryUtilization(r.getMemoryUtilization());
    for (Map.Entry<String, Double> e : r.getUtilizationMap().entrySet()) {
      recorder.recordUtilization(e.getKey(), e.getValue());
    }
    for (Map.Entry<String, Double> e : r.getRequestCostMap().entrySet()) {
      recorder.recordRequestCost(e.getKey(), e.getValue());
    }
  }

  /** The status a request's {@code response_status} asks for, or null for none (or OK). */
  private static Status requested(boolean has, EchoStatus s) {
    if (!has || s.getCode() == 0) {
      return null;
    }
    return Status.of(Status.Code.fromValue(s.getCode()), s.getMessage());
  }

  /** Stops the timer that writes streamed responses; calls still sending end with their connection. */
  @Override
  public void close() {
    timer.shutdownNow();
  }
}
