package io.sluice.transport.grpc.internal;

import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.sluice.rpc.Headers;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * gRPC metadata to and from Sluice {@link Headers}. Pseudo-headers and the headers gRPC's protocol
 * itself uses ({@link #isReserved}) are not metadata and are skipped both ways. Binary keys
 * ({@code -bin}) carry base64, which {@link Headers} keeps as it is (see {@link
 * Headers#getBinary}); a {@code -bin} header that joins several values with commas is split.
 *
 * <p>Stateless: safe from any thread. Holds no buffers.
 */
public final class GrpcMetadata {
  private GrpcMetadata() {}

  private static final Set<String> RESERVED =
      Set.of(
          "content-type",
          "content-length",
          "te",
          "connection",
          "host",
          "grpc-timeout",
          "grpc-encoding",
          "grpc-accept-encoding",
          "grpc-status",
          "grpc-message");

  /** {@link #RESERVED} as netty's header names, looked up without making a String of each name. */
  private static final Set<AsciiString> RESERVED_ASCII =
      RESERVED.stream().map(AsciiString::cached).collect(Collectors.toUnmodifiableSet());

  /**
   * True for headers the gRPC protocol reserves (not metadata): {@code content-type}, {@code te},
   * {@code grpc-timeout}, {@code grpc-encoding}, {@code grpc-accept-encoding}, {@code
   * grpc-status}, {@code grpc-message} and connection headers. {@code grpc-status-details-bin}
   * is metadata: it reaches the application.
   */
  public static boolean isReserved(CharSequence name) {
    if (name.length() == 0) {
      return false;
    }
    if (name.charAt(0) == ':') {
      return true;
    }
    // The names netty's HPACK decoder hands over are AsciiStrings (hash kept in the instance).
    return name instanceof AsciiString a ? RESERVED_ASCII.contains(a) : RESERVED.contains(name.toString());
  }

  /**
   * The metadata of {@code headers}. Entries that {@link Headers} cannot hold (a key outside
   * {@code [a-z0-9-_.]}, a value that is not printable ASCII, a {@code -bin} value that is not
   * base64) are dropped, as gRPC drops malformed metadata.
   *
   * @throws StatusException RESOURCE_EXHAUSTED for more than {@link Headers#MAX_ENTRIES} entries
   */
  public static Headers toHeaders(Http2Headers headers) {
    Headers.Builder b = null;
    int count = 0;
    for (Map.Entry<CharSequence, CharSequence> e : headers) {
      CharSequence name = e.getKey();
      if (isReserved(name)) {
        continue;
      }
      String key = name.toString();
      String value = e.getValue().toString();
      if (b == null) {
        b = Headers.builder();
      }
      if (Headers.isBinaryKey(key) && value.indexOf(',') >= 0) {
        for (String part : value.split(",", -1)) {
          count = addChecked(b, key, part.trim(), count);
        }
      } else {
        count = addChecked(b, key, value, count);
      }
    }
    return b == null ? Headers.EMPTY : b.build();
  }

  private static int addChecked(Headers.Builder b, String key, String value, int count) {
    if (count == Headers.MAX_ENTRIES) {
      throw new StatusException(
          Status.of(
              Status.Code.RESOURCE_EXHAUSTED, "more than " + Headers.MAX_ENTRIES + " metadata entries"));
    }
    try {
      b.add(key, value);
      return count + 1;
    } catch (IllegalArgumentException malformed) {
      return count;
    }
  }

  /** Adds the entries of {@code metadata} to {@code out}, skipping {@link #isReserved reserved} keys. */
  public static void addTo(Headers metadata, Http2Headers out) {
    for (Map.Entry<String, String> e : metadata.entries()) {
      if (!isReserved(e.getKey())) {
        out.add(e.getKey(), e.getValue());
      }
    }
  }
}
