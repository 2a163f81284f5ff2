package io.sluice.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.SluiceServer;
import io.sluice.examples.rpc.GreeterService;
import io.sluice.examples.rpc.HelloReply;
import io.sluice.examples.rpc.HelloRequest;
import io.sluice.examples.rpc.ReactorGreeterClient;
import io.sluice.examples.rpc.ReactorGreeterServer;
import io.sluice.exceptions.RejectedSetupException;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.transport.local.LocalTransport;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.UUID;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** SetupAuthGuide: a valid token is served, another is refused before any call runs. */
class SetupAuthGuideTest {
  static final Duration WAIT = Duration.ofSeconds(30);
  static final byte[] SECRET = "s3cret".getBytes(StandardCharsets.UTF_8);
  // Compares in constant time, as a token check should.
  static final Predicate<String> VALID =
      token -> MessageDigest.isEqual(token.getBytes(StandardCharsets.UTF_8), SECRET);

  String name;
  SluiceServer server;

  @BeforeEach
  void start() {
    name = "auth-" + UUID.randomUUID();
    ServiceRegistry registry = ServiceRegistry.builder().add(new ReactorGreeterServer(new GreeterService())).build();
    server = SetupAuthGuide.serve(LocalTransport.server(name), registry, VALID);
  }

  @AfterEach
  void stop() {
    server.stop(Duration.ofSeconds(5)).join();
  }

  @Test
  void aValidTokenIsServed() {
    ReactorRequester connection = SetupAuthGuide.connect(LocalTransport.client(name), "s3cret");
    try {
      HelloReply reply =
          new ReactorGreeterClient(connection)
              .sayHello(HelloRequest.newBuilder().setName("Ada").build())
              .block(WAIT);
      assertThat(reply.getMessage()).isEqualTo("hello Ada");
    } finally {
      connection.close();
    }
  }

  @Test
  void anInvalidTokenIsRefused() {
    ReactorRequester connection = SetupAuthGuide.connect(LocalTransport.client(name), "guess");
    assertThatThrownBy(() -> connection.onClose().block(WAIT))
        .isInstanceOf(RejectedSetupException.class)
        .hasMessageContaining("invalid token");
  }
}
