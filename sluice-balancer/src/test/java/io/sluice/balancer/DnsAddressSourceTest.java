package io.sluice.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Message;
import io.sluice.futures.FuturesRequester;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** DNS discovery against a DNS server of the test's own on 127.0.0.1: A records and SRV. */
class DnsAddressSourceTest {
  private FakeDnsServer dns;

  @BeforeEach
  void startDns() throws Exception {
    dns = new FakeDnsServer();
  }

  @AfterEach
  void stopDns() {
    dns.close();
  }

  private static InetSocketAddress at(String ip, int port) throws Exception {
    return new InetSocketAddress(java.net.InetAddress.getByName(ip), port);
  }

  @Test
  void aRecordsAreReResolvedAndAFailureKeepsTheLastSet() throws Exception {
    dns.a.put("svc.test", List.of("127.0.0.1"));
    BlockingQueue<Object> got = new LinkedBlockingQueue<>();
    try (DnsAddressSource source =
        DnsAddressSource.host("svc.test", 7000)
            .nameServer(dns.address())
            .interval(Duration.ofMillis(20))
            .build()) {
      source.start(
          new AddressSource.Listener() {
            @Override
            public void onAddresses(Set<SocketAddress> addresses) {
              got.add(addresses);
            }

            @Override
            public void onError(Throwable cause) {
              got.add(cause);
            }
          });
      assertThat(got.poll(10, TimeUnit.SECONDS)).isEqualTo(Set.of(at("127.0.0.1", 7000)));
      dns.a.put("svc.test", List.of("127.0.0.1", "127.0.0.2"));
      assertThat(got.poll(10, TimeUnit.SECONDS))
          .isEqualTo(Set.of(at("127.0.0.1", 7000), at("127.0.0.2", 7000)));
      dns.a.remove("svc.test"); // NXDOMAIN: reported, no empty set
      assertThat(got.poll(10, TimeUnit.SECONDS)).isInstanceOf(java.net.UnknownHostException.class);
      dns.a.put("svc.test", List.of("127.0.0.2"));
      Object next;
      do {
        next = got.poll(10, TimeUnit.SECONDS);
      } while (next instanceof Throwable);
      assertThat(next).isEqualTo(Set.of(at("127.0.0.2", 7000)));
    }
  }

  /** A listener that queues each set and each error it is given. */
  private static AddressSource.Listener into(BlockingQueue<Object> got) {
    return new AddressSource.Listener() {
      @Override
      public void onAddresses(Set<SocketAddress> addresses) {
        got.add(addresses);
      }

      @Override
      public void onError(Throwable cause) {
        got.add(cause);
      }
    };
  }

  @Test
  void anAnswerTooLargeForUdpIsReadWholeOverTcp() throws Exception {
    // 400 A records: about 10 KB, well over the 4 KiB a UDP answer may carry. The UDP answer is
    // cut and marked truncated; the resolver must ask again over TCP, not use the part it got.
    List<String> ips = new java.util.ArrayList<>();
    Set<SocketAddress> all = new java.util.HashSet<>();
    for (int i = 0; i < 400; i++) {
      String ip = "127.0." + (1 + i / 200) + "." + (1 + i % 200);
      ips.add(ip);
      all.add(at(ip, 7000));
    }
    dns.a.put("big.test", ips);
    BlockingQueue<Object> got = new LinkedBlockingQueue<>();
    try (DnsAddressSource source =
        DnsAddressSource.host("big.test", 7000)
            .nameServer(dns.address())
            .interval(Duration.ofMillis(20))
            .queryTimeout(Duration.ofSeconds(20)) // the first TCP connection of a loaded JVM is slow
            .build()) {
      source.start(into(got));
      Object first = got.poll(30, TimeUnit.SECONDS);
      assertThat(first).isInstanceOf(Set.class);
      assertThat((Set<?>) first).hasSize(400).isEqualTo(all);
      assertThat(dns.queries("udp", "big.test")).isPositive();
      assertThat(dns.queries("tcp", "big.test")).isPositive();
    }
  }

