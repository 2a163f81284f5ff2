package io.sluice.internal.frame;

/** RSocket 1.0 frame type codes (the 6 high bits of the type/flags short). */
public final class FrameType {
  private FrameType() {}

  public static final int RESERVED = 0x00;
  public static final int SETUP = 0x01;
  public static final int LEASE = 0x02;
  public static final int KEEPALIVE = 0x03;
  public static final int REQUEST_RESPONSE = 0x04;
  public static final int REQUEST_FNF = 0x05;
  public static final int REQUEST_STREAM = 0x06;
  public static final int REQUEST_CHANNEL = 0x07;
  public static final int REQUEST_N = 0x08;
  public static final int CANCEL = 0x09;
  public static final int PAYLOAD = 0x0A;
  public static final int ERROR = 0x0B;
  public static final int METADATA_PUSH = 0x0C;
  public static final int RESUME = 0x0D;
  public static final int RESUME_OK = 0x0E;
  public static final int EXT = 0x3F;

  /** True for the types that may carry metadata behind a u24 length (M flag). */
  public static boolean hasMetadataLength(int type) {
    switch (type) {
      case SETUP:
      case REQUEST_RESPONSE:
      case REQUEST_FNF:
      case REQUEST_STREAM:
      case REQUEST_CHANNEL:
      case PAYLOAD:
      case EXT:
        return true;
      default:
        return false;
    }
  }

  /** True for the request types that open a stream. */
  public static boolean isRequest(int type) {
    return type >= REQUEST_RESPONSE && type <= REQUEST_CHANNEL;
  }

  /** True for frame types only valid on stream 0. */
  public static boolean isConnectionScoped(int type) {
    switch (type) {
      case SETUP:
      case LEASE:
      case KEEPALIVE:
      case METADATA_PUSH:
      case RESUME:
      case RESUME_OK:
        return true;
      default:
        return false;
    }
  }

  public static String name(int type) {
    switch (type) {
      case SETUP:
        return "SETUP";
      case LEASE:
        return "LEASE";
      case KEEPALIVE:
        return "KEEPALIVE";
      case REQUEST_RESPONSE:
        return "REQUEST_RESPONSE";
      case REQUEST_FNF:
        return "REQUEST_FNF";
      case REQUEST_STREAM:
        return "REQUEST_STREAM";
      case REQUEST_CHANNEL:
        return "REQUEST_CHANNEL";
      case REQUEST_N:
        return "REQUEST_N";
      case CANCEL:
        return "CANCEL";
      case PAYLOAD:
        return "PAYLOAD";
      case ERROR:
        return "ERROR";
      case METADATA_PUSH:
        return "METADATA_PUSH";
      case RESUME:
        return "RESUME";
      case RESUME_OK:
        return "RESUME_OK";
      case EXT:
        return "EXT";
      default:
        return "UNKNOWN(0x" + Integer.toHexString(type) + ")";
    }
  }
}
