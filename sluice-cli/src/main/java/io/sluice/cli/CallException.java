package io.sluice.cli;

/**
 * A failure of {@code ./sluice call} that is not a call's status: a server without reflection, a
 * method it does not have, a request that is not JSON of the right type. Printed as {@code sluice
 * call: <message>} on stderr, exit code 1.
 */
final class CallException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  CallException(String message) {
    super(message, null, false, false);
  }
}
