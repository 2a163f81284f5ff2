package io.sluice.grpc.interop;

import com.google.protobuf.ByteString;
import io.grpc.testing.integration.Messages.Payload;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;

/**
 * The payloads the interop cases exchange: {@code size} zero bytes of type COMPRESSABLE, as
 * grpc-java's client builds its expected ("golden") messages. Stateless; holds no buffers.
 */
final class Payloads {
  /** Largest payload the test service answers with: above very_large_response's 10 MiB. */
  static final int MAX_RESPONSE_SIZE = 16 * 1024 * 1024;

  private Payloads() {}

  /** {@code size} zero bytes. */
  static Payload zeros(int size) {
    return Payload.newBuilder().setBody(ByteString.copyFrom(new byte[size])).build();
  }

  /**
   * The payload of a response of {@code size} bytes a request asked for: INVALID_ARGUMENT when the
   * size is negative or above {@link #MAX_RESPONSE_SIZE}.
   */
  static Payload response(int size) {
    if (size < 0 || size > MAX_RESPONSE_SIZE) {
      throw new StatusException(
          Status.of(
              Status.Code.INVALID_ARGUMENT,
              "response size " + size + " is outside 0.." + MAX_RESPONSE_SIZE + " bytes"));
    }
    return zeros(size);
  }
}
