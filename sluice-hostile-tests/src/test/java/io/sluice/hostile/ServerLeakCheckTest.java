package io.sluice.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.Message;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.transport.netty.TcpClientTransport;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The suite's leak check itself: a server started with {@code leakOnPurpose=1} leaks the request
 * of a request-response with data {@code leak}, and {@link ServerProcess#assertNoLeaks} must fail
 * even though that leak is the last thing the server did (no later allocation would have made
 * netty report it). The server records the report without logging it, so no {@code LEAK:} line
 * reaches the build output.
 */
class ServerLeakCheckTest {

  @Test
  void aLeakInTheLastRequestFailsTheCheck() throws Exception {
    try (ServerProcess server = new ServerProcess("leakOnPurpose=1")) {
      requestResponse(server.port, "hello");
      server.assertNoLeaks("a request-response that releases its request", false);

      requestResponse(server.port, "leak");
      // With its connection closed first: an open one may still reach the request it read last
      // (the client's close is on its way), and a reachable buffer is not reported yet.
      assertThatThrownBy(() -> server.assertNoLeaks("the leaking request-response", true))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("leak reports of the server after the leaking request-response")
          .hasMessageContaining("LEAK: ByteBuf.release() was not called")
          // paranoid: the report carries the buffer's access records
          .hasMessageContaining("Created at:");

      // The reports were taken: the next check passes.
      server.assertNoLeaks("the end", true);
      server.close();
      assertThat(server.alarms).as("LEAK: lines logged by a leakOnPurpose server").isEmpty();
    }
  }

  /** One request-response on a fresh connection; checks the echo (hang guard 30 s). */
  private static void requestResponse(int port, String data) {
    ReactorRequester r =
        SluiceClient.builder(TcpClientTransport.create("127.0.0.1", port))
            .connect()
            .block(Duration.ofSeconds(30));
    try {
      Message reply = r.requestResponse(Message.utf8(r.alloc(), data)).block(Duration.ofSeconds(30));
      try {
        assertThat(reply.dataUtf8()).isEqualTo("echo:" + data);
      } finally {
        reply.release();
      }
    } finally {
      r.dispose();
    }
  }
}
