package io.sluice.transport.grpc.internal.web;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.MessageLite;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * protobuf's JSON mapping (protobuf-java-util's {@link JsonFormat}) for the messages of one
 * method, and the JSON error body {@code {"code": N, "message": "..."}}. Needs full (descriptor
 * carrying) messages: a method of lite messages has none ({@link #forMethod} says so).
 *
 * <p>Immutable once made; the instances are cached per method and shared between threads.
 */
final class JsonCodec {
  private static final Map<MethodDescriptor<?, ?>, JsonCodec> CACHE = new ConcurrentHashMap<>();
  /** Methods cached at most; beyond it a codec is made per call (registries are small). */
  private static final int MAX_CACHED = 4096;

  private final Message requestPrototype;
  private final JsonFormat.Parser parser;
  private final JsonFormat.Printer printer;

  private JsonCodec(Message requestPrototype, Message responsePrototype) {
    JsonFormat.TypeRegistry types =
        JsonFormat.TypeRegistry.newBuilder()
            .add(requestPrototype.getDescriptorForType())
            .add(responsePrototype.getDescriptorForType())
            .build();
    this.requestPrototype = requestPrototype;
    this.parser = JsonFormat.parser().usingTypeRegistry(types);
    this.printer = JsonFormat.printer().usingTypeRegistry(types).omittingInsignificantWhitespace();
  }

  /**
   * The codec of {@code method}.
   *
   * @throws StatusException UNIMPLEMENTED when its messages are lite (no descriptor, no JSON)
   */
  static JsonCodec forMethod(MethodDescriptor<?, ?> method) {
    JsonCodec c = CACHE.get(method);
    if (c != null) {
      return c;
    }
    MessageLite req = prototype(method.requestParser(), method);
    MessageLite resp = prototype(method.responseParser(), method);
    if (!(req instanceof Message r) || !(resp instanceof Message s)) {
      throw new StatusException(
          Status.of(
              Status.Code.UNIMPLEMENTED,
              method.fullName() + " uses lite protobuf messages, which carry no descriptor: JSON cannot be mapped"
                  + " (call it with application/grpc or application/grpc-web)"));
    }
    c = new JsonCodec(r, s);
    if (CACHE.size() < MAX_CACHED) {
      CACHE.putIfAbsent(method, c);
    }
    return c;
  }

  private static MessageLite prototype(com.google.protobuf.Parser<? extends MessageLite> parser, MethodDescriptor<?, ?> m) {
    try {
      return parser.parseFrom(ByteString.EMPTY);
    } catch (InvalidProtocolBufferException e) {
      throw new StatusException(
          Status.of(Status.Code.UNIMPLEMENTED, m.fullName() + ": its messages have required fields; JSON cannot be mapped"));
    }
  }

  /**
   * The request parsed from {@code json}.
   *
   * @throws StatusException INVALID_ARGUMENT for JSON that is malformed or does not fit the type
   */
  @SuppressWarnings("unchecked")
  <Req> Req parse(String json) {
    Message.Builder b = requestPrototype.newBuilderForType();
    try {
      parser.merge(json.isBlank() ? "{}" : json, b);
      return (Req) b.build();
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      throw new StatusException(
          Status.of(
              Status.Code.INVALID_ARGUMENT,
              "malformed JSON for " + requestPrototype.getDescriptorForType().getFullName() + ": " + e.getMessage()));
    }
  }

  /** {@code message} as compact JSON text. */
  byte[] print(MessageLite message) {
    try {
      return printer.print((MessageOrBuilder) message).getBytes(StandardCharsets.UTF_8);
    } catch (InvalidProtocolBufferException e) {
      throw new StatusException(Status.of(Status.Code.INTERNAL, "response not printable as JSON: " + e.getMessage()));
    }
  }

  /** {@code {"code": N, "message": "..."}} for {@code status}. */
  static byte[] error(Status status) {
    return ("{\"code\":" + status.code().value() + ",\"message\":" + quote(status.description()) + "}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /** {@code {"error": {"code": N, "message": "..."}}}: the last line of a stream that fails. */
  static byte[] errorLine(Status status) {
    return ("{\"error\":{\"code\":" + status.code().value() + ",\"message\":" + quote(status.description()) + "}}\n")
        .getBytes(StandardCharsets.UTF_8);
  }

  static String quote(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20 || c == '\u2028' || c == '\u2029') {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
