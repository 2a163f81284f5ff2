package io.sluice.flavor.tck;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.exceptions.ApplicationErrorException;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.local.LocalTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The interaction suite every flavor runs: a client of one flavor against a server of another (or
 * the same), over the local transport or TCP. Subclasses pick the pair; see {@link Contract} for
 * what the server answers. Every message is pooled, so netty's leak detector (PARANOID, via the
 * auto-registered LeakCheckExtension) fails a test that loses one.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class InteractionSuite {
  private static final AtomicInteger COUNTER = new AtomicInteger();

  private final Flavor clientFlavor;
  private final Flavor serverFlavor;
  private final boolean tcp;
  private ServerTransport.Bound bound;
  private Requester requester;
  private final List<Requester> serverSides = new ArrayList<>();
  ServerProbe probe;
  Client client;

  InteractionSuite(Flavor client, Flavor server, boolean tcp) {
    this.clientFlavor = client;
    this.serverFlavor = server;
    this.tcp = tcp;
  }

  @BeforeEach
  void connect() {
    clientFlavor.assumeRunnable();
    serverFlavor.assumeRunnable();
    probe = new ServerProbe();
    ServerTransport st;
    String name = "flavor-tck-" + COUNTER.incrementAndGet();
    st = tcp ? TcpServerTransport.create("127.0.0.1", 0) : LocalTransport.server(name);
    bound =
        Probe.await(
            Connections.serve(
                st,
                ConnectionOptions.defaults(),
                (setup, r) -> {
                  synchronized (serverSides) {
                    serverSides.add(r);
                  }
                  return serverFlavor.server(probe, r);
                }));
    ClientTransport ct =
        tcp
            ? TcpClientTransport.create(
                "127.0.0.1", ((InetSocketAddress) bound.address()).getPort())
            : LocalTransport.client(name);
    requester =
        Probe.await(
            Connections.connect(
                ct, ConnectionOptions.defaults(), ClientSetup.defaults(), r -> new Responder() {}));
    client = clientFlavor.client(requester);
  }

  @AfterEach
  void close() {
    if (requester != null) {
      requester.dispose();
      Probe.await(requester.onClose().exceptionally(e -> null));
    }
    synchronized (serverSides) {
      for (Requester r : serverSides) {
        Probe.await(r.onClose().exceptionally(e -> null));
      }
    }
    if (bound != null) {
      bound.close();
    }
  }

  @Test
  void fireAndForgetReachesTheServer() throws Exception {
    Probe.await(client.fireAndForget("hello"));
    assertThat(probe.fnf.poll(Probe.WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("hello");
  }

  @Test
  void requestResponseAnswers() {
    assertThat(Probe.await(client.requestResponse("hi").result())).isEqualTo("echo:hi");
  }

  @Test
  void manyRequestResponsesInFlight() {
    List<Client.Call> calls = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      calls.add(client.requestResponse("n" + i));
    }
    for (int i = 0; i < 100; i++) {
      assertThat(Probe.await(calls.get(i).result())).isEqualTo("echo:n" + i);
    }
  }

  @Test
  void requestResponseError() {
    Client.Call call = client.requestResponse("error");
    Throwable error = call.result().handle((v, e) -> e).join();
    assertThat(rootCause(error)).isInstanceOf(ApplicationErrorException.class).hasMessage("boom");
  }

  @Test
  void requestResponseCancelReachesTheServer() {
    Client.Call call = client.requestResponse("never");
    call.cancel();
    Probe.await(probe.rrCanceled);
  }

  @Test
  void streamDeliversAllValuesInOrder() {
    Probe p = client.requestStream("count:300");
    p.request(Long.MAX_VALUE);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      expected.add(Integer.toString(i));
    }
    assertThat(p.take(300)).isEqualTo(expected);
    assertThat(p.awaitComplete()).isEmpty();
  }

  @Test
  void streamInBatchesOfDemand() {
    Probe p = client.requestStream("count:10");
    List<String> got = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      p.request(2);
      got.addAll(p.take(2));
    }
    assertThat(got).containsExactly("0", "1", "2", "3", "4", "5", "6", "7", "8", "9");
    assertThat(p.awaitComplete()).isEmpty();
  }

  @Test
  void streamErrorAfterValues() {
    Probe p = client.requestStream("fail:2");
    p.request(Long.MAX_VALUE);
    assertThat(p.take(2)).containsExactly("0", "1");
    assertThat(rootCause(p.awaitError()))
        .isInstanceOf(ApplicationErrorException.class)
        .hasMessage("boom");
  }

  @Test
  void streamHonoursDemandAndCancel() {
    Probe p = client.requestStream("endless");
    p.request(3);
    assertThat(p.take(3)).containsExactly("0", "1", "2");
    p.request(2);
    assertThat(p.take(2)).containsExactly("3", "4");
    p.cancel();
    Probe.await(probe.streamCanceled);
    // The server can only have sent what was asked for (plus the client's read-ahead, if any).
    assertThat(probe.emitted.get()).isBetween(5L, 5L + clientFlavor.maxAhead());
  }

  @Test
  void channelEchoesUntilTheRequesterCompletes() {
    Probe p = client.requestChannel(List.of("echo", "a", "b", "c"), true);
    p.request(Long.MAX_VALUE);
    assertThat(p.take(3)).containsExactly("echo:a", "echo:b", "echo:c");
    assertThat(p.awaitComplete()).isEmpty();
  }

  @Test
  void channelResponderCompletesFirstAndStopsTheRequester() {
    Probe p = client.requestChannel(List.of("take:2", "x", "y", "z"), false);
    p.request(Long.MAX_VALUE);
    assertThat(p.take(2)).containsExactly("got:x", "got:y");
    assertThat(p.awaitComplete()).isEmpty();
    Probe.await(p.outboundCanceled);
  }

  @Test
  void channelWithDemandInBatches() {
    Probe p = client.requestChannel(List.of("echo", "1", "2", "3", "4"), true);
    p.request(1);
    assertThat(p.take(1)).containsExactly("echo:1");
    p.request(3);
    assertThat(p.take(3)).containsExactly("echo:2", "echo:3", "echo:4");
    assertThat(p.awaitComplete()).isEmpty();
  }

  static Throwable rootCause(Throwable t) {
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }
}
