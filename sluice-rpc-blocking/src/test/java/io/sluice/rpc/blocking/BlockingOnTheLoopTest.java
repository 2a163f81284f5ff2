package io.sluice.rpc.blocking;

import static io.sluice.rpc.reactor.fixture.EchoOverTcp.req;
import static io.sluice.rpc.reactor.fixture.RpcTcp.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.reactor.fixture.EchoOverTcp;
import java.util.Iterator;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import sluice.test.echo.BlockingEchoServiceClient;
import sluice.test.echo.BlockingEchoServiceServer;
import sluice.test.echo.EchoOuterClass.EchoReply;
import sluice.test.echo.EchoOuterClass.EchoRequest;
import sluice.test.echo.ReactorEchoServiceClient;

/**
 * A blocking call made on the event loop of its own connection would wait for a response only that
 * loop can deliver, and hang every connection of the loop for good. It fails at once with an
 * {@link IllegalStateException} instead, and the connection goes on working.
 */
class BlockingOnTheLoopTest {
  private static EchoOverTcp tcp;
  private static BlockingEchoServiceClient client;
  private static Executor loop;

  @BeforeAll
  static void start() throws Exception {
    tcp = EchoOverTcp.start(ServiceRegistry.builder().add(new BlockingEchoServiceServer(new BlockingEchoImpl())).build());
    client = new BlockingEchoServiceClient(tcp.requester().unwrap());
    loop = tcp.requester().unwrap().executor();
  }

  @AfterAll
  static void stop() throws Exception {
    tcp.close();
  }

  /** What {@code body} throws (or returns) when run on the connection's event loop. */
  private static Object onTheLoop(Callable<?> body) throws Exception {
    CompletableFuture<Object> outcome = new CompletableFuture<>();
    loop.execute(() -> {
      try {
        outcome.complete(body.call());
      } catch (Throwable t) {
        outcome.complete(t);
      }
    });
    return outcome.get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  private static void assertRefused(Object outcome) {
    assertThat(outcome).isInstanceOf(IllegalStateException.class);
    assertThat(((Throwable) outcome).getMessage()).contains("event loop");
  }

  @Test
  void singleResponseCallsAreRefused() throws Exception {
    assertRefused(onTheLoop(() -> client.say(req("a"))));
    assertRefused(onTheLoop(() -> client.join(Stream.of(req("a"), req("b")))));
    assertRefused(onTheLoop(() -> {
      client.note(req("n"));
      return null;
    }));
    assertThat(afterwards()).isEqualTo("still here");
  }

  /** A stream of responses may be made on the loop; reading it there is refused. */
  @Test
  void readingAStreamOfResponsesIsRefused() throws Exception {
    assertRefused(onTheLoop(() -> {
      try (Stream<EchoReply> s = client.repeat(EchoRequest.newBuilder().setText("r").setCount(3).build())) {
        Iterator<EchoReply> it = s.iterator();
        return it.hasNext();
      }
    }));
    assertRefused(onTheLoop(() -> {
      try (Stream<EchoReply> s = client.chat(Stream.of(req("c")))) {
        return s.findFirst();
      }
    }));
    assertThat(afterwards()).isEqualTo("still here");
  }

  /** The review's case: a reactor callback, run on the loop that delivered a response, calls a blocking client. */
  @Test
  void aBlockingCallInAResponseCallbackIsRefused() throws Exception {
    ReactorEchoServiceClient reactor = new ReactorEchoServiceClient(tcp.requester());
    assertThatThrownBy(() -> reactor.say(req("first")).map(r -> client.say(req("second"))).block(WAIT))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("event loop");
    assertThat(afterwards()).isEqualTo("still here");
  }

  /**
   * On another netty event loop (a requester over a Balancer names no connection's loop, and the
   * connection it picks may live on the caller's): refused too, not waited for.
   */
  @Test
  void aBlockingCallOnAnyOtherEventLoopIsRefused() throws Exception {
    io.netty.channel.DefaultEventLoop other = new io.netty.channel.DefaultEventLoop();
    try {
      CompletableFuture<Object> outcome = new CompletableFuture<>();
      other.execute(() -> {
        try {
          outcome.complete(client.say(req("elsewhere")));
        } catch (Throwable t) {
          outcome.complete(t);
        }
      });
      assertRefused(outcome.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    } finally {
      other.shutdownGracefully(0, 0, TimeUnit.SECONDS);
    }
    assertThat(afterwards()).isEqualTo("still here");
  }

  /** The same client, on a virtual thread: the loop was never held. */
  private static String afterwards() throws Exception {
    try (var executor = Executors.newVirtualThreadPerTaskExecutor()) {
      return executor.submit(() -> client.say(req("still here")).getText()).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
  }
}
