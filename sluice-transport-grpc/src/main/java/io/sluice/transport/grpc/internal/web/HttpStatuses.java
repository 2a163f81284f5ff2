package io.sluice.transport.grpc.internal.web;

import io.sluice.rpc.Status;

/**
 * The HTTP status of each gRPC status code, as gRPC's HTTP mapping (google.rpc.Code) gives it;
 * HTTP/JSON answers with it. One table. Pure functions.
 */
final class HttpStatuses {
  private HttpStatuses() {}

  /** The HTTP status for {@code code}. */
  static int of(Status.Code code) {
    return switch (code) {
      case OK -> 200;
      case CANCELLED -> 499;
      case UNKNOWN -> 500;
      case INVALID_ARGUMENT -> 400;
      case DEADLINE_EXCEEDED -> 504;
      case NOT_FOUND -> 404;
      case ALREADY_EXISTS -> 409;
      case PERMISSION_DENIED -> 403;
      case RESOURCE_EXHAUSTED -> 429;
      case FAILED_PRECONDITION -> 400;
      case ABORTED -> 409;
      case OUT_OF_RANGE -> 400;
      case UNIMPLEMENTED -> 501;
      case INTERNAL -> 500;
      case UNAVAILABLE -> 503;
      case DATA_LOSS -> 500;
      case UNAUTHENTICATED -> 401;
    };
  }
}
