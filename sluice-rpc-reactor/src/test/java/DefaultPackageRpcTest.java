import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.rsocket.RpcResponder;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** toplevel.proto has no package at all: its generated classes live in the default package. */
class DefaultPackageRpcTest {
  @Test
  void serviceWithoutPackageIsCalledByItsBareName() throws Exception {
    ReactorPing impl =
        request -> Mono.just(Toplevel.PingReply.newBuilder().setText("pong:" + request.getText()).build());
    ServerTransport.Bound server =
        Connections.serve(
                TcpServerTransport.create("127.0.0.1", 0),
                ConnectionOptions.defaults(),
                RpcResponder.acceptor(ServiceRegistry.builder().add(new ReactorPingServer(impl)).build()))
            .get(10, TimeUnit.SECONDS);
    ReactorRequester requester =
        SluiceClient.builder(TcpClientTransport.create("127.0.0.1", ((InetSocketAddress) server.address()).getPort()))
            .connect()
            .block(Duration.ofSeconds(10));
    try {
      assertThat(ReactorPing.SERVICE).isEqualTo("Ping");
      Toplevel.PingReply reply =
          new ReactorPingClient(requester)
              .check(Toplevel.PingRequest.newBuilder().setText("x").build())
              .block(Duration.ofSeconds(10));
      assertThat(reply.getText()).isEqualTo("pong:x");
    } finally {
      requester.dispose();
      server.close();
    }
  }
}
