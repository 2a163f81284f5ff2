package io.sluice.grpc.interop;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.grpc.testing.integration.Messages.Payload;
import java.util.List;

/** The checks of the interop cases, each failing with a {@link CaseFailure} that says why. */
final class Checks {
  private Checks() {}

  /** Fails unless {@code actual} equals {@code expected}. */
  static void equal(String what, Object expected, Object actual) throws CaseFailure {
    if (!expected.equals(actual)) {
      throw new CaseFailure(what + ": expected " + describe(expected) + ", got " + describe(actual));
    }
  }

  static void check(boolean ok, String message) throws CaseFailure {
    if (!ok) {
      throw new CaseFailure(message);
    }
  }

  /** Fails unless the responses equal the expected ones, in order. */
  static <T extends Message> void responses(List<T> expected, List<T> actual) throws CaseFailure {
    check(expected.size() == actual.size(),
        "expected " + expected.size() + " responses, got " + actual.size());
    for (int i = 0; i < expected.size(); i++) {
      equal("response " + i, expected.get(i), actual.get(i));
    }
  }

  /** Fails unless the call failed with {@code code}; returns its status. */
  static io.grpc.Status failedWith(io.grpc.Status.Code code, Throwable error) throws CaseFailure {
    check(error != null, "expected " + code + ", the call succeeded");
    io.grpc.Status s = io.grpc.Status.fromThrowable(error);
    check(s.getCode() == code, "expected " + code + ", got " + status(error));
    return s;
  }

  /** A call's failure as code and description. */
  static String status(Throwable t) {
    io.grpc.Status s = io.grpc.Status.fromThrowable(t);
    return s.getDescription() == null ? s.getCode().toString() : s.getCode() + " (" + s.getDescription() + ")";
  }

  /** A message short enough for a FAIL line: payload bodies as their sizes. */
  private static String describe(Object o) {
    if (o instanceof Payload) {
      return "payload of " + ((Payload) o).getBody().size() + " bytes";
    }
    if (o instanceof Message) {
      Message m = (Message) o;
      StringBuilder sb = new StringBuilder(m.getDescriptorForType().getName()).append('{');
      m.getAllFields().forEach((f, v) -> sb.append(' ').append(f.getName()).append('=')
          .append(v instanceof ByteString ? ((ByteString) v).size() + " bytes" : describe(v)));
      return sb.append(" }").toString();
    }
    return String.valueOf(o);
  }
}
