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
   * Most UTF-8 bytes of a description in ERROR data; a longer one is cut and ends with {@code
   * "..."}. An ERROR frame cannot be fragmented, so what a status puts in one is bounded.
   */
  public static final int MAX_DESCRIPTION_BYTES = 8 * 1024;

  /**
   * Most characters of the response metadata block (base64) in ERROR data; a larger block is left
   * out, and the description says so.
   */
  public static final int MAX_METADATA_CHARS = 56 * 1024;

  /** Most bytes of the ERROR data {@link #encode} writes: code, colon, description, NUL, block. */
  public static final int MAX_ERROR_DATA_BYTES = 4 + MAX_DESCRIPTION_BYTES + MAX_METADATA_CHARS;

  private static final String CUT = "...";

  /**
   * The error data for {@code status}. A NUL in the description becomes U+FFFD (so no text after it
   * can pass for response metadata), and a description over {@link #MAX_DESCRIPTION_BYTES} is cut.
   */
  public static String encode(Status status) {
    return status.code().value() + ":" + sendable(status.description(), MAX_DESCRIPTION_BYTES);
  }

  /**
   * The error data for {@code status} with response metadata (docs/rpc-wire-format.md): {@code
   * <code>:<description>}, then, when {@code headers} or {@code trailers} is not empty, a NUL
   * character and the base64 of their {@link ResponseMetadataCodec} encoding. A NUL in the
   * description becomes U+FFFD so the separator stays unique. Only for callers that asked for
   * response metadata (call metadata flag 0x20). A block over {@link #MAX_METADATA_CHARS} is left
   * out and a note added to the description; the whole is at most {@link #MAX_ERROR_DATA_BYTES}.
   */
  public static String encode(Status status, Headers headers, Headers trailers) {
    boolean none = (headers == null || headers.isEmpty()) && (trailers == null || trailers.isEmpty());
    if (none) {
      return encode(status);
    }
    String block = ResponseMetadataCodec.encodeText(headers, trailers);
    if (block.length() > MAX_METADATA_CHARS) {
      String note =
          " (response metadata of "
              + block.length()
              + " base64 characters left out: more than an ERROR frame carries, "
              + MAX_METADATA_CHARS
              + ")";
      return status.code().value()
          + ":"
          + sendable(status.description(), MAX_DESCRIPTION_BYTES - note.length())
          + note;
    }
    return encode(status) + METADATA_SEPARATOR + block;
  }

  /** {@code description} with NUL replaced and cut to at most {@code maxBytes} UTF-8 bytes. */
  private static String sendable(String description, int maxBytes) {
    String d = description.indexOf(METADATA_SEPARATOR) < 0
        ? description
        : description.replace(METADATA_SEPARATOR, '\uFFFD');
    if (d.length() * 3 <= maxBytes) {
      return d; // fits whatever its characters
    }
    int budget = maxBytes - CUT.length();
    int bytes = 0;
    for (int i = 0; i < d.length(); i++) {
      char c = d.charAt(i);
      boolean pair = Character.isHighSurrogate(c) && i + 1 < d.length() && Character.isLowSurrogate(d.charAt(i + 1));
      int n = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
      if (bytes + n > budget) {
        // Only cut when the whole does not fit: check the rest first.
        return utf8Length(d, i, bytes) <= maxBytes ? d : d.substring(0, i) + CUT;
      }
      bytes += n;
      if (pair) {
        i++;
      }
    }
    return d;
  }

  /** The UTF-8 length of {@code s} from {@code from} on, plus {@code counted}. */
  private static long utf8Length(String s, int from, long counted) {
    long bytes = counted;
    for (int i = from; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else {
        bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
      }
    }
    return bytes;
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

  /**
   * {@code data} without response metadata at its end (when it has some). A block of base64
   * characters that no longer decodes after a status of Sluice's form was cut on the way (an ERROR frame cannot be
   * fragmented, and the sending engine cuts error data to the connection's frame size): it is left
   * out and the description says so, rather than showing the client a NUL and base64.
   */
  private static String withoutMetadata(String data) {
    int sep = data.lastIndexOf(METADATA_SEPARATOR);
    if (sep < 0) {
      return data;
    }
    if (ResponseMetadataCodec.decodeText(data.substring(sep + 1)) != null) {
      return data.substring(0, sep);
    }
    String head = data.substring(0, sep);
    return sluiceForm(head) && base64Chars(data, sep + 1) ? head + CUT_METADATA : data;
  }

  /** Whether {@code s} from {@code from} on holds only base64 characters (a block cut short). */
  private static boolean base64Chars(String s, int from) {
    for (int i = from; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean ok =
          (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
              || c == '+' || c == '/' || c == '=' || c == '-' || c == '_';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** Said after a description whose response metadata did not arrive whole. */
  static final String CUT_METADATA = " (response metadata left out: cut to the connection's frame size)";

  /** Whether {@code data} starts with a status code as {@link #encode} writes it: 1..16 and ':'. */
  private static boolean sluiceForm(String data) {
    int colon = data.indexOf(':');
    if (colon <= 0 || colon > 2 || data.charAt(0) == '0') {
      return false;
    }
    int code = 0;
    for (int i = 0; i < colon; i++) {
      char c = data.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
      code = code * 10 + (c - '0');
    }
    return code <= 16;
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
    // 1..16 without a leading zero: code 0 (OK) never ends a call with an ERROR.
    if (sluiceForm(data)) {
      int colon = data.indexOf(':');
      return Status.of(Status.Code.fromValue(Integer.parseInt(data.substring(0, colon))), data.substring(colon + 1));
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
