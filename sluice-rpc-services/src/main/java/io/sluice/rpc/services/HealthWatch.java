package io.sluice.rpc.services;

import io.sluice.rpc.ServerCall;
import io.sluice.rpc.Status;
import io.sluice.rpc.services.grpc.health.v1.HealthCheckRequest;
import io.sluice.rpc.services.grpc.health.v1.HealthCheckResponse;
import io.sluice.rpc.services.grpc.health.v1.HealthCheckResponse.ServingStatus;

/**
 * One {@code Watch} call: sends a service's status each time it changes, as the caller's demand
 * allows. At most one unsent status is kept (the newest), so a slow reader costs no memory.
 *
 * <p><b>Threads.</b> Call callbacks come on the call's event loop; {@link #update} comes from
 * whichever thread sets a status, under the {@link HealthService}'s lock. This object's monitor
 * guards the demand and the unsent status (taken after the service's lock, never before it).
 */
final class HealthWatch implements ServerCall.Listener<HealthCheckRequest> {
  private final HealthService health;
  private final ServerCall<HealthCheckRequest, HealthCheckResponse> call;
  private String service; // set once, on the event loop, before any update
  // Guarded by this.
  private long demand;
  private ServingStatus unsent;
  private ServingStatus lastSent;

  HealthWatch(HealthService health, ServerCall<HealthCheckRequest, HealthCheckResponse> call) {
    this.health = health;
    this.call = call;
    call.request(1);
  }

  @Override
  public void onMessage(HealthCheckRequest request) {
    if (service != null) {
      call.close(Status.of(Status.Code.INTERNAL, "more than one request for a single-request method"));
      return;
    }
    service = request.getService();
    health.watch(service, this);
    if (call.isClosed()) { // cancelled while registering: onCancel may have missed it
      health.unwatch(service, this);
    }
  }

  @Override
  public void onHalfClose() {
    if (service == null) {
      call.close(Status.of(Status.Code.INVALID_ARGUMENT, "call ended without a request"));
    }
  }

  @Override
  public void onCancel() {
    if (service != null) {
      health.unwatch(service, this);
    }
  }

  @Override
  public void onReady(long n) {
    synchronized (this) {
      demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
      drain();
    }
  }

  /** The service's status is now {@code status}. */
  void update(ServingStatus status) {
    synchronized (this) {
      ServingStatus latest = unsent != null ? unsent : lastSent;
      if (status != latest) {
        unsent = status == lastSent ? null : status;
        drain();
      }
    }
  }

  /** Under this: sends the unsent status if the caller allows one more. */
  private void drain() {
    if (unsent != null && demand > 0 && !call.isClosed()) {
      ServingStatus s = unsent;
      unsent = null;
      lastSent = s;
      demand--;
      call.sendMessage(HealthService.response(s));
    }
  }
}
