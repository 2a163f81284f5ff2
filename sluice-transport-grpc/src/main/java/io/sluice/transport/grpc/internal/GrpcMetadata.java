package io.sluice.transport.grpc.internal;

import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.sluice.rpc.Headers;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import java.util.Map;

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

  /**
   * True for headers the gRPC protocol reserves (not metadata): {@code content-type}, {@code te},
   * {@code grpc-timeout}, {@code grpc-encoding}, {@code grpc-accept-encoding}, {@code
   * grpc-status}, {@code grpc-message} and connection headers. {@code grpc-status-details-bin}
   * is metadata: it reaches the application.
   */
  public static boolean isReserved(CharSequence name) {
    // Every call's headers pass here: by length, then one comparison (a set of names hashed each
    // name, and netty's decoder makes a new name object per header, so no hash was ever kept).
    int n = name.length();
    if (n == 0) {
      return false;
    }
    char first = name.charAt(0);
    if (first == ':') {
      return true; // pseudo-headers
    }
    switch (n) {
      case 2:
        return is(name, "te");
      case 4:
        return is(name, "host");
      case 10:
        return is(name, "connection");
      case 11:
        return is(name, "grpc-status");
      case 12:
        return first == 'c' ? is(name, "content-type") : is(name, "grpc-timeout") || is(name, "grpc-message");
      case 13:
        return is(name, "grpc-encoding");
      case 14:
        return is(name, "content-length");
      case 20:
        return is(name, "grpc-accept-encoding");
      default:
        return false;
    }
  }

  private static boolean is(CharSequence name, String reserved) {
    return AsciiString.contentEquals(name, reserved);
  }

  /**
   * The metadata of {@code headers}. Entries that {@link Headers} cannot hold (a key outside
   * {@code [a-z0-9-_.]}, a value that is not printable ASCII, a {@code -bin} value that is not
   * base64) are dropped, as gRPC drops malformed metadata.
   *
   * @throws StatusException RESOURCE_EXHAUSTED for more than {@link Headers#MAX_ENTRIES} entries
   */
  public static Headers toHeaders(Http2Headers headers) {
    RequestHead head = readRequest(headers);
    if (head.tooMany) {
      throw tooMany();
    }
    return head.metadata;
  }

  /**
   * What a gRPC server reads of a request's headers, gathered in one pass over them ({@link
   * #readRequest}): the pseudo-headers and gRPC's own headers it looks at (the first value of
   * each; null when absent) and the call's metadata.
   */
  public static final class RequestHead {
    public CharSequence method;
    public CharSequence path;
    public CharSequence scheme;
    public CharSequence contentType;
    public CharSequence timeout;
    public CharSequence encoding;
    public CharSequence acceptEncoding;
    /** The metadata, as {@link #toHeaders} makes it. */
    public Headers metadata;
    /** More than {@link Headers#MAX_ENTRIES} metadata entries: the call is to fail with {@link #tooMany}. */
    public boolean tooMany;

    /** {@code name} is reserved ({@link #isReserved}): keeps its value if it is one read here. */
    private void take(CharSequence name, CharSequence value) {
      switch (name.length()) {
        case 5:
          path = first(path, value, name, ":path");
          break;
        case 7:
          if (name.charAt(1) == 'm') {
            method = first(method, value, name, ":method");
          } else {
            scheme = first(scheme, value, name, ":scheme");
          }
          break;
        case 12:
          if (name.charAt(0) == 'c') {
            contentType = first(contentType, value, name, "content-type");
          } else {
            timeout = first(timeout, value, name, "grpc-timeout");
          }
          break;
        case 13:
          encoding = first(encoding, value, name, "grpc-encoding");
          break;
        case 20:
          acceptEncoding = first(acceptEncoding, value, name, "grpc-accept-encoding");
          break;
        default:
          break;
      }
    }

    private static CharSequence first(CharSequence kept, CharSequence value, CharSequence name, String wanted) {
      return kept == null && is(name, wanted) ? value : kept;
    }
  }

  /**
   * The request's {@link RequestHead}, in one pass over {@code headers}. Too many metadata entries
   * do not throw here ({@link RequestHead#tooMany}): the caller answers what it checks first.
   */
  public static RequestHead readRequest(Http2Headers headers) {
    RequestHead head = new RequestHead();
    Headers.Builder b = null;
    int count = 0;
    for (Map.Entry<CharSequence, CharSequence> e : headers) {
      CharSequence name = e.getKey();
      if (isReserved(name)) {
        head.take(name, e.getValue());
        continue;
      }
      if (count == Headers.MAX_ENTRIES) {
        head.tooMany = true;
        continue;
      }
      String key = name.toString();
      String value = e.getValue().toString();
      if (b == null) {
        b = Headers.builder();
      }
      if (Headers.isBinaryKey(key) && value.indexOf(',') >= 0) {
        for (String part : value.split(",", -1)) {
          if (count == Headers.MAX_ENTRIES) {
            head.tooMany = true;
            break;
          }
          count = addChecked(b, key, part.trim(), count);
        }
      } else {
        count = addChecked(b, key, value, count);
      }
    }
    head.metadata = b == null ? Headers.EMPTY : b.build();
    return head;
  }

  /** The RESOURCE_EXHAUSTED failure of more than {@link Headers#MAX_ENTRIES} metadata entries. */
  public static StatusException tooMany() {
    return new StatusException(
        Status.of(Status.Code.RESOURCE_EXHAUSTED, "more than " + Headers.MAX_ENTRIES + " metadata entries"));
  }

  private static int addChecked(Headers.Builder b, String key, String value, int count) {
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
