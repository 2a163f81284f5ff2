package io.sluice.grpc.interop;

/** One interop case's check did not hold; the message says what was expected and what came. */
public final class CaseFailure extends Exception {
  private static final long serialVersionUID = 1L;

  CaseFailure(String message) {
    super(message);
  }

  CaseFailure(String message, Throwable cause) {
    super(message, cause);
  }
}
