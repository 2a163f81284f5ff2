package io.sluice.rpc.services;

import io.sluice.rpc.BindableService;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.Status;
import io.sluice.rpc.services.grpc.health.v1.HealthCheckRequest;
import io.sluice.rpc.services.grpc.health.v1.HealthCheckResponse;
import io.sluice.rpc.services.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.sluice.rpc.services.grpc.health.v1.HealthProto;
import io.sluice.rpc.services.grpc.health.v1.ReactorHealth;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * {@code grpc.health.v1.Health}, as gRPC's health checking protocol describes it: the application
 * sets a status per service name ({@code ""} is the whole server, {@link ServingStatus#SERVING}
 * from the start), {@code Check} answers it or fails with NOT_FOUND for a name never set, and
 * {@code Watch} sends the current status at once ({@code SERVICE_UNKNOWN} for a name never set,
 * keeping the call open), then each change, until the caller cancels.
 *
 * <pre>{@code
 * HealthService health = new HealthService();
 * ServiceRegistry registry = ServiceRegistry.builder().add(greeter).add(health).build();
 * health.setStatus(ReactorGreeter.SERVICE, ServingStatus.SERVING);
 * ...
 * health.enterShutdown(); // before draining: everything NOT_SERVING
 * }</pre>
 *
 * <p>A watcher that reads slowly gets the latest status, not every one in between: each {@code
 * Watch} call holds at most one status it could not send yet, so memory stays bounded.
 *
 * <p><b>Threads.</b> Thread-safe: statuses may be set from any thread; calls are served on their
 * connection's event loop. Holds no buffers.
 */
public final class HealthService implements BindableService {
  private final Object lock = new Object();
  // Guarded by lock.
  private final Map<String, ServingStatus> statuses = new HashMap<>();
  private final Map<String, Set<HealthWatch>> watches = new HashMap<>();
  private boolean shutdown;

  /** A health service where the whole server ({@code ""}) is SERVING and no service is known. */
  public HealthService() {
    statuses.put("", ServingStatus.SERVING);
  }

  /**
   * Sets the status of {@code service} ({@code ""} for the whole server) and tells its watchers.
   * Ignored after {@link #enterShutdown()}.
   *
   * @throws IllegalArgumentException for {@code UNRECOGNIZED}, which has no wire value
   */
  public void setStatus(String service, ServingStatus status) {
    Objects.requireNonNull(service, "service");
    Objects.requireNonNull(status, "status");
    if (status == ServingStatus.UNRECOGNIZED) {
      throw new IllegalArgumentException("status UNRECOGNIZED cannot be sent; use SERVING, NOT_SERVING, ...");
    }
    synchronized (lock) {
      if (!shutdown) {
        statuses.put(service, status);
        tell(service, status);
      }
    }
  }

  /**
   * Forgets the status of {@code service}: {@code Check} then fails with NOT_FOUND and watchers get
   * {@code SERVICE_UNKNOWN}. Ignored after {@link #enterShutdown()}.
   */
  public void clearStatus(String service) {
    Objects.requireNonNull(service, "service");
    synchronized (lock) {
      if (!shutdown && statuses.remove(service) != null) {
        tell(service, ServingStatus.SERVICE_UNKNOWN);
      }
    }
  }

  /**
   * Marks every known service, and the whole server, NOT_SERVING and ignores later changes: call it
   * when the server starts to shut down, so load balancers and probes stop sending new calls.
   */
  public void enterShutdown() {
    synchronized (lock) {
      if (shutdown) {
        return;
      }
      shutdown = true;
      for (Map.Entry<String, ServingStatus> e : statuses.entrySet()) {
        e.setValue(ServingStatus.NOT_SERVING);
        tell(e.getKey(), ServingStatus.NOT_SERVING);
      }
    }
  }

  /** The status of {@code service}, or null when it was never set (or was cleared). */
  public ServingStatus status(String service) {
    synchronized (lock) {
      return statuses.get(service);
    }
  }

  @Override
  public ServiceDefinition bindService() {
    return ServiceDefinition.builder(ReactorHealth.SERVICE)
        .fileDescriptor(HealthProto.getDescriptor())
        .add(ReactorHealth.CHECK, call -> new Check(call))
        .add(ReactorHealth.WATCH, call -> new HealthWatch(this, call))
        .build();
  }

  /** Under lock: hands {@code status} to the watchers of {@code service}, in the order set. */
  private void tell(String service, ServingStatus status) {
    Set<HealthWatch> set = watches.get(service);
    if (set != null) {
      // A copy: a send that fails on this thread may end its call and unwatch it right away.
      for (HealthWatch w : List.copyOf(set)) {
        w.update(status);
      }
    }
  }

  /** Registers a watcher and gives it the current status; from its call's event loop. */
  void watch(String service, HealthWatch w) {
    synchronized (lock) {
      watches.computeIfAbsent(service, s -> new LinkedHashSet<>()).add(w);
      w.update(statuses.getOrDefault(service, ServingStatus.SERVICE_UNKNOWN));
    }
  }

  /** Forgets a watcher whose call ended. */
  void unwatch(String service, HealthWatch w) {
    synchronized (lock) {
      Set<HealthWatch> set = watches.get(service);
      if (set != null && set.remove(w) && set.isEmpty()) {
        watches.remove(service);
      }
    }
  }

  /** The number of open Watch calls (for tests and metrics). */
  int watchCount() {
    synchronized (lock) {
      int n = 0;
      for (Set<HealthWatch> set : watches.values()) {
        n += set.size();
      }
      return n;
    }
  }

  static HealthCheckResponse response(ServingStatus status) {
    return HealthCheckResponse.newBuilder().setStatus(status).build();
  }

  /** One Check call: one request, one answer. Its callbacks come on the call's event loop. */
  private final class Check implements ServerCall.Listener<HealthCheckRequest> {
    private final ServerCall<HealthCheckRequest, HealthCheckResponse> call;
    private boolean answered;

    Check(ServerCall<HealthCheckRequest, HealthCheckResponse> call) {
      this.call = call;
      call.request(1);
    }

    @Override
    public void onMessage(HealthCheckRequest request) {
      answered = true;
      ServingStatus s = status(request.getService());
      if (s == null) {
        call.close(Status.of(Status.Code.NOT_FOUND, "unknown service " + request.getService()));
        return;
      }
      call.sendMessage(response(s));
      call.close(Status.OK);
    }

    @Override
    public void onHalfClose() {
      if (!answered) {
        call.close(Status.of(Status.Code.INVALID_ARGUMENT, "call ended without a request"));
      }
    }

    @Override
    public void onCancel() {}

    @Override
    public void onReady(long n) {}
  }
}
