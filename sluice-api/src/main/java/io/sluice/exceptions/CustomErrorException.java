package io.sluice.exceptions;

import io.sluice.ErrorCode;

/**
 * An application-defined error code. Applications may raise codes in {@code 0x301..0xFFFFFFFE};
 * a code received from a peer is surfaced as it came, whatever its value.
 */
public final class CustomErrorException extends SluiceException {
  private static final long serialVersionUID = 1L;

  /**
   * @throws IllegalArgumentException if {@code errorCode} is outside {@code 0x301..0xFFFFFFFE}
   */
  public CustomErrorException(int errorCode, String message) {
    super(checkUserCode(errorCode), message);
  }

  private CustomErrorException(int errorCode, String message, boolean received) {
    super(errorCode, message);
  }

  static CustomErrorException received(int errorCode, String message) {
    return new CustomErrorException(errorCode, message, true);
  }

  private static int checkUserCode(int code) {
    if (Integer.compareUnsigned(code, ErrorCode.MIN_USER_CODE) < 0
        || Integer.compareUnsigned(code, ErrorCode.MAX_USER_CODE) > 0) {
      throw new IllegalArgumentException(
          "application error codes are 0x301..0xFFFFFFFE, got " + ErrorCode.name(code));
    }
    return code;
  }
}
