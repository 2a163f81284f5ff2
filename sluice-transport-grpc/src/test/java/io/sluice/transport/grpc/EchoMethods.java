package io.sluice.transport.grpc;

import com.google.protobuf.BytesValue;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import com.google.protobuf.StringValue;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;

/** Sluice descriptors of the methods of {@link GrpcJavaEchoServer}: what a generated client holds. */
final class EchoMethods {
  private EchoMethods() {}

  static final MethodDescriptor<StringValue, StringValue> UNARY =
      of("Unary", MethodKind.UNARY, StringValue.parser(), StringValue.parser());
  static final MethodDescriptor<BytesValue, BytesValue> BYTES =
      of("Bytes", MethodKind.UNARY, BytesValue.parser(), BytesValue.parser());
  static final MethodDescriptor<StringValue, BytesValue> STREAM =
      of("Stream", MethodKind.SERVER_STREAMING, StringValue.parser(), BytesValue.parser());
  static final MethodDescriptor<StringValue, StringValue> FOREVER =
      of("Forever", MethodKind.SERVER_STREAMING, StringValue.parser(), StringValue.parser());
  static final MethodDescriptor<BytesValue, StringValue> SUM =
      of("Sum", MethodKind.CLIENT_STREAMING, BytesValue.parser(), StringValue.parser());
  static final MethodDescriptor<StringValue, StringValue> CHAT =
      of("Chat", MethodKind.BIDI_STREAMING, StringValue.parser(), StringValue.parser());
  static final MethodDescriptor<StringValue, StringValue> MISSING =
      of("Missing", MethodKind.UNARY, StringValue.parser(), StringValue.parser());

  private static <Q extends MessageLite, R extends MessageLite> MethodDescriptor<Q, R> of(
      String name, MethodKind kind, Parser<Q> request, Parser<R> response) {
    return MethodDescriptor.<Q, R>builder()
        .service(GrpcJavaEchoServer.SERVICE)
        .method(name)
        .kind(kind)
        .requestParser(request)
        .responseParser(response)
        .build();
  }
}
