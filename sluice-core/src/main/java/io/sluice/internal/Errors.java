package io.sluice.internal;

import io.sluice.ErrorCode;
import io.sluice.exceptions.RejectedException;
import io.sluice.exceptions.SluiceException;

/** Maps local exceptions to the ERROR frames that carry them. */
final class Errors {
  private Errors() {}

  /**
   * The code to send on a stream for {@code cause}: its own if it is a stream-level code, but never
   * REJECTED. REJECTED promises the peer that the request was not processed, so that it may send it
   * elsewhere; only the engine's own refusals, made before any handler saw the request, can keep
   * that promise (they send the code directly). A handler that fails with a RejectedException may
   * have done its work first (e.g. it passes on a downstream refusal): APPLICATION_ERROR, unless
   * it promised otherwise with {@link RejectedException#unprocessed(String)}.
   */
  static int streamCode(Throwable cause) {
    if (cause instanceof RejectedException) {
      return ((RejectedException) cause).isUnprocessed()
          ? ErrorCode.REJECTED
          : ErrorCode.APPLICATION_ERROR;
    }
    if (cause instanceof SluiceException) {
      int code = ((SluiceException) cause).errorCode();
      if (!ErrorCode.isConnectionLevel(code) && code != 0 && code != -1) {
        return code;
      }
    }
    return ErrorCode.APPLICATION_ERROR;
  }

  /** The text for an ERROR frame: the exception's message, or its class name if it has none. */
  static String message(Throwable cause) {
    if (cause == null) {
      return "";
    }
    String message = cause.getMessage();
    return message != null ? message : cause.getClass().getName();
  }
}
