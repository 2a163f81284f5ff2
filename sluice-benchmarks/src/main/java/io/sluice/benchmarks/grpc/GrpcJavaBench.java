package io.sluice.benchmarks.grpc;

import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.sluice.benchmarks.harness.Counter;
import io.sluice.benchmarks.harness.Impl.LatencySink;
import io.sluice.benchmarks.rpc.Payload;
import io.sluice.benchmarks.rpc.StreamRequest;

/**
 * grpc-java's server and client of Sluice RPC's benchmark service {@code sluice.bench.rpc.Bench}
 * ({@code rpc_bench.proto}), so that grpc-java and Sluice serve and call the very same service,
 * path and messages: method descriptors built by hand from the Sluice-generated message classes
 * (protobuf marshallers), a {@link ServerServiceDefinition} with the same semantics as {@code
 * BenchService}: {@code Response} echoes the request, {@code Stream} sends {@code count} payloads
 * of {@code size} bytes ({@code 0}: until cancelled) while the call is ready.
 */
final class GrpcJavaBench {
  static final String SERVICE = "sluice.bench.rpc.Bench";

  static final MethodDescriptor<Payload, Payload> RESPONSE =
      MethodDescriptor.<Payload, Payload>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Response"))
          .setRequestMarshaller(ProtoUtils.marshaller(Payload.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(Payload.getDefaultInstance()))
          .build();

  static final MethodDescriptor<StreamRequest, Payload> STREAM =
      MethodDescriptor.<StreamRequest, Payload>newBuilder()
          .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
          .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Stream"))
          .setRequestMarshaller(ProtoUtils.marshaller(StreamRequest.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(Payload.getDefaultInstance()))
          .build();

  private GrpcJavaBench() {}

  /** The service as grpc-java serves it (handlers on the event loop: direct executor). */
  static ServerServiceDefinition service() {
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(RESPONSE, ServerCalls.asyncUnaryCall((request, out) -> {
          out.onNext(request);
          out.onCompleted();
        }))
        .addMethod(STREAM, ServerCalls.asyncServerStreamingCall(GrpcJavaBench::stream))
        .build();
  }

  private static void stream(StreamRequest request, StreamObserver<Payload> out) {
    ServerCallStreamObserver<Payload> call = (ServerCallStreamObserver<Payload>) out;
    Payload p = payload(request.getSize());
    long count = request.getCount() > 0 ? request.getCount() : Long.MAX_VALUE;
    long[] sent = new long[1];
    boolean[] done = new boolean[1];
    call.setOnCancelHandler(() -> done[0] = true);
    call.setOnReadyHandler(() -> {
      while (!done[0] && sent[0] < count && call.isReady()) {
        call.onNext(p);
        if (++sent[0] == count) {
          done[0] = true;
          call.onCompleted();
        }
      }
    });
  }

  static Payload payload(int size) {
    return Payload.newBuilder().setData(ByteString.copyFrom(new byte[Math.max(0, size)])).build();
  }

  /**
   * grpc-java's client: {@code window} unary calls outstanding, each end starting the next; a
   * failed call is counted into {@code failures} (the channel reconnects by itself).
   */
  static void unaryLoop(Channel channel, Payload request, int window, Counter received,
      LatencySink latencies, Failures failures) {
    for (int i = 0; i < window; i++) {
      new UnaryLoop(channel, request, received, latencies, failures).next();
    }
  }

  /** grpc-java's client: one unending server-streaming call, every message counted. */
  static void stream(Channel channel, int size, Counter received) {
    ClientCalls.asyncServerStreamingCall(
        channel.newCall(STREAM, CallOptions.DEFAULT),
        StreamRequest.newBuilder().setSize(size).build(),
        new StreamObserver<Payload>() {
          @Override
          public void onNext(Payload value) {
            received.increment();
          }

          @Override
          public void onError(Throwable t) {
            System.err.println("grpc call failed: " + t);
          }

          @Override
          public void onCompleted() {}
        });
  }

  private static final class UnaryLoop implements StreamObserver<Payload> {
    private final Channel channel;
    private final Payload request;
    private final Counter received;
    private final LatencySink latencies;
    private final Failures failures;
    private long started;

    UnaryLoop(Channel channel, Payload request, Counter received, LatencySink latencies,
        Failures failures) {
      this.channel = channel;
      this.request = request;
      this.received = received;
      this.latencies = latencies;
      this.failures = failures;
    }

    void next() {
      started = System.nanoTime();
      ClientCalls.asyncUnaryCall(channel.newCall(RESPONSE, CallOptions.DEFAULT), request, this);
    }

    @Override
    public void onNext(Payload value) {
      received.increment();
    }

    @Override
    public void onError(Throwable t) {
      failures.failed(t);
      failures.later(this::next); // not from here: a call failing at once would recurse
    }

    @Override
    public void onCompleted() {
      latencies.record(System.nanoTime() - started);
      next();
    }
  }
}
