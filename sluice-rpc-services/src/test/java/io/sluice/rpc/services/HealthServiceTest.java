package io.sluice.rpc.services;

import static io.sluice.rpc.services.Served.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.services.grpc.health.v1.HealthCheckRequest;
import io.sluice.rpc.services.grpc.health.v1.HealthCheckResponse;
import io.sluice.rpc.services.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.sluice.rpc.services.grpc.health.v1.ReactorHealthClient;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/** grpc.health.v1.Health over RSocket (TCP on 127.0.0.1), called by its generated Sluice client. */
class HealthServiceTest {
  private HealthService health;
  private Served served;
  private ReactorHealthClient client;

  @BeforeEach
  void start() throws Exception {
    health = new HealthService();
    served = new Served(ServiceRegistry.builder().add(health).build());
    client = new ReactorHealthClient(served.requester());
  }

  @AfterEach
  void stop() throws Exception {
    served.close();
  }

  private static HealthCheckRequest req(String service) {
    return HealthCheckRequest.newBuilder().setService(service).build();
  }

  private ServingStatus check(String service) {
    return client.check(req(service)).block(WAIT).getStatus();
  }

  /** The next status a watch received; fails if none comes (a hang guard, not a timed check). */
  private static ServingStatus next(BlockingQueue<HealthCheckResponse> q) throws InterruptedException {
    HealthCheckResponse r = q.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(r).as("a status within the hang guard").isNotNull();
    return r.getStatus();
  }

  /** Waits until the server has forgotten every watch (bounded by the hang guard). */
  private void awaitNoWatch() throws InterruptedException {
    long end = System.nanoTime() + WAIT.toNanos();
    while (health.watchCount() > 0 && System.nanoTime() < end) {
      Thread.sleep(5);
    }
    assertThat(health.watchCount()).isZero();
  }

  @Test
  void checkAnswersTheStatusSetAndNotFoundForAnUnknownService() {
    assertThat(check("")).isEqualTo(ServingStatus.SERVING);
    health.setStatus("demo.Greeter", ServingStatus.NOT_SERVING);
    assertThat(check("demo.Greeter")).isEqualTo(ServingStatus.NOT_SERVING);
    health.setStatus("demo.Greeter", ServingStatus.SERVING);
    assertThat(check("demo.Greeter")).isEqualTo(ServingStatus.SERVING);

    assertThatThrownBy(() -> check("demo.Nobody"))
        .isInstanceOf(StatusException.class)
        .satisfies(t -> assertThat(((StatusException) t).code()).isEqualTo(Status.Code.NOT_FOUND))
        .hasMessageContaining("demo.Nobody");
    health.clearStatus("demo.Greeter");
    assertThatThrownBy(() -> check("demo.Greeter"))
        .satisfies(t -> assertThat(((StatusException) t).code()).isEqualTo(Status.Code.NOT_FOUND));
  }

  @Test
  void watchSendsTheStatusAtOnceThenEachChangeUntilCancelled() throws Exception {
    BlockingQueue<HealthCheckResponse> q = new LinkedBlockingQueue<>();
    Disposable watch = client.watch(req("demo.Greeter")).subscribe(q::add);
    // Unknown when the call comes: SERVICE_UNKNOWN, and the call stays open.
    assertThat(next(q)).isEqualTo(ServingStatus.SERVICE_UNKNOWN);
    health.setStatus("demo.Greeter", ServingStatus.SERVING);
    assertThat(next(q)).isEqualTo(ServingStatus.SERVING);
    health.setStatus("demo.Greeter", ServingStatus.SERVING); // no change: nothing sent
    health.setStatus("demo.Greeter", ServingStatus.NOT_SERVING);
    assertThat(next(q)).isEqualTo(ServingStatus.NOT_SERVING);
    health.clearStatus("demo.Greeter");
    assertThat(next(q)).isEqualTo(ServingStatus.SERVICE_UNKNOWN);
    assertThat(health.watchCount()).isEqualTo(1);

    watch.dispose(); // the client cancels: the server forgets the watch
    awaitNoWatch();
    health.setStatus("demo.Greeter", ServingStatus.SERVING);
    assertThat(q).isEmpty();
  }

  @Test
  void watchersOfOneServiceDoNotSeeAnother() throws Exception {
    BlockingQueue<HealthCheckResponse> a = new LinkedBlockingQueue<>();
    BlockingQueue<HealthCheckResponse> b = new LinkedBlockingQueue<>();
    health.setStatus("a", ServingStatus.SERVING);
    Disposable wa = client.watch(req("a")).subscribe(a::add);
    Disposable wb = client.watch(req("b")).subscribe(b::add);
    assertThat(next(a)).isEqualTo(ServingStatus.SERVING);
    assertThat(next(b)).isEqualTo(ServingStatus.SERVICE_UNKNOWN);
    health.setStatus("b", ServingStatus.NOT_SERVING);
    health.setStatus("a", ServingStatus.NOT_SERVING);
    assertThat(next(b)).isEqualTo(ServingStatus.NOT_SERVING);
    assertThat(next(a)).isEqualTo(ServingStatus.NOT_SERVING);
    assertThat(b).isEmpty();
    wa.dispose();
    wb.dispose();
    awaitNoWatch();
  }

  @Test
  void enterShutdownMarksEverythingNotServingAndIgnoresLaterChanges() throws Exception {
    health.setStatus("demo.Greeter", ServingStatus.SERVING);
    BlockingQueue<HealthCheckResponse> q = new LinkedBlockingQueue<>();
    Disposable watch = client.watch(req("")).subscribe(q::add);
    assertThat(next(q)).isEqualTo(ServingStatus.SERVING);

    health.enterShutdown();
    assertThat(next(q)).isEqualTo(ServingStatus.NOT_SERVING);
    assertThat(check("")).isEqualTo(ServingStatus.NOT_SERVING);
    assertThat(check("demo.Greeter")).isEqualTo(ServingStatus.NOT_SERVING);

    health.setStatus("", ServingStatus.SERVING);
    health.setStatus("demo.Other", ServingStatus.SERVING);
    health.clearStatus("demo.Greeter");
    assertThat(check("")).isEqualTo(ServingStatus.NOT_SERVING);
    assertThat(check("demo.Greeter")).isEqualTo(ServingStatus.NOT_SERVING);
    assertThat(health.status("demo.Other")).isNull();
    watch.dispose();
    awaitNoWatch();
  }

  @Test
  void unrecognizedIsRefused() {
    assertThatThrownBy(() -> health.setStatus("x", ServingStatus.UNRECOGNIZED))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