  @Test
  void anSrvTargetThatCannotBeResolvedNowKeepsItsLastAddresses() throws Exception {
    dns.a.put("a.test", List.of("127.0.0.1"));
    dns.a.put("b.test", List.of("127.0.0.2"));
    dns.a.put("c.test", List.of("127.0.0.3"));
    dns.srv.put(
        "_rs._tcp.svc.test",
        List.of(new FakeDnsServer.Srv(1, 7001, "a.test"), new FakeDnsServer.Srv(1, 7002, "b.test"),
            new FakeDnsServer.Srv(1, 7003, "c.test")));
    Set<SocketAddress> three = Set.of(at("127.0.0.1", 7001), at("127.0.0.2", 7002), at("127.0.0.3", 7003));
    BlockingQueue<Object> got = new LinkedBlockingQueue<>();
    try (DnsAddressSource source =
        DnsAddressSource.srv("_rs._tcp.svc.test")
            .nameServer(dns.address())
            .interval(Duration.ofMillis(20))
            .build()) {
      source.start(into(got));
      assertThat(got.poll(10, TimeUnit.SECONDS)).isEqualTo(three);

      dns.failing.add("b.test"); // b's A query fails for a while; its server is still there
      for (int i = 0; i < 3; i++) { // three rounds: reported, and none drops b
        Object next = got.poll(10, TimeUnit.SECONDS);
        assertThat(next).as("round %d", i).isInstanceOf(java.net.UnknownHostException.class);
      }
      dns.failing.remove("b.test");
      dns.a.put("b.test", List.of("127.0.0.4")); // b answers again, moved
      Object next;
      do {
        next = got.poll(10, TimeUnit.SECONDS);
      } while (next instanceof Throwable);
      assertThat(next).isEqualTo(Set.of(at("127.0.0.1", 7001), at("127.0.0.4", 7002), at("127.0.0.3", 7003)));

      dns.srv.put( // b leaves the SRV answer: then it is gone
          "_rs._tcp.svc.test",
          List.of(new FakeDnsServer.Srv(1, 7001, "a.test"), new FakeDnsServer.Srv(1, 7003, "c.test")));
      do {
        next = got.poll(10, TimeUnit.SECONDS);
      } while (next instanceof Throwable);
      assertThat(next).isEqualTo(Set.of(at("127.0.0.1", 7001), at("127.0.0.3", 7003)));
    }
  }

  @Test
  void eachAddressCarriesTheNameItWasFoundUnderForTls() throws Exception {
    dns.a.put("svc.test", List.of("127.0.0.1"));
    dns.a.put("a.test", List.of("127.0.0.2"));
    dns.a.put("b.test", List.of("127.0.0.3"));
    dns.srv.put(
        "_rs._tcp.svc.test",
        List.of(new FakeDnsServer.Srv(1, 7001, "a.test"), new FakeDnsServer.Srv(1, 7002, "b.test")));
    BlockingQueue<Object> hosts = new LinkedBlockingQueue<>();
    BlockingQueue<Object> targets = new LinkedBlockingQueue<>();
    try (DnsAddressSource host =
            DnsAddressSource.host("svc.test", 7000).nameServer(dns.address()).build();
        DnsAddressSource srv =
            DnsAddressSource.srv("_rs._tcp.svc.test").nameServer(dns.address()).build()) {
      host.start(into(hosts));
      srv.start(into(targets));
      Set<?> h = (Set<?>) hosts.poll(10, TimeUnit.SECONDS);
      assertThat(h).hasSize(1);
      SocketAddress only = (SocketAddress) h.iterator().next();
      assertThat(DnsAddressSource.serverName(only)).isEqualTo("svc.test");
      // The address is the IP (a connector that connects by host string reaches that IP).
      assertThat(((InetSocketAddress) only).getHostString()).isEqualTo("127.0.0.1");
      assertThat(only).isEqualTo(at("127.0.0.1", 7000));

      Set<?> t = (Set<?>) targets.poll(10, TimeUnit.SECONDS);
      java.util.Map<Integer, String> names = new java.util.HashMap<>();
      for (Object a : t) {
        names.put(((InetSocketAddress) a).getPort(), DnsAddressSource.serverName((SocketAddress) a));
      }
      assertThat(names).isEqualTo(java.util.Map.of(7001, "a.test", 7002, "b.test"));
    }
    assertThat(DnsAddressSource.serverName(at("127.0.0.1", 7000))).isNull();
  }

