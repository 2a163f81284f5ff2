package io.sluice.transport.http2;

import io.netty.buffer.ByteBuf;
import java.util.Objects;
import java.util.function.Function;

/**
 * Picks the {@code :path} of each request an {@link Http2ClientTransport} sends. The server
 * serves any path; the path is for what sits between: gateways, load balancers and logs route and
 * count by it. {@link #RSOCKET} (the default) names the interaction; {@link #fromMetadata} names
 * what the request's metadata names (an RPC method, say).
 *
 * <p><b>Threads.</b> Called on the connection's event loop; must not block. <b>Buffers.</b> The
 * metadata is borrowed for the call: read it, do not keep or release it.
 */
@FunctionalInterface
public interface RequestPaths {
  /** The four interactions a client starts. */
  enum Interaction {
    FIRE_AND_FORGET("/rsocket/fnf"),
    REQUEST_RESPONSE("/rsocket/response"),
    REQUEST_STREAM("/rsocket/stream"),
    REQUEST_CHANNEL("/rsocket/channel");

    private final String path;

    Interaction(String path) {
      this.path = path;
    }

    /** The interaction's plain-RSocket path: {@code /rsocket/fnf|response|stream|channel}. */
    public String rsocketPath() {
      return path;
    }
  }

  /**
   * The path of a request: ASCII, starting with {@code /}.
   *
   * @param metadata the request's metadata, or null if it has none
   */
  CharSequence path(Interaction interaction, ByteBuf metadata);

  /** {@code /rsocket/fnf}, {@code /rsocket/response}, {@code /rsocket/stream}, {@code /rsocket/channel}. */
  RequestPaths RSOCKET = (interaction, metadata) -> interaction.rsocketPath();

  /**
   * The path {@code pathOfMetadata} reads from a request's metadata ({@code /package.Service/Method}
   * for Sluice RPC), or the interaction's {@link #RSOCKET} path when the request has no metadata or
   * the function returns null or throws.
   */
  static RequestPaths fromMetadata(Function<ByteBuf, String> pathOfMetadata) {
    Objects.requireNonNull(pathOfMetadata, "pathOfMetadata");
    return (interaction, metadata) -> {
      if (metadata != null) {
        try {
          String p = pathOfMetadata.apply(metadata.duplicate());
          if (p != null && p.startsWith("/")) {
            return p;
          }
        } catch (RuntimeException e) {
          // Not metadata this function reads: the plain path will do.
        }
      }
      return interaction.rsocketPath();
    };
  }
}
