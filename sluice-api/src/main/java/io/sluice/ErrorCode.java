package io.sluice;

/**
 * RSocket 1.0 error codes carried by ERROR frames. Codes up to {@code 0x300} are reserved for the
 * protocol; {@code 0x301..0xFFFFFFFE} are free for applications.
 *
 * <p><b>Threads and buffers.</b> Constants and static helpers only: no state, no buffers.
 */
public final class ErrorCode {
  private ErrorCode() {}

  public static final int INVALID_SETUP = 0x001;
  public static final int UNSUPPORTED_SETUP = 0x002;
  public static final int REJECTED_SETUP = 0x003;
  public static final int REJECTED_RESUME = 0x004;
  public static final int CONNECTION_ERROR = 0x101;
  public static final int CONNECTION_CLOSE = 0x102;
  public static final int APPLICATION_ERROR = 0x201;
  public static final int REJECTED = 0x202;
  public static final int CANCELED = 0x203;
  public static final int INVALID = 0x204;

  /** Smallest code applications may define. */
  public static final int MIN_USER_CODE = 0x301;
  /** Largest code applications may define. */
  public static final int MAX_USER_CODE = 0xFFFFFFFE;

  /** True for the codes only valid on stream 0 (setup, resume and connection errors). */
  public static boolean isConnectionLevel(int code) {
    return (code >= INVALID_SETUP && code <= REJECTED_RESUME)
        || code == CONNECTION_ERROR
        || code == CONNECTION_CLOSE;
  }

  /** A readable name for a code, e.g. {@code APPLICATION_ERROR} or {@code 0x00000301}. */
  public static String name(int code) {
    switch (code) {
      case INVALID_SETUP:
        return "INVALID_SETUP";
      case UNSUPPORTED_SETUP:
        return "UNSUPPORTED_SETUP";
      case REJECTED_SETUP:
        return "REJECTED_SETUP";
      case REJECTED_RESUME:
        return "REJECTED_RESUME";
      case CONNECTION_ERROR:
        return "CONNECTION_ERROR";
      case CONNECTION_CLOSE:
        return "CONNECTION_CLOSE";
      case APPLICATION_ERROR:
        return "APPLICATION_ERROR";
      case REJECTED:
        return "REJECTED";
      case CANCELED:
        return "CANCELED";
      case INVALID:
        return "INVALID";
      default:
        return String.format("0x%08X", code);
    }
  }
}
