package io.sluice.internal;

import io.sluice.ErrorCode;
import io.sluice.exceptions.SluiceException;

/** Maps local exceptions to the ERROR frames that carry them. */
final class Errors {
  private Errors() {}

  /** The code to send on a stream for {@code cause}: its own if it is a stream-level code. */
  static int streamCode(Throwable cause) {
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
