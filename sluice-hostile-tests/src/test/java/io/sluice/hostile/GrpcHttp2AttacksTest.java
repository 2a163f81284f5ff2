package io.sluice.hostile;

import static io.sluice.transport.http2.RawH2Peer.headers;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.transport.ClientTransport;
import io.sluice.transport.http2.RawH2Peer;
import io.sluice.transport.http2.RawH2Peer.Hpack;

/**
 * {@link Http2AttacksTest}'s attacks, unchanged, against a {@link
 * io.sluice.transport.grpc.GrpcServer} (h2c, its defaults): each
 * attack's requests are gRPC calls of {@link HostileGrpcService} instead of the stream mapping's,
 * and the well-behaved client is grpc-java ({@link GoodGrpcClient}).
 */
class GrpcHttp2AttacksTest extends Http2AttacksTest {
  @Override
  String[] serverOptions() {
    return new String[] {"transport=grpc", PREFACE_TIMEOUT, DEADLINE_PREFACE_TIMEOUT, WRITE_STALL_TIMEOUT};
  }

  @Override
  ClientTransport wellBehavedTransport(int port) {
    throw new UnsupportedOperationException("the well-behaved client is grpc-java");
  }

  @Override
  void wellBehavedClient(int port) {
    GoodGrpcClient.serve(port);
  }

  @Override
  String rowPrefix() {
    return "gRPC: ";
  }

  /** A call of Count asking for endless messages (no END_STREAM: the caller may still send). */
  @Override
  byte[] endless(int streamId) {
    return GrpcFrames.countForever(streamId, false);
  }

  @Override
  byte[] firehose(int streamId) {
    return endless(streamId);
  }

  @Override
  String[] requestFields() {
    return GrpcFrames.fields("Count");
  }

  @Override
  byte[] wholeRequest(int streamId) {
    return GrpcFrames.countForever(streamId, true);
  }

  @Override
  byte[] notFoundBlock() {
    return Hpack.block(GrpcFrames.fieldsFor("/sluice.hostile.Nowhere/Method"));
  }

  /** A request without {@code :scheme}: malformed (RFC 9113 8.3.1), the route resets it. */
  @Override
  byte[] selfResetRequest(int streamId) {
    return headers(streamId, false, Hpack.block(
        ":method", "POST", ":authority", "127.0.0.1", ":path", "/" + HostileGrpcService.NAME + "/Count",
        "content-type", "application/grpc"));
  }

  /**
   * The gRPC server has no write-stall timeout (nor has grpc-java by default): a caller that never
   * opens its window keeps its calls waiting on flow control, each holding no more than its
   * allowance of responses, and its connection open; {@code withMaxConnections} bounds how many.
   */
  @Override
  String expectWriteStall(RawH2Peer p) throws Exception {
    assertThat(p.pingFence(7)).as("the server still answers the attacker's PING").isTrue();
    long data = p.dataBytes.values().stream().mapToLong(Long::longValue).sum();
    assertThat(data).as("DATA bytes beyond the windows").isLessThanOrEqualTo(65_535);
    long open = server.stats().streams();
    assertThat(open).as("calls waiting on flow control at the server").isPositive();
    assertThat(p.closed).as("connection closed").isFalse();
    return data + " DATA bytes (the windows); the calls wait on flow control (" + open
        + " open, memory bounded), the connection stays open (no write-stall timeout on gRPC)";
  }

  /**
   * As for the stream mapping, or, when the flood ended without a failed write: closed by the
   * server afterwards. Seen once in six runs of the 404 flood (gRPC's answers are trailers-only
   * HEADERS whose RST_STREAM(NO_ERROR) waits for the HEADERS to be written): the limit on RST_STREAM
   * sent (refusals beyond the stream cap) tripped before the limit on queued control frames, and
   * netty then waits for its GOAWAY, queued behind what the peer never read, up to its graceful
   * shutdown timeout before it closes.
   */
  @Override
  String expectCut(RawH2Peer p) throws java.io.IOException {
    if (p.writeFailed) {
      return super.expectCut(p);
    }
    assertThat(p.awaitClosed(WAIT)).as("server closed the attacker after its flood").isTrue();
    return "closed after the flood (attacker then read " + (p.bytesRead >> 10) + " KiB, "
        + (p.goAway != null ? "ending in " + p.goAway : "no GOAWAY") + ")";
  }

  @Override
  String selfResetDescription() {
    return "gRPC requests without :scheme (the gRPC route resets them)";
  }
}
