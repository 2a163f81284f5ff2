package io.sluice.balancer.guide;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.ssl.SslContext;
import io.sluice.Acceptor;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.balancer.AddressSource;
import io.sluice.balancer.Balancer;
import io.sluice.balancer.DnsAddressSource;
import io.sluice.balancer.ManualAddressSource;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.SluiceServer;
import io.sluice.futures.FuturesRequester;
import io.sluice.lease.LeasePolicy;
import io.sluice.rpc.rsocket.RpcRequests;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The code of docs/guide/fleet.md (and README's balancer example): each region between {@code
 * tag::NAME[]} markers is copied into the page, and GuideSnippetsTest checks the copies. The
 * regions that need no DNS run here against three servers on 127.0.0.1.
 */
class FleetGuideTest {
  private final List<ServerTransport.Bound> servers = new ArrayList<>();

  @AfterEach
  void close() {
    servers.forEach(ServerTransport.Bound::close);
  }

  /** A server that answers each request-response. */
  private InetSocketAddress server() throws Exception {
    Responder named =
        new Responder() {
          @Override
          public StreamListener requestResponse(Message request, StreamHandle response) {
            request.release();
            response.nextAndComplete(Message.utf8(response.alloc(), "hello back"));
            return StreamListener.DISCARDING;
          }
        };
    ServerTransport.Bound b =
        Connections.serve(
                TcpServerTransport.create("127.0.0.1", 0),
                ConnectionOptions.defaults(),
                (setup, requester) -> named)
            .get(10, TimeUnit.SECONDS);
    servers.add(b);
    return (InetSocketAddress) b.address();
  }

  // tag::connector[]
  /** Opens one connection to one server: the balancer calls it per server, and again after a loss. */
  static CompletableFuture<Requester> connect(SocketAddress address) {
    return Connections.connect(
        TcpClientTransport.create((InetSocketAddress) address),
        ConnectionOptions.defaults(), // .lease(true) to balance by the servers' leases
        ClientSetup.defaults(),
        requester -> new Responder() {});
  }
  // end::connector[]

  static FuturesRequester readme(
      InetSocketAddress a, InetSocketAddress b, InetSocketAddress c) {
    // tag::readme[]
    Balancer balancer =
        Balancer.builder()
            .addresses(AddressSource.fixed(a, b, c)) // or AddressSource.dns("my-svc", 7878)
            .connector(FleetGuideTest::connect)
            .build();
    FuturesRequester client = new FuturesRequester(balancer); // any flavor, any RPC client
    // end::readme[]
    return client;
  }

  static FuturesRequester readmeInline(
      InetSocketAddress a, InetSocketAddress b, InetSocketAddress c) {
    // tag::readme-inline[]
    Balancer balancer =
        Balancer.builder()
            .addresses(AddressSource.fixed(a, b, c)) // or AddressSource.dns("my-svc", 7878)
            .connector(
                address ->
                    Connections.connect(
                        TcpClientTransport.create((InetSocketAddress) address),
                        ConnectionOptions.defaults(),
                        ClientSetup.defaults(),
                        requester -> new Responder() {}))
            .build();
    FuturesRequester client = new FuturesRequester(balancer); // any flavor, any RPC client
    // end::readme-inline[]
    return client;
  }

  static Balancer knobs(AddressSource source) {
    // tag::knobs[]
    Balancer balancer =
        Balancer.builder()
            .addresses(source)
            .connector(FleetGuideTest::connect)
            .rankOf(request -> 0) // priority of a request, 0 highest (default: all 0)
            .retryable(request -> false) // idempotent? (default: none is)
            .aperture(0) // use N of the servers, 0 = all (default 0)
            .backoff(Duration.ofMillis(100), Duration.ofSeconds(5)) // reconnect delays
            .failureThreshold(5) // consecutive failures that eject a server
            .maxAttempts(3) // attempts per request, the first included
            .waitForServer(Duration.ofSeconds(5)) // wait for a first server, then fail
            .maxPending(1024) // requests waiting for a server at most
            .latencyDecay(Duration.ofSeconds(2)) // latency forgotten after this long idle
            .build();
    // end::knobs[]
    return balancer;
  }

  static Balancer rpc(AddressSource source) {
    // tag::rpc[]
    Balancer balancer =
        Balancer.builder()
            .addresses(source)
            .connector(FleetGuideTest::connect)
            .rankOf(RpcRequests::rank) // the method's rank option, read from the call metadata
            .retryable(RpcRequests::idempotent) // calls flagged idempotent may be retried
            .build();
    // end::rpc[]
    return balancer;
  }

