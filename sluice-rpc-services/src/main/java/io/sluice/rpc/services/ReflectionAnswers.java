package io.sluice.rpc.services;

import com.google.protobuf.Descriptors.FileDescriptor;
import io.sluice.rpc.Status;
import io.sluice.rpc.services.grpc.reflection.v1.ErrorResponse;
import io.sluice.rpc.services.grpc.reflection.v1.ExtensionNumberResponse;
import io.sluice.rpc.services.grpc.reflection.v1.ExtensionRequest;
import io.sluice.rpc.services.grpc.reflection.v1.FileDescriptorResponse;
import io.sluice.rpc.services.grpc.reflection.v1.ListServiceResponse;
import io.sluice.rpc.services.grpc.reflection.v1.ServerReflectionRequest;
import io.sluice.rpc.services.grpc.reflection.v1.ServerReflectionResponse;
import io.sluice.rpc.services.grpc.reflection.v1.ServiceResponse;
import java.util.List;

/**
 * The answer to each kind of {@code grpc.reflection.v1} request, from a {@link ReflectionIndex}
 * and the names of the services served. A request that cannot be answered gets an {@code
 * error_response}: NOT_FOUND for an unknown file, symbol, extension or type, INVALID_ARGUMENT for a
 * request that names no kind. Immutable; thread-safe.
 */
final class ReflectionAnswers {
  private final ReflectionIndex index;
  private final ListServiceResponse services;

  ReflectionAnswers(ReflectionIndex index, List<String> serviceNames) {
    this.index = index;
    ListServiceResponse.Builder b = ListServiceResponse.newBuilder();
    for (String name : serviceNames) {
      b.addService(ServiceResponse.newBuilder().setName(name));
    }
    this.services = b.build();
  }

  ServerReflectionResponse answer(ServerReflectionRequest request) {
    ServerReflectionResponse.Builder out =
        ServerReflectionResponse.newBuilder().setValidHost(request.getHost()).setOriginalRequest(request);
    switch (request.getMessageRequestCase()) {
      case LIST_SERVICES:
        return out.setListServicesResponse(services).build();
      case FILE_BY_FILENAME:
        return files(out, index.file(request.getFileByFilename()), "file " + request.getFileByFilename());
      case FILE_CONTAINING_SYMBOL:
        return files(
            out, index.fileOfSymbol(request.getFileContainingSymbol()), "symbol " + request.getFileContainingSymbol());
      case FILE_CONTAINING_EXTENSION: {
        ExtensionRequest x = request.getFileContainingExtension();
        return files(
            out,
            index.fileOfExtension(x.getContainingType(), x.getExtensionNumber()),
            "extension " + x.getExtensionNumber() + " of " + x.getContainingType());
      }
      case ALL_EXTENSION_NUMBERS_OF_TYPE: {
        String type = request.getAllExtensionNumbersOfType();
        if (!index.isMessage(type)) {
          return error(out, Status.Code.NOT_FOUND, "message type " + type + " not found");
        }
        return out.setAllExtensionNumbersResponse(
                ExtensionNumberResponse.newBuilder()
                    .setBaseTypeName(type)
                    .addAllExtensionNumber(index.extensionNumbers(type)))
            .build();
      }
      default:
        return error(out, Status.Code.INVALID_ARGUMENT, "the request names no question (message_request not set)");
    }
  }

  private ServerReflectionResponse files(ServerReflectionResponse.Builder out, FileDescriptor file, String what) {
    if (file == null) {
      return error(out, Status.Code.NOT_FOUND, what + " not found");
    }
    return out.setFileDescriptorResponse(
            FileDescriptorResponse.newBuilder().addAllFileDescriptorProto(index.withDependencies(file)))
        .build();
  }

  private static ServerReflectionResponse error(
      ServerReflectionResponse.Builder out, Status.Code code, String message) {
    return out.setErrorResponse(ErrorResponse.newBuilder().setErrorCode(code.value()).setErrorMessage(message))
        .build();
  }
}
