package io.sluice.hostile;

import static io.netty.handler.codec.http2.Http2Error.ENHANCE_YOUR_CALM;
import static io.sluice.transport.http2.RawH2Peer.concat;
import static io.sluice.transport.http2.RawH2Peer.rstStream;

import io.netty.handler.codec.http2.Http2Error;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.http2.Http2ClientTransport;
import io.sluice.transport.http2.RawH2Peer;
import io.sluice.transport.netty.Tls;
import org.junit.jupiter.api.Test;

/**
 * A few of {@link Http2AttacksTest}'s attacks against the HTTP/2 server over TLS (ALPN h2, a
 * self-signed certificate): rapid reset on a TLS connection, and connections that never start the
 * TLS handshake (the preface deadline counts from the accept, so it bounds the handshake too).
 */
class Http2TlsAttacksTest extends HostileTestBase {
  @Override
  String[] serverOptions() {
    return new String[] {"transport=h2tls", "writeStallTimeoutMs=2000", PREFACE_TIMEOUT};
  }

  @Override
  ClientTransport wellBehavedTransport(int port) {
    return Http2ClientTransport.create("localhost", port)
        .withSsl(Tls.client().insecure().alpn("h2").build());
  }

  @Override
  String rowPrefix() {
    return "h2 over TLS: ";
  }

  @Test
  void rapidReset() throws Exception {
    scenario(
        "rapid reset (CVE-2023-44487) over TLS",
        port -> {
          try (RawH2Peer p = RawH2Peer.handshakeTls(port)) {
            p.fencedFlood(
                Http2AttacksTest.FLOOD,
                Http2AttacksTest.perStream(
                    Http2AttacksTest.RAPID_RESET_BATCH, id -> concat(Http2AttacksTest.forever(id), rstStream(id, Http2Error.CANCEL))));
            return Http2AttacksTest.expectGoAway(p, ENHANCE_YOUR_CALM);
          }
        });
  }

  @Test
  void noTlsHandshake() throws Exception {
    scenario(
        "200 connections that never start the TLS handshake",
        port -> Http2AttacksTest.slowConnections(port, 200, new byte[0]));
  }
}
