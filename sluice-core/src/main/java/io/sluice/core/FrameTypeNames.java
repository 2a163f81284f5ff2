package io.sluice.core;

/** Names behind {@link ConnectionStats}'s indexes. */
final class FrameTypeNames {
  static final String[] NAMES = {
    "RESERVED",
    "SETUP",
    "LEASE",
    "KEEPALIVE",
    "REQUEST_RESPONSE",
    "REQUEST_FNF",
    "REQUEST_STREAM",
    "REQUEST_CHANNEL",
    "REQUEST_N",
    "CANCEL",
    "PAYLOAD",
    "ERROR",
    "METADATA_PUSH",
    "RESUME",
    "RESUME_OK",
    "EXT"
  };

  private static final int[] CODES = {
    0x001, 0x002, 0x003, 0x004, 0x101, 0x102, 0x201, 0x202, 0x203, 0x204
  };

  static final String[] ERRORS = {
    "INVALID_SETUP",
    "UNSUPPORTED_SETUP",
    "REJECTED_SETUP",
    "REJECTED_RESUME",
    "CONNECTION_ERROR",
    "CONNECTION_CLOSE",
    "APPLICATION_ERROR",
    "REJECTED",
    "CANCELED",
    "INVALID",
    "APPLICATION_DEFINED"
  };

  static int errorIndex(int code) {
    for (int i = 0; i < CODES.length; i++) {
      if (CODES[i] == code) {
        return i;
      }
    }
    return CODES.length;
  }

  private FrameTypeNames() {}
}
