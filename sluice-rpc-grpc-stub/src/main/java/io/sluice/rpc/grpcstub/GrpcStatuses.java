package io.sluice.rpc.grpcstub;

import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.sluice.rpc.Headers;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import java.util.Map;

/**
 * Maps between Sluice {@link Status} and gRPC's {@link io.grpc.Status}; the codes are the same
 * numbers. Trailers travel too: a handler's {@code StatusRuntimeException} trailers become the
 * call's trailers, and a failed call's trailers (when the caller reads response metadata) become
 * its exception's {@code getTrailers()}, so grpc-java's rich error model ({@code
 * grpc-status-details-bin}) works across the flavor.
 */
final class GrpcStatuses {
  private GrpcStatuses() {}

  /** What a gRPC client observer receives for a failed call (without trailers). */
  static StatusRuntimeException toGrpc(Throwable t) {
    return toGrpc(t, null);
  }

  /**
   * What a gRPC client observer receives for a failed call whose trailers are {@code trailers}
   * (null: unknown, the caller reads no response metadata).
   */
  static StatusRuntimeException toGrpc(Throwable t, Headers trailers) {
    if (t instanceof StatusRuntimeException) {
      return (StatusRuntimeException) t;
    }
    Status s = io.sluice.rpc.rsocket.RpcErrors.fromThrowable(t);
    return io.grpc.Status.fromCodeValue(s.code().value())
        .withDescription(s.description().isEmpty() ? null : s.description())
        .withCause(t)
        .asRuntimeException(trailers == null ? null : toMetadata(trailers));
  }

  /** What the Sluice call model sends for an error a gRPC handler reported. */
  static Throwable toSluice(Throwable t) {
    io.grpc.Status g = null;
    Metadata trailers = null;
    if (t instanceof StatusRuntimeException) {
      g = ((StatusRuntimeException) t).getStatus();
      trailers = ((StatusRuntimeException) t).getTrailers();
    } else if (t instanceof io.grpc.StatusException) {
      g = ((io.grpc.StatusException) t).getStatus();
      trailers = ((io.grpc.StatusException) t).getTrailers();
    }
    if (g == null) {
      return t;
    }
    return new StatusException(
        Status.of(Status.Code.fromValue(g.getCode().value()), g.getDescription()),
        trailers == null ? Headers.EMPTY : toHeaders(trailers),
        t);
  }

  /** Sluice headers as gRPC metadata ({@code -bin} values decoded). */
  static Metadata toMetadata(Headers headers) {
    Metadata md = new Metadata();
    for (Map.Entry<String, String> e : headers.entries()) {
      String key = e.getKey();
      try {
        if (Headers.isBinaryKey(key)) {
          md.put(
              Metadata.Key.of(key, Metadata.BINARY_BYTE_MARSHALLER),
              java.util.Base64.getDecoder().decode(e.getValue()));
        } else {
          md.put(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER), e.getValue());
        }
      } catch (IllegalArgumentException bad) {
        // A key or value grpc-java does not take: left out.
      }
    }
    return md;
  }

  /**
   * gRPC metadata as Sluice headers. Keys gRPC reserves for its own framing ({@code grpc-*} but
   * {@code grpc-status-details-bin}) and pairs Sluice headers do not take are left out.
   */
  static Headers toHeaders(Metadata md) {
    Headers.Builder b = Headers.builder();
    int n = 0;
    for (String key : md.keys()) {
      if (key.startsWith("grpc-") && !key.equals("grpc-status-details-bin")) {
        continue;
      }
      try {
        if (Headers.isBinaryKey(key)) {
          for (byte[] v : md.getAll(Metadata.Key.of(key, Metadata.BINARY_BYTE_MARSHALLER))) {
            if (n++ < Headers.MAX_ENTRIES) {
              b.addBinary(key, v);
            }
          }
        } else {
          for (String v : md.getAll(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER))) {
            if (n++ < Headers.MAX_ENTRIES) {
              b.add(key, v);
            }
          }
        }
      } catch (IllegalArgumentException bad) {
        // A key or value Sluice headers do not take: left out.
      }
    }
    return b.build();
  }
}
