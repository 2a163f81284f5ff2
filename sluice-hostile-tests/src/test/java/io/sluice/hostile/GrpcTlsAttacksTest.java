package io.sluice.hostile;

import static io.netty.handler.codec.http2.Http2Error.ENHANCE_YOUR_CALM;
import static io.sluice.transport.http2.RawH2Peer.concat;
import static io.sluice.transport.http2.RawH2Peer.rstStream;

import io.netty.handler.codec.http2.Http2Error;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.http2.RawH2Peer;
import org.junit.jupiter.api.Test;

/**
 * {@link Http2TlsAttacksTest}'s two attacks against a {@link io.sluice.transport.grpc.GrpcServer}
 * over TLS (ALPN h2, a self-signed certificate), grpc-java over TLS the well-behaved client: rapid
 * reset of gRPC calls, and connections that never start the TLS handshake.
 */
class GrpcTlsAttacksTest extends HostileTestBase {
  @Override
  String[] serverOptions() {
    return new String[] {"transport=grpctls", PREFACE_TIMEOUT};
  }

  @Override
  void wellBehavedClient() {
    GoodGrpcClient.serveTls(server.port);
  }

  @Override
  String rowPrefix() {
    return "gRPC over TLS: ";
  }

  @Override
  ClientTransport wellBehavedTransport(int port) {
    throw new UnsupportedOperationException("the well-behaved client is grpc-java");
  }

  @Test
  void rapidResetOverTls() throws Exception {
    scenario(
        "rapid reset (CVE-2023-44487) of gRPC calls over TLS",
        port -> {
          try (RawH2Peer p = RawH2Peer.handshakeTls(port)) {
            p.fencedFlood(Http2AttacksTest.FLOOD, Http2AttacksTest.perStream(
                Http2AttacksTest.RAPID_RESET_BATCH, id -> concat(GrpcFrames.countForever(id, false), rstStream(id, Http2Error.CANCEL))));
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
