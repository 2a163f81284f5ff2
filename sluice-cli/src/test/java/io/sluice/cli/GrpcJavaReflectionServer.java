package io.sluice.cli;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.ProtoServiceDescriptorSupplier;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.testing.integration.Messages.Payload;
import io.grpc.testing.integration.Messages.ResponseParameters;
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.Messages.SimpleResponse;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * A stock grpc-java server (netty, shaded) on 127.0.0.1 with grpc-java's own reflection service
 * ({@code ProtoReflectionService}: v1alpha only) and two methods of {@code grpc.testing.TestService}
 * built by hand over the interop module's message classes (no grpc-java code generation): {@code
 * UnaryCall} answers a payload of {@code response_size} bytes, or fails with {@code
 * response_status}; {@code StreamingOutputCall} one payload per response parameter. The others
 * are described by reflection but not served (UNIMPLEMENTED).
 */
final class GrpcJavaReflectionServer implements AutoCloseable {
  private static final String SERVICE = "grpc.testing.TestService";

  private final Server server;

  GrpcJavaReflectionServer() throws Exception {
    FileDescriptor file = io.grpc.testing.integration.Test.getDescriptor();
    ServiceDescriptor service = file.findServiceByName("TestService");
    MethodDescriptor<SimpleRequest, SimpleResponse> unary =
        MethodDescriptor.<SimpleRequest, SimpleResponse>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "UnaryCall"))
            .setRequestMarshaller(ProtoUtils.marshaller(SimpleRequest.getDefaultInstance()))
            .setResponseMarshaller(ProtoUtils.marshaller(SimpleResponse.getDefaultInstance()))
            .build();
    MethodDescriptor<StreamingOutputCallRequest, StreamingOutputCallResponse> stream =
        MethodDescriptor.<StreamingOutputCallRequest, StreamingOutputCallResponse>newBuilder()
            .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
            .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "StreamingOutputCall"))
            .setRequestMarshaller(ProtoUtils.marshaller(StreamingOutputCallRequest.getDefaultInstance()))
            .setResponseMarshaller(ProtoUtils.marshaller(StreamingOutputCallResponse.getDefaultInstance()))
            .build();
    io.grpc.ServiceDescriptor descriptor =
        io.grpc.ServiceDescriptor.newBuilder(SERVICE)
            .setSchemaDescriptor(
                new ProtoServiceDescriptorSupplier() {
                  @Override
                  public FileDescriptor getFileDescriptor() {
                    return file;
                  }

                  @Override
                  public ServiceDescriptor getServiceDescriptor() {
                    return service;
                  }
                })
            .addMethod(unary)
            .addMethod(stream)
            .build();
    ServerServiceDefinition definition =
        ServerServiceDefinition.builder(descriptor)
            .addMethod(
                unary,
                ServerCalls.asyncUnaryCall(
                    (request, responses) -> {
                      if (request.getResponseStatus().getCode() != 0) {
                        responses.onError(
                            Status.fromCodeValue(request.getResponseStatus().getCode())
                                .withDescription(request.getResponseStatus().getMessage())
                                .asRuntimeException());
                        return;
                      }
                      responses.onNext(
                          SimpleResponse.newBuilder()
                              .setPayload(payload(request.getResponseSize()))
                              .setUsername("grpc-java")
                              .build());
                      responses.onCompleted();
                    }))
            .addMethod(
                stream,
                ServerCalls.asyncServerStreamingCall(
                    (request, responses) -> {
                      for (ResponseParameters p : request.getResponseParametersList()) {
                        responses.onNext(
                            StreamingOutputCallResponse.newBuilder().setPayload(payload(p.getSize())).build());
                      }
                      responses.onCompleted();
                    }))
            .build();
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(definition)
            .addService(reflection())
            .build()
            .start();
  }

  @SuppressWarnings("deprecation") // v1alpha: what grpc-java's ProtoReflectionService serves
  private static io.grpc.BindableService reflection() {
    return io.grpc.protobuf.services.ProtoReflectionService.newInstance();
  }

  private static Payload payload(int size) {
    return Payload.newBuilder().setBody(ByteString.copyFrom(new byte[size])).build();
  }

  int port() {
    return server.getPort();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow();
    server.awaitTermination(30, TimeUnit.SECONDS);
  }
}
