package io.sluice.hostile;

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
  /**
   * The TLS servers' bound on rapid resets: 200 per 60 s, not the default 1,000 per 10 s. The
   * default trips only if the server reads more than 100 streams a second, and over TLS at netty's
   * paranoid leak detection on a loaded 2-core machine it did not (GrpcTlsAttacksTest: no GOAWAY
   * in 20 s of flood at a load average of 13): what failed was the machine's speed, not the bound.
   * The h2c suites keep the default; here it is the same count made over TLS.
   */
  static final String EARLY_RESETS = "maxEarlyResets=200";

  static final String EARLY_RESET_WINDOW = "earlyResetWindowMs=60000";

  @Override
  String[] serverOptions() {
    return new String[] {"transport=h2tls", WRITE_STALL_TIMEOUT, PREFACE_TIMEOUT, DEADLINE_PREFACE_TIMEOUT, EARLY_RESETS, EARLY_RESET_WINDOW};
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
            return Http2AttacksTest.rapidReset(p, Http2AttacksTest::forever);
          }
        });
  }

  @Test
  void noTlsHandshake() throws Exception {
    scenario(
        server.deadlinePort,
        "200 connections that never start the TLS handshake",
        port -> Http2AttacksTest.slowConnections(port, 200, new byte[0]));
  }
}
