package io.sluice.rpc.rsocket;

import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.exceptions.CanceledException;
import io.sluice.exceptions.ConnectionCloseException;
import io.sluice.exceptions.ConnectionErrorException;
import io.sluice.exceptions.InvalidException;
import io.sluice.exceptions.RejectedException;
import io.sluice.rpc.Headers;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;

/**
 * Carries a {@link Status} in RSocket ERROR frames and back (docs/rpc-wire-format.md): a failed
 * call ends with ERROR code APPLICATION_ERROR whose UTF-8 data is {@code <code>:<description>},
 * the status code as a decimal number (e.g. {@code 12:unknown service demo.Nope}).
 *
 * <p>Stateless: call it from any thread. Holds no buffers (error data is a string).
 */
public final class RpcErrors {
  private RpcErrors() {}

  /** Separates the description from the response metadata that may follow it. */
  static final char METADATA_SEPARATOR = '\0';

  /**
   * The error data for {@code status}. A NUL in the description becomes U+FFFD, so no text after
   * it can pass for response metadata (the receiver reads a block after the last NUL).
   */
  public static String encode(Status status) {
    return status.code().value() + ":" + status.description().replace(METADATA_SEPARATOR, '\uFFFD');
  }

  /**
   * The error data for {@code status} with response metadata (docs/rpc-wire-format.md): {@code
   * <code>:<description>}, then, when {@code headers} or {@code trailers} is not empty, a NUL
   * character and the base64 of their {@link ResponseMetadataCodec} encoding. A NUL in the
   * description becomes U+FFFD so the separator stays unique. Only for callers that asked for
   * response metadata (call metadata flag 0x20).
   */
  public static String encode(Status status, Headers headers, Headers trailers) {
    boolean none = (headers == null || headers.isEmpty()) && (trailers == null || trailers.isEmpty());
    if (none) {
      return encode(status);
    }
    return encode(status) + METADATA_SEPARATOR + ResponseMetadataCodec.encodeText(headers, trailers);
  }

  /** The exception to fail a stream with for {@code status} and response metadata (not for OK). */
  public static ApplicationErrorException toWire(Status status, Headers headers, Headers trailers) {
    return new ApplicationErrorException(encode(status, headers, trailers));
  }

  /**
   * The response metadata at the end of the error data of {@code t} (an APPLICATION_ERROR), or null
   * when there is none.
   */
  public static ResponseMetadataCodec.Decoded responseMetadata(Throwable t) {
    if (!(t instanceof ApplicationErrorException) || t.getMessage() == null) {
      return null;
    }
    String data = t.getMessage();
    int sep = data.lastIndexOf(METADATA_SEPARATOR);
    return sep < 0 ? null : ResponseMetadataCodec.decodeText(data.substring(sep + 1));
  }

  /** {@code data} without response metadata at its end (when it has some). */
  private static String withoutMetadata(String data) {
    int sep = data.lastIndexOf(METADATA_SEPARATOR);
    if (sep < 0 || ResponseMetadataCodec.decodeText(data.substring(sep + 1)) == null) {
      return data;
    }
    return data.substring(0, sep);
  }

  /** The exception to fail a stream with for {@code status} (not for OK). */
  public static ApplicationErrorException toWire(Status status) {
    return new ApplicationErrorException(encode(status));
  }

  /**
   * Parses error data written by {@link #encode} (response metadata at its end is left out); text
   * in any other form becomes {@link
   * Status.Code#UNKNOWN} with the whole text as description.
   */
  public static Status decode(String data) {
    if (data == null) {
      return Status.Code.UNKNOWN.toStatus();
    }
    data = withoutMetadata(data);
    int colon = data.indexOf(':');
    if (colon > 0 && colon <= 2) {
      int code = 0;
      for (int i = 0; i < colon; i++) {
        char c = data.charAt(i);
        if (c < '0' || c > '9') {
          return Status.of(Status.Code.UNKNOWN, data);
        }
        code = code * 10 + (c - '0');
      }
      if (code <= 16) {
        return Status.of(Status.Code.fromValue(code), data.substring(colon + 1));
      }
    }
    return Status.of(Status.Code.UNKNOWN, data);
  }

  /**
   * The status of a failure seen by a client: an RPC status from APPLICATION_ERROR, CANCELLED for
   * RSocket CANCELED, UNAVAILABLE for REJECTED and connection errors, INTERNAL for INVALID, the
   * status of a {@link StatusException}, UNKNOWN with the throwable's text otherwise (a failure of
   * the caller itself: nothing was received).
   */
  public static Status fromThrowable(Throwable t) {
    if (t instanceof StatusException) {
      return ((StatusException) t).status();
    }
    if (t instanceof ApplicationErrorException) {
      return decode(t.getMessage());
    }
    if (t instanceof CanceledException) {
      return Status.of(Status.Code.CANCELLED, t.getMessage());
    }
    if (t instanceof RejectedException
        || t instanceof ConnectionErrorException
        || t instanceof ConnectionCloseException) {
      return Status.of(Status.Code.UNAVAILABLE, t.getMessage());
    }
    if (t instanceof InvalidException) {
      return Status.of(Status.Code.INTERNAL, t.getMessage());
    }
    Status s = Status.fromThrowable(t);
    if (s.cause() == t && t != null) {
      // A local failure of this caller (its own request publisher, say): the text stays here, so
      // the caller keeps reading it, unlike a server, which never sends it.
      s = s.withDescription(t.getMessage() != null ? t.getMessage() : t.toString());
    }
    return s;
  }

  /** {@link #fromThrowable} as an exception (the same instance for a {@link StatusException}). */
  public static StatusException toStatusException(Throwable t) {
    if (t instanceof StatusException) {
      return (StatusException) t;
    }
    return new StatusException(fromThrowable(t), t);
  }
}
