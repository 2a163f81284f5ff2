package io.sluice.conformance;

import static io.sluice.test.WireFrame.*;

import io.sluice.test.WireFrame;
import java.util.ArrayList;
import java.util.List;

/**
 * The send-side rules that hold for every frame, checked on each frame Sluice sends in this suite
 * (rules 2, 3, 4, 5, 22, 25, 31, 36, 37 and 51 of docs/conformance.md).
 */
final class SendRules {
  private SendRules() {}

  /** Flag bits each type defines (Protocol.md per-frame layouts). */
  static int definedFlags(int type) {
    switch (type) {
      case SETUP:
        return M | SETUP_R | SETUP_L;
      case LEASE:
      case METADATA_PUSH:
        return M;
      case KEEPALIVE:
        return KEEPALIVE_R;
      case REQUEST_RESPONSE:
      case REQUEST_FNF:
      case REQUEST_STREAM:
        return M | F;
      case REQUEST_CHANNEL:
        return M | F | C;
      case PAYLOAD:
        return M | F | C | N;
      case EXT:
        return I | M;
      default:
        return 0;
    }
  }

  static boolean connectionScoped(int type) {
    return type == SETUP
        || type == LEASE
        || type == KEEPALIVE
        || type == METADATA_PUSH
        || type == RESUME
        || type == RESUME_OK;
  }

  static List<String> check(WireFrame f) {
    List<String> broken = new ArrayList<>();
    if (f.size() > 0xFFFFFF) {
      broken.add("rule 2: frame larger than 16,777,215 bytes");
    }
    if (f.rawStreamId() < 0) {
      broken.add("rule 3: stream id top bit set");
    }
    if (connectionScoped(f.type()) && f.streamId() != 0) {
      broken.add("rule 4: connection frame on a stream");
    }
    if ((f.flags() & ~definedFlags(f.type())) != 0) {
      broken.add("rule 5: flag bits the type does not define are set");
    }
    if (f.type() == KEEPALIVE && f.keepAlivePosition() != 0) {
      broken.add("rule 22: KEEPALIVE position is not 0 without resumption");
    }
    if (f.type() == REQUEST_N && f.requestN() <= 0) {
      broken.add("rule 25: REQUEST_N not positive");
    }
    if ((f.type() == REQUEST_STREAM || f.type() == REQUEST_CHANNEL) && f.initialRequestN() <= 0) {
      broken.add("rule 25: initial request N not positive");
    }
    if (f.type() == PAYLOAD && !f.has(N) && !f.has(C)) {
      broken.add("rule 31: PAYLOAD with neither N nor C");
    }
    if (f.type() == ERROR) {
      int code = f.errorCode();
      boolean connectionCode = code >= INVALID_SETUP && code <= CONNECTION_CLOSE;
      if (connectionCode && f.streamId() != 0) {
        broken.add("rule 36: setup/connection error code on a stream");
      }
      if (!connectionCode && f.streamId() == 0) {
        broken.add("rule 36: stream error code on stream 0");
      }
      byte[] text = f.errorTextBytes();
      if (text.length > 0 && text[text.length - 1] == 0) {
        broken.add("rule 37: ERROR text ends in a NUL terminator");
      }
    }
    if (f.type() == EXT) {
      broken.add("rule 51: Sluice sent an EXT frame");
    }
    if (f.type() == RESUME || f.type() == RESUME_OK) {
      broken.add("Sluice sent a resumption frame");
    }
    return broken;
  }
}