  @Test
  void aListenerThatThrowsDoesNotStopTheResolution() throws Exception {
    dns.a.put("svc.test", List.of("127.0.0.1"));
    BlockingQueue<Object> got = new LinkedBlockingQueue<>();
    try (DnsAddressSource source =
        DnsAddressSource.host("svc.test", 7000)
            .nameServer(dns.address())
            .interval(Duration.ofMillis(20))
            .build()) {
      java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
      source.start(
          addresses -> {
            got.add(addresses);
            if (calls.incrementAndGet() == 1) {
              throw new IllegalStateException("a listener with a bug");
            }
          });
      assertThat(got.poll(10, TimeUnit.SECONDS)).isEqualTo(Set.of(at("127.0.0.1", 7000)));
      dns.a.put("svc.test", List.of("127.0.0.2"));
      assertThat(got.poll(10, TimeUnit.SECONDS)).isEqualTo(Set.of(at("127.0.0.2", 7000)));
    }
  }

  @Test
  void aBalancerFollowsSrvRecords() throws Exception {
    TestServer a = TestServer.start("A");
    TestServer b = TestServer.start("B");
    TestServer c = TestServer.start("C");
    dns.a.put("a.test", List.of("127.0.0.1"));
    dns.a.put("b.test", List.of("127.0.0.1"));
    dns.a.put("c.test", List.of("127.0.0.1"));
    dns.srv.put(
        "_rs._tcp.svc.test",
        List.of(new FakeDnsServer.Srv(1, a.port(), "a.test"), new FakeDnsServer.Srv(1, b.port(), "b.test"),
            new FakeDnsServer.Srv(2, c.port(), "c.test"))); // a lower priority: not used
    Balancer balancer =
        Balancer.builder()
            .addresses(
                DnsAddressSource.srv("_rs._tcp.svc.test")
                    .nameServer(dns.address())
                    .interval(Duration.ofMillis(50))
                    .build())
            .connector(BalancerTcpTest::connect)
            .build();
    try {
      FuturesRequester client = new FuturesRequester(balancer);
      assertThat(names(client, 200)).isSubsetOf("A", "B"); // never C (priority 2)
      // C joins (same priority), B leaves.
      dns.srv.put(
          "_rs._tcp.svc.test",
          List.of(new FakeDnsServer.Srv(1, a.port(), "a.test"), new FakeDnsServer.Srv(1, c.port(), "c.test")));
      for (int i = 0; i < 2000 && c.requests.get() == 0; i++) {
        names(client, 2);
      }
      assertThat(c.requests.get()).isPositive();
      for (int i = 0; i < 1000 && balancer.retained().servers() != 2; i++) {
        Thread.sleep(10);
      }
      int bBefore = b.requests.get();
      assertThat(names(client, 200)).isSubsetOf("A", "C"); // B drained: none for it
      assertThat(b.requests.get()).isEqualTo(bBefore);
    } finally {
      balancer.dispose();
      balancer.onClose().get(10, TimeUnit.SECONDS);
      a.close();
      b.close();
      c.close();
    }
  }

  private static java.util.List<String> names(FuturesRequester client, int n) throws Exception {
    java.util.List<String> r = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      Message m = client.requestResponse(Message.utf8(client.alloc(), "x")).get(10, TimeUnit.SECONDS);
      r.add(m.dataUtf8());
      m.release();
    }
    return r;
  }
}
