package io.sluice.hostile;

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
    return new String[] {"transport=grpctls", PREFACE_TIMEOUT, DEADLINE_PREFACE_TIMEOUT, Http2TlsAttacksTest.EARLY_RESETS, Http2TlsAttacksTest.EARLY_RESET_WINDOW};
  }

  @Override
  void wellBehavedClient(int port) {
    GoodGrpcClient.serveTls(port);
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
            return Http2AttacksTest.rapidReset(p, id -> GrpcFrames.countForever(id, false));
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
