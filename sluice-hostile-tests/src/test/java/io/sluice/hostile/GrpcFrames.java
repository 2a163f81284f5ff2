package io.sluice.hostile;

import static io.sluice.transport.http2.RawH2Peer.concat;
import static io.sluice.transport.http2.RawH2Peer.data;
import static io.sluice.transport.http2.RawH2Peer.headers;

import io.sluice.transport.http2.RawH2Peer.Hpack;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;

/** gRPC on the wire for the raw attacker: request header blocks and length-prefixed messages. */
final class GrpcFrames {
  private GrpcFrames() {}

  /** The header fields of a call of {@code method} of {@link HostileGrpcService}, then {@code extra}. */
  static String[] fields(String method, String... extra) {
    return fieldsFor("/" + HostileGrpcService.NAME + "/" + method, extra);
  }

  static String[] fieldsFor(String path, String... extra) {
    List<String> f = new ArrayList<>(List.of(
        ":method", "POST", ":scheme", "http", ":authority", "127.0.0.1", ":path", path,
        "content-type", "application/grpc", "te", "trailers"));
    f.addAll(List.of(extra));
    return f.toArray(new String[0]);
  }

  /** The header fields of a gRPC-Web or HTTP/JSON call of {@code method}, {@code contentType} its body's. */
  static String[] webFields(String method, String contentType) {
    return new String[] {
      ":method", "POST", ":scheme", "http", ":authority", "127.0.0.1", ":path", "/" + HostileGrpcService.NAME + "/" + method,
      "content-type", contentType, "x-grpc-web", "1"
    };
  }

  /** HEADERS (END_HEADERS) of a call of {@code method}. */
  static byte[] call(int streamId, boolean endStream, String method, String... extra) {
    return headers(streamId, endStream, Hpack.block(fields(method, extra)));
  }

  /** A call of Count asking for endless messages (no END_STREAM unless asked). */
  static byte[] countForever(int streamId, boolean endStream) {
    return concat(call(streamId, false, "Count"),
        data(streamId, endStream, message(false, com.google.protobuf.StringValue.of("forever").toByteArray())));
  }

  /** A message: the 5-byte prefix (flag, u32 length) and {@code body}. */
  static byte[] message(boolean compressed, byte[] body) {
    return concat(prefix(compressed, body.length), body);
  }

  /** A message prefix declaring {@code length} bytes. */
  static byte[] prefix(boolean compressed, long length) {
    return ByteBuffer.allocate(5).put((byte) (compressed ? 1 : 0)).putInt((int) length).array();
  }

  /** HEADERS then one DATA frame with {@code body} as an uncompressed message. */
  static byte[] unary(int streamId, boolean endStream, String method, byte[] body) {
    return concat(call(streamId, false, method), data(streamId, endStream, message(false, body)));
  }

  /** {@code bytes} as DATA frames of at most {@code maxFrame} bytes, END_STREAM on the last if asked. */
  static byte[] dataFrames(int streamId, byte[] bytes, int maxFrame, boolean endStream) {
    List<byte[]> frames = new ArrayList<>();
    for (int off = 0; off < bytes.length; off += maxFrame) {
      int n = Math.min(maxFrame, bytes.length - off);
      boolean last = off + n == bytes.length;
      frames.add(data(streamId, endStream && last, java.util.Arrays.copyOfRange(bytes, off, off + n)));
    }
    if (bytes.length == 0) {
      frames.add(data(streamId, endStream, new byte[0]));
    }
    return concat(frames.toArray(new byte[0][]));
  }

  static byte[] gzip(byte[] plain) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(plain);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
