package io.sluice.conformance;

import static io.sluice.test.WireFrame.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Requester;
import io.sluice.test.FrameBuilder;
import io.sluice.test.RawPeer;
import io.sluice.test.WireFrame;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Leasing: rules 15-19 of docs/conformance.md (rule 35's lease half is in FragmentationRulesTest). */
class LeaseRulesTest extends ConformanceTestBase {

  private static final String REJECTED_EVENT = "error:0x202:";

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 15: with L in SETUP, the server sends a LEASE after accepting the SETUP")
  void serverSendsLeaseAfterAcceptingSetupWithLease(Wire wire) {
    RawPeer peer = rawClient(wire, options().lease(true).leaseGrant(5_000, 7).build(), new Recorder());
    peer.send(FrameBuilder.setup().lease(true));
    WireFrame lease = peer.next();
    assertThat(WireFrame.name(lease.type())).as("the server's first frame").isEqualTo("LEASE");
    assertThat(lease.streamId()).isZero();
    assertThat(lease.leaseTtl()).isEqualTo(5_000);
    assertThat(lease.leaseRequests()).isEqualTo(7);

    RawPeer noLease = rawClient(wire, options().lease(true).build(), new Recorder());
    noLease.send(FrameBuilder.setup());
    noLease.assertQuiet();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 16: with L, the client sends no request before a LEASE, and its responder leases the server")
  void clientWaitsForLeaseAndLeasesTheServer(Wire wire) {
    ClientSide client =
        sluiceClient(wire, options().lease(true).leaseGrant(8_000, 3).build(), new Recorder());
    assertThat(client.setup.has(SETUP_L)).isTrue();
    WireFrame clientLease = client.peer.next(LEASE);
    assertThat(clientLease.leaseTtl()).isEqualTo(8_000);
    assertThat(clientLease.leaseRequests()).isEqualTo(3);
    client.peer.assertQuiet();
    assertThat(client.requester.isDone()).as("requests may start before a LEASE arrived").isFalse();

    client.peer.send(FrameBuilder.lease(60_000, 1));
    client.requester().requestResponse(utf8("leased"), new Events());
    assertThat(client.peer.next(REQUEST_RESPONSE).dataUtf8()).isEqualTo("leased");
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 17: a requester never exceeds the lease count within its TTL; an expired lease allows nothing")
  void requesterNeverExceedsLeaseCountWithinTtl(Wire wire) throws InterruptedException {
    ClientSide client = sluiceClient(wire, options().lease(true).build(), new Recorder());
    client.peer.next(LEASE);
    client.peer.send(FrameBuilder.lease(60_000, 2));
    Requester requester = client.requester();
    Events third = new Events();
    requester.requestResponse(utf8("1"), new Events());
    requester.requestStream(utf8("2"), 1, new Events());
    requester.requestResponse(utf8("3"), third);
    assertThat(third.take()).startsWith(REJECTED_EVENT);
    List<WireFrame> sent = client.peer.fence();
    assertThat(sent).extracting(WireFrame::type).containsExactly(REQUEST_RESPONSE, REQUEST_STREAM);

    // Expiry: a fresh allowance whose TTL has run out allows no request.
    client.peer.send(FrameBuilder.lease(50, 5));
    client.peer.assertQuiet();
    Thread.sleep(250); // let the 50 ms TTL run out (waiting, not asserting a duration)
    Events late = new Events();
    requester.requestResponse(utf8("late"), late);
    assertThat(late.take()).startsWith(REJECTED_EVENT);
    client.peer.assertQuiet();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 18: a request without a valid lease gets ERROR[REJECTED] on its stream")
  void requestWithoutValidLeaseIsRejected(Wire wire) {
    Recorder responder = new Recorder();
    RawPeer peer = rawClient(wire, options().lease(true).leaseGrant(30_000, 1).build(), responder);
    peer.send(FrameBuilder.setup().lease(true));
    peer.next(LEASE);
    peer.send(FrameBuilder.requestResponse(1).data("granted"));
    peer.send(FrameBuilder.requestResponse(3).data("beyond"));
    peer.send(FrameBuilder.requestStream(5, 1).data("beyond"));
    peer.send(FrameBuilder.requestFnf(7).data("beyond"));
    WireFrame r3 = peer.next(ERROR);
    assertThat(r3.streamId()).isEqualTo(3);
    assertThat(r3.errorCode()).isEqualTo(REJECTED);
    WireFrame r5 = peer.next(ERROR);
    assertThat(r5.streamId()).isEqualTo(5);
    assertThat(r5.errorCode()).isEqualTo(REJECTED);
    assertThat(peer.fence()).as("a fire-and-forget has no stream to reject on").isEmpty();
    assertThat(responder.take().data()).isEqualTo("granted");
    assertThat(responder.pending()).isEmpty();

    // The client's responder enforces the lease it granted the same way.
    Recorder clientResponder = new Recorder();
    ClientSide client =
        sluiceClient(wire, options().lease(true).leaseGrant(30_000, 1).build(), clientResponder);
    client.peer.next(LEASE);
    client.peer.send(FrameBuilder.requestResponse(2).data("granted"));
    client.peer.send(FrameBuilder.requestResponse(4).data("beyond"));
    WireFrame r4 = client.peer.next(ERROR);
    assertThat(r4.streamId()).isEqualTo(4);
    assertThat(r4.errorCode()).isEqualTo(REJECTED);
    assertThat(clientResponder.take().data()).isEqualTo("granted");
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Wire.class)
  @DisplayName("Rule 19: the newest LEASE overrides the previous one (neither added nor kept)")
  void newestLeaseOverridesPrevious(Wire wire) {
    ClientSide client = sluiceClient(wire, options().lease(true).build(), new Recorder());
    client.peer.next(LEASE);
    client.peer.send(FrameBuilder.lease(60_000, 1));
    client.peer.send(FrameBuilder.lease(60_000, 3));
    client.peer.assertQuiet();
    Requester requester = client.requester();
    Events fourth = new Events();
    for (int i = 0; i < 3; i++) {
      requester.requestResponse(utf8("r" + i), new Events());
    }
    requester.requestResponse(utf8("r3"), fourth);
    assertThat(fourth.take()).startsWith(REJECTED_EVENT);
    assertThat(client.peer.fence()).hasSize(3);

    client.peer.send(FrameBuilder.lease(60_000, 5));
    client.peer.send(FrameBuilder.lease(60_000, 1));
    client.peer.assertQuiet();
    Events second = new Events();
    requester.requestResponse(utf8("a"), new Events());
    requester.requestResponse(utf8("b"), second);
    assertThat(second.take()).startsWith(REJECTED_EVENT);
    assertThat(client.peer.fence()).hasSize(1);
  }
}