  static SluiceServer serveAndDrainOnShutdown(Acceptor acceptor) {
    // tag::drain[]
    SluiceServer server =
        Connections.start(
                TcpServerTransport.create("0.0.0.0", 7878),
                ConnectionOptions.builder().leasePolicy(LeasePolicy.unlimited()).build(),
                acceptor)
            .join();
    // On SIGTERM (a deploy): LEASE 0 and CONNECTION_CLOSE to every client, live streams finish.
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> server.stop(Duration.ofSeconds(20)).join()));
    // end::drain[]
    return server;
  }

  static AddressSource kubernetes() {
    // tag::dns[]
    // A headless service: one A record per ready pod, re-resolved every second.
    AddressSource pods = AddressSource.dns("my-svc.my-ns.svc.cluster.local", 7878);
    // The same with SRV records (the port comes from DNS), asked every 5 s.
    AddressSource srv =
        DnsAddressSource.srv("_rsocket._tcp.my-svc.my-ns.svc.cluster.local")
            .interval(Duration.ofSeconds(5))
            .build();
    // end::dns[]
    srv.close();
    return pods;
  }

  static Balancer tls(AddressSource fromDns, SslContext tls) {
    return Balancer.builder()
        .addresses(fromDns)
        // tag::tls[]
        .connector(a -> Connections.connect(
            TcpClientTransport.create((InetSocketAddress) a).withSsl(tls, DnsAddressSource.serverName(a)),
            ConnectionOptions.defaults(), ClientSetup.defaults(), r -> new Responder() {}))
        // end::tls[]
        .build();
  }

  static void manual(ManualAddressSource source, SocketAddress a, SocketAddress b) {
    // tag::manual[]
    ManualAddressSource fleet = AddressSource.manual(); // fed by your own discovery
    // ... Balancer.builder().addresses(fleet) ...
    fleet.update(List.of(a, b)); // the whole set, each time it changes
    // end::manual[]
    fleet.close();
    source.update(List.of(a, b));
  }

  @Test
  void theReadmeClientSpreadsOverThreeServers() throws Exception {
    InetSocketAddress a = server();
    InetSocketAddress b = server();
    InetSocketAddress c = server();
    FuturesRequester client = readme(a, b, c);
    try {
      Set<String> answered = new HashSet<>();
      Balancer balancer = (Balancer) client.unwrap();
      for (int i = 0;
          i < 1000
              && !balancer.servers().stream().allMatch(s -> s.state().equals("connected"));
          i++) {
        Thread.sleep(10); // requests sent before the servers are up would go to the first one
      }
      List<CompletableFuture<Message>> calls = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        calls.add(client.requestResponse(Message.utf8(client.alloc(), "hello")));
      }
      for (CompletableFuture<Message> f : calls) {
        Message m = f.get(10, TimeUnit.SECONDS);
        answered.add(m.dataUtf8());
        m.release();
      }
      assertThat(answered).containsExactly("hello back");
      assertThat(balancer.servers()).hasSize(3);
      assertThat(balancer.servers().stream().filter(s -> s.requests() > 0).count())
          .as("servers used: %s", balancer.servers())
          .isGreaterThan(1);
    } finally {
      client.dispose();
    }
  }

  @Test
  void theReadmeExampleAnswers() throws Exception {
    FuturesRequester client = readmeInline(server(), server(), server());
    try {
      Message m = client.requestResponse(Message.utf8(client.alloc(), "hi")).get(10, TimeUnit.SECONDS);
      assertThat(m.dataUtf8()).isEqualTo("hello back");
      m.release();
    } finally {
      client.dispose();
    }
  }

  @Test
  void theKnobsBuildAndTheSourcesClose() throws Exception {
    ManualAddressSource source = AddressSource.manual();
    Balancer balancer = knobs(source);
    InetSocketAddress a = server();
    InetSocketAddress b = server();
    manual(source, a, b);
    assertThat(balancer.servers()).hasSize(2);
    balancer.close();
    balancer.onClose().get(10, TimeUnit.SECONDS);
    kubernetes().close(); // built, not started: nothing resolved
    Balancer withRpc = rpc(AddressSource.fixed(a));
    withRpc.dispose();
    withRpc.onClose().get(10, TimeUnit.SECONDS);
  }
}
