package io.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.balancer.Balancer;
import io.sluice.examples.rpc.FuturesGreeter;
import io.sluice.examples.rpc.FuturesGreeterClient;
import io.sluice.examples.rpc.GreeterService;
import io.sluice.examples.rpc.HelloReply;
import io.sluice.examples.rpc.HelloRequest;
import io.sluice.examples.rpc.ReactorGreeterClient;
import io.sluice.examples.rpc.ReactorGreeterServer;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.transport.netty.internal.SelfSignedCertificates;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import reactor.core.publisher.Mono;

class SluiceAutoConfigurationTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final HelloRequest ADA = HelloRequest.newBuilder().setName("Ada").build();

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SluiceAutoConfiguration.class, SluiceHealthAutoConfiguration.class));

  /** A started server context: the lifecycle runs only on refresh of a real context. */
  private static int port(ConfigurableApplicationContext context) {
    SluiceServerLifecycle server = context.getBean(SluiceServerLifecycle.class);
    assertThat(server.isRunning()).isTrue();
    int port = server.port();
    assertThat(context.getEnvironment().getProperty(SluiceServerLifecycle.LOCAL_PORT_PROPERTY, Integer.class))
        .isEqualTo(port);
    return port;
  }

  @Test
  void servesABeanThatImplementsAGeneratedInterfaceOverTcpAndAStubBeanCallsIt() {
    runner
        .withBean(GreeterService.class)
        .withPropertyValues("sluice.server.port=0")
        .run(
            server -> {
              assertThat(server).hasNotFailed();
              int port = port(server);
              assertThat(server.getBean(SluiceServerLifecycle.class).services()).containsExactly("sluice.examples.Greeter");
              runner
                  .withPropertyValues(
                      "sluice.server.enabled=false",
                      "sluice.client.greeter.wait-for-server=30s",
                      "sluice.client.greeter.stub=" + ReactorGreeterClient.class.getName(),
                      "sluice.client.greeter.address=127.0.0.1:" + port)
                  .run(
                      client -> {
                        assertThat(client).hasNotFailed().doesNotHaveBean(SluiceServerLifecycle.class);
                        assertThat(client).hasSingleBean(ReactorGreeterClient.class).hasBean("greeter");
                        ReactorGreeterClient greeter = client.getBean(ReactorGreeterClient.class);
                        assertThat(greeter.sayHello(ADA).block(WAIT).getMessage()).isEqualTo("hello Ada");
                        // The generated client is not served as a service by the client context.
                        assertThat(client).hasSingleBean(Balancer.class);
                      });
            });
  }

  /** A futures-flavor implementation: a plain bean, wrapped in FuturesGreeterServer. */
  static final class FuturesImpl implements FuturesGreeter {
    @Override
    public CompletableFuture<HelloReply> sayHello(HelloRequest request) {
      if (request.getName().isEmpty()) {
        return CompletableFuture.failedFuture(StatusException.of(Status.Code.INVALID_ARGUMENT, "no name"));
      }
      return CompletableFuture.completedFuture(HelloReply.newBuilder().setMessage("futures " + request.getName()).build());
    }

    @Override
    public Flow.Publisher<HelloReply> streamGreetings(HelloRequest request) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<HelloReply> collectNames(Flow.Publisher<HelloRequest> requests) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Flow.Publisher<HelloReply> chat(Flow.Publisher<HelloRequest> requests) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Void> notify(HelloRequest request) {
      return CompletableFuture.completedFuture(null);
    }
  }

  @Test
  void grpcTransportServesAFuturesBeanAndAGrpcWireStubGetsItsStatuses() {
    runner
        .withBean(FuturesImpl.class)
        .withPropertyValues("sluice.server.port=0", "sluice.server.transport=grpc")
        .run(
            server -> {
              assertThat(server).hasNotFailed();
              int port = port(server);
              runner
                  .withPropertyValues(
                      "sluice.server.enabled=false",
                      "sluice.client.greeter.wait-for-server=30s",
                      "sluice.client.greeter.stub=" + FuturesGreeterClient.class.getName(),
                      "sluice.client.greeter.transport=grpc",
                      "sluice.client.greeter.deadline=20s",
                      "sluice.client.greeter.address=127.0.0.1:" + port)
                  .run(
                      client -> {
                        assertThat(client).hasNotFailed();
                        FuturesGreeterClient greeter = client.getBean(FuturesGreeterClient.class);
                        assertThat(greeter.options().timeout()).isEqualTo(Duration.ofSeconds(20));
                        assertThat(greeter.sayHello(ADA).get(30, TimeUnit.SECONDS).getMessage()).isEqualTo("futures Ada");
                        ExecutionException e =
                            org.junit.jupiter.api.Assertions.assertThrows(
                                ExecutionException.class,
                                () -> greeter.sayHello(HelloRequest.getDefaultInstance()).get(30, TimeUnit.SECONDS));
                        assertThat(e.getCause()).isInstanceOf(StatusException.class);
                        assertThat(((StatusException) e.getCause()).status().code()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                      });
            });
  }

  @Test
  void onePortServesRsocketAndGrpcOnOnePortWithReflection() {
    runner
        .withBean(GreeterService.class)
        .withPropertyValues("sluice.server.port=0", "sluice.server.transport=one-port", "sluice.server.reflection=true")
        .run(
            server -> {
              assertThat(server).hasNotFailed();
              int port = port(server);
              assertThat(server.getBean(SluiceServerLifecycle.class).services())
                  .contains("sluice.examples.Greeter", "grpc.reflection.v1.ServerReflection");
              runner
                  .withPropertyValues(
                      "sluice.server.enabled=false",
                      "sluice.client.overRsocket.wait-for-server=30s",
                      "sluice.client.overRsocket.stub=" + ReactorGreeterClient.class.getName(),
                      "sluice.client.overRsocket.address=127.0.0.1:" + port,
                      "sluice.client.overGrpc.wait-for-server=30s",
                      "sluice.client.overGrpc.stub=" + FuturesGreeterClient.class.getName(),
                      "sluice.client.overGrpc.transport=grpc",
                      "sluice.client.overGrpc.address=127.0.0.1:" + port)
                  .run(
                      client -> {
                        assertThat(client).hasNotFailed();
                        assertThat(client.getBean(ReactorGreeterClient.class).sayHello(ADA).block(WAIT).getMessage())
                            .isEqualTo("hello Ada");
                        assertThat(client.getBean(FuturesGreeterClient.class).sayHello(ADA).get(30, TimeUnit.SECONDS).getMessage())
                            .isEqualTo("hello Ada");
                      });
            });
  }

  @Test
  void tlsFromPemFilesOnWebsocketWithABalancerOverTwoAddresses(@TempDir Path dir) throws Exception {
    SelfSignedCertificates.Generated g = SelfSignedCertificates.generate(List.of("localhost", "127.0.0.1"), Duration.ofDays(1));
    Path cert = dir.resolve("server.crt");
    Path key = dir.resolve("server.key");
    Files.writeString(cert, pem("CERTIFICATE", g.certificate().getEncoded()), StandardCharsets.US_ASCII);
    Files.writeString(key, pem("PRIVATE KEY", g.keyPair().getPrivate().getEncoded()), StandardCharsets.US_ASCII);
    ApplicationContextRunner tlsServer =
        runner
            .withBean(GreeterService.class)
            .withPropertyValues(
                "sluice.server.port=0",
                "sluice.server.transport=websocket",
                "sluice.server.tls.enabled=true",
                "sluice.server.tls.certificate=" + cert,
                "sluice.server.tls.private-key=" + key);
    tlsServer.run(
        a ->
            tlsServer.run(
                b -> {
                  assertThat(a).hasNotFailed();
                  assertThat(b).hasNotFailed();
                  runner
                      .withPropertyValues(
                          "sluice.server.enabled=false",
                          "sluice.client.greeter.wait-for-server=30s",
                      "sluice.client.greeter.stub=" + ReactorGreeterClient.class.getName(),
                          "sluice.client.greeter.transport=websocket",
                          "sluice.client.greeter.tls.enabled=true",
                          "sluice.client.greeter.tls.ca=" + cert,
                          "sluice.client.greeter.addresses=127.0.0.1:" + port(a) + ",127.0.0.1:" + port(b))
                      .run(
                          client -> {
                            assertThat(client).hasNotFailed();
                            ReactorGreeterClient greeter = client.getBean(ReactorGreeterClient.class);
                            for (int i = 0; i < 20; i++) {
                              assertThat(greeter.sayHello(ADA).block(WAIT).getMessage()).isEqualTo("hello Ada");
                            }
                            Balancer balancer = client.getBean("greeterSluiceBalancer", Balancer.class);
                            assertThat(balancer.servers()).hasSize(2);
                          });
                }));
  }

  private static Throwable root(Throwable t) {
    assertThat(t).as("the start failed").isNotNull();
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END " + type + "-----\n";
  }

  @Test
  void twoBeansServingOneServiceFailTheStartNamingBoth() {
    runner
        .withBean("first", GreeterService.class)
        .withBean("second", ReactorGreeterServer.class, () -> new ReactorGreeterServer(new GreeterService()))
        .withPropertyValues("sluice.server.port=0")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(root(context.getStartupFailure()))
                  .hasMessageContaining("sluice.examples.Greeter")
                  .hasMessageContaining("'first'")
                  .hasMessageContaining("'second'");
            });
  }

  @Test
  void aClientWithoutStubOrAddressFailsNamingTheProperty() {
    runner
        .withPropertyValues("sluice.server.enabled=false", "sluice.client.greeter.address=127.0.0.1:1")
        .run(context -> assertThat(root(context.getStartupFailure())).hasMessageContaining("sluice.client.greeter.stub"));
    runner
        .withPropertyValues(
            "sluice.server.enabled=false", "sluice.client.greeter.wait-for-server=30s",
                      "sluice.client.greeter.stub=" + ReactorGreeterClient.class.getName())
        .run(context -> assertThat(root(context.getStartupFailure())).hasMessageContaining("sluice.client.greeter.address"));
    runner
        .withPropertyValues(
            "sluice.server.enabled=false",
            "sluice.client.greeter.stub=java.lang.String",
            "sluice.client.greeter.address=127.0.0.1:1")
        .run(context -> assertThat(root(context.getStartupFailure())).hasMessageContaining("not a generated Sluice client"));
  }

  @Test
  void tlsWithoutItsFilesFailsTheStart() {
    runner
        .withBean(GreeterService.class)
        .withPropertyValues("sluice.server.port=0", "sluice.server.tls.enabled=true")
        .run(context -> assertThat(root(context.getStartupFailure())).hasMessageContaining("sluice.server.tls.certificate"));
  }

  @Test
  void healthIsUpWhileAcceptingAndDownOnceStoppedAndClientsAreDownWithoutAServer() {
    runner
        .withBean(GreeterService.class)
        .withPropertyValues("sluice.server.port=0")
        .run(
            server -> {
              HealthIndicator health = server.getBean("sluiceServerHealthIndicator", HealthIndicator.class);
              assertThat(health.health().getStatus().getCode()).isEqualTo("UP");
              assertThat(health.health().getDetails()).containsEntry("transport", "tcp").containsEntry("state", "running");
              int port = port(server);
              runner
                  .withPropertyValues(
                      "sluice.server.enabled=false",
                      "sluice.client.up.wait-for-server=30s",
                      "sluice.client.up.stub=" + ReactorGreeterClient.class.getName(),
                      "sluice.client.up.address=127.0.0.1:" + port)
                  .run(
                      client -> {
                        HealthIndicator clients = client.getBean("sluiceClientsHealthIndicator", HealthIndicator.class);
                        // The balancer connects in the background: a call makes sure it did.
                        client.getBean(ReactorGreeterClient.class).sayHello(ADA).block(WAIT);
                        assertThat(clients.health().getStatus().getCode()).isEqualTo("UP");
                      });
              SluiceServerLifecycle lifecycle = server.getBean(SluiceServerLifecycle.class);
              CompletableFuture<Void> stopped = new CompletableFuture<>();
              lifecycle.stop(() -> stopped.complete(null));
              stopped.get(30, TimeUnit.SECONDS);
              assertThat(lifecycle.state()).isEqualTo(SluiceServerLifecycle.State.STOPPED);
              assertThat(health.health().getStatus().getCode()).isEqualTo("DOWN");
              // Now nothing listens there: a client of that address has no live server.
              runner
                  .withPropertyValues(
                      "sluice.server.enabled=false",
                      "sluice.client.down.stub=" + ReactorGreeterClient.class.getName(),
                      "sluice.client.down.wait-for-server=1ms",
                      "sluice.client.down.address=127.0.0.1:" + port)
                  .run(
                      client -> {
                        HealthIndicator clients = client.getBean("sluiceClientsHealthIndicator", HealthIndicator.class);
                        Mono<HelloReply> call = client.getBean(ReactorGreeterClient.class).sayHello(ADA);
                        org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class, () -> call.block(WAIT));
                        assertThat(clients.health().getStatus().getCode()).isEqualTo("DOWN");
                        assertThat(clients.health().getDetails()).containsKey("down");
                      });
            });
  }

  @Test
  void leaseAndLimitsReachTheConnectionOptions() {
    SluiceServerProperties p = new SluiceServerProperties();
    p.getLimits().setMaxActiveStreams(7);
    p.getLimits().setMaxFrameSize(org.springframework.util.unit.DataSize.ofKilobytes(64));
    p.getLimits().setKeepaliveInterval(Duration.ofSeconds(3));
    p.getLease().setPolicy(SluiceServerProperties.LeasePolicyKind.FIXED);
    p.getLease().setTtl(Duration.ofSeconds(2));
    p.getLease().setRequests(5);
    io.sluice.core.ConnectionOptions o =
        SluiceServerFactory.options(p, List.of(b -> b.maxReassembledSize(1 << 20)));
    assertThat(o.maxActiveStreams()).isEqualTo(7);
    assertThat(o.maxFrameSize()).isEqualTo(64 * 1024);
    assertThat(o.keepAliveInterval()).isEqualTo(Duration.ofSeconds(3));
    assertThat(o.maxReassembledSize()).isEqualTo(1 << 20);
    assertThat(o.lease()).isTrue();
    assertThat(o.leasePolicy()).isNotNull();
  }
}
