package io.sluice.cli;

import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.reactor.ReactorClientCalls;
import io.sluice.rpc.services.grpc.reflection.v1.ServerReflectionRequest;
import io.sluice.rpc.services.grpc.reflection.v1.ServerReflectionResponse;
import io.sluice.rpc.services.grpc.reflection.v1.ServiceResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;

/**
 * A client of gRPC server reflection for {@code ./sluice call}: asks {@code
 * grpc.reflection.v1.ServerReflection} first and, when the server does not have it (UNIMPLEMENTED),
 * {@code grpc.reflection.v1alpha.ServerReflection} (grpc-java's {@code ProtoReflectionService}
 * serves only that one). The two versions' messages are the same field for field, so v1's classes
 * serve both. One request per call (each a short bidi stream), over any {@link ReactorRequester}: a
 * gRPC channel or an RSocket connection. Not thread-safe.
 */
final class CallReflection {
  private static final String V1 = "grpc.reflection.v1.ServerReflection";
  private static final String V1ALPHA = "grpc.reflection.v1alpha.ServerReflection";

  private final ReactorRequester requester;
  private final CallOptions options;
  private final Duration wait;
  private MethodDescriptor<ServerReflectionRequest, ServerReflectionResponse> method = method(V1);
  private boolean triedAlpha;

  CallReflection(ReactorRequester requester, CallOptions options, Duration wait) {
    this.requester = requester;
    this.options = options;
    this.wait = wait;
  }

  private static MethodDescriptor<ServerReflectionRequest, ServerReflectionResponse> method(String service) {
    return MethodDescriptor.<ServerReflectionRequest, ServerReflectionResponse>builder()
        .service(service)
        .method("ServerReflectionInfo")
        .kind(MethodKind.BIDI_STREAMING)
        .requestParser(ServerReflectionRequest.parser())
        .responseParser(ServerReflectionResponse.parser())
        .build();
  }

  /** The names of the services the server lists. */
  List<String> services() {
    ServerReflectionResponse r = ask(ServerReflectionRequest.newBuilder().setListServices("").build());
    List<String> names = new ArrayList<>();
    for (ServiceResponse s : r.getListServicesResponse().getServiceList()) {
      names.add(s.getName());
    }
    return names;
  }

  /** The file declaring {@code symbol} and the files it imports. */
  List<FileDescriptorProto> fileContaining(String symbol) {
    return files(ask(ServerReflectionRequest.newBuilder().setFileContainingSymbol(symbol).build()));
  }

  /** The file named {@code name} and the files it imports. */
  List<FileDescriptorProto> fileByName(String name) {
    return files(ask(ServerReflectionRequest.newBuilder().setFileByFilename(name).build()));
  }

  private static List<FileDescriptorProto> files(ServerReflectionResponse r) {
    List<FileDescriptorProto> out = new ArrayList<>();
    for (ByteString b : r.getFileDescriptorResponse().getFileDescriptorProtoList()) {
      out.add(CallSchema.parse(b.toByteArray()));
    }
    return out;
  }

  /**
   * One question, one answer. An {@code error_response} becomes a {@link StatusException} with
   * its code; a server without either reflection service a {@link CallException} that says so.
   */
  private ServerReflectionResponse ask(ServerReflectionRequest request) {
    ServerReflectionResponse r;
    try {
      r = ReactorClientCalls.bidiStreaming(requester, method, options, Flux.just(request)).next().block(wait);
    } catch (StatusException e) {
      if (e.code() == Status.Code.UNIMPLEMENTED && !triedAlpha) {
        triedAlpha = true;
        method = method(V1ALPHA);
        return ask(request);
      }
      if (e.code() == Status.Code.UNIMPLEMENTED) {
        throw new CallException(
            "the server has no reflection service (" + V1 + " nor " + V1ALPHA
                + "): name its .proto with --proto FILE");
      }
      throw e;
    }
    if (r == null) {
      throw new CallException("the server's reflection service ended the call without an answer");
    }
    if (r.hasErrorResponse()) {
      throw new StatusException(
          Status.of(Status.Code.fromValue(r.getErrorResponse().getErrorCode()), r.getErrorResponse().getErrorMessage()));
    }
    return r;
  }
}
