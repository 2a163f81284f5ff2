package io.sluice.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionObserver;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.ConnectionStats;
import io.sluice.core.Connections;
import io.sluice.core.Resumption;
import io.sluice.core.SluiceServer;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A server with resumption on wraps every connection (resumable or not) before the engine sees it:
 * the metrics' {@code transport} tag still names the transport underneath, not "other".
 */
class ResumeMetricsNameTest {
  @Test
  void connectionsOfAResumingServerAreTaggedWithTheirTransport() throws Exception {
    CompletableFuture<String> serverSide = new CompletableFuture<>();
    CompletableFuture<String> clientSide = new CompletableFuture<>();
    Resumption r = Resumption.builder().build();
    SluiceServer server =
        Connections.start(
                TcpServerTransport.create("127.0.0.1", 0),
                ConnectionOptions.builder().resumption(r).observer(observer(serverSide)).build(),
                (setup, requester) -> new Responder() {})
            .get(60, TimeUnit.SECONDS);
    Requester client = null;
    try {
      client =
          Connections.connect(
                  TcpClientTransport.create("127.0.0.1", ((InetSocketAddress) server.address()).getPort()),
                  ConnectionOptions.builder().observer(observer(clientSide)).build(),
                  ClientSetup.defaults().resumable(r),
                  x -> new Responder() {})
              .get(60, TimeUnit.SECONDS);
      assertThat(serverSide.get(60, TimeUnit.SECONDS)).isEqualTo("tcp");
      assertThat(clientSide.get(60, TimeUnit.SECONDS)).isEqualTo("tcp");
    } finally {
      if (client != null) {
        client.dispose();
      }
      server.close();
    }
  }

  private static ConnectionObserver observer(CompletableFuture<String> transport) {
    return new ConnectionObserver() {
      @Override
      public void opened(ConnectionStats stats) {
        transport.complete(stats.transport());
      }

      @Override
      public void closed(ConnectionStats stats) {}
    };
  }
}
