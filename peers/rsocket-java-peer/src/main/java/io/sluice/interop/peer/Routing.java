package io.sluice.interop.peer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.rsocket.Payload;
import io.rsocket.exceptions.ApplicationErrorException;
import io.rsocket.metadata.CompositeMetadata;
import io.rsocket.metadata.CompositeMetadataCodec;
import io.rsocket.metadata.RoutingMetadata;
import io.rsocket.metadata.TaggingMetadataCodec;
import io.rsocket.metadata.WellKnownMimeType;
import io.rsocket.util.DefaultPayload;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The routing contract, built only on rsocket-java's own composite metadata and routing codecs
 * (the way Spring Messaging sends a route), so that Sluice's codec is checked against them.
 *
 * <ul>
 *   <li>A connection whose SETUP metadata MIME type is {@value #COMPOSITE} is routed: each
 *       request-response's metadata is composite metadata whose routing entry names the route.
 *   <li>Route {@value #ECHO_ROUTE} answers data {@code route=<route>;mimes=<entry MIME types, comma
 *       separated, in order>;extra=<content of the first "text/x.sluice-interop" entry>;data=<request
 *       data>} and metadata: composite metadata with a routing entry {@code [<route>, "reply"]} and a
 *       {@value #EXTRA_MIME} entry {@code "from-rsocket-java"}.
 *   <li>Any other route, or none, is an APPLICATION_ERROR {@code no route: <route>}.
 * </ul>
 */
final class Routing {
  static final String COMPOSITE =
      WellKnownMimeType.MESSAGE_RSOCKET_COMPOSITE_METADATA.getString();
  static final String ECHO_ROUTE = "echo.route";
  /** A MIME type with no well-known id, so it travels as a string (length − 1 on the wire). */
  static final String EXTRA_MIME = "text/x.sluice-interop";

  private Routing() {}

  /** What a request's composite metadata said. */
  static final class Parsed {
    String route;
    final List<String> mimes = new ArrayList<>();
    String extra = "";
  }

  static Parsed parse(ByteBuf metadata) {
    Parsed p = new Parsed();
    for (CompositeMetadata.Entry entry : new CompositeMetadata(metadata, false)) {
      String mime = entry.getMimeType();
      p.mimes.add(mime);
      if (WellKnownMimeType.MESSAGE_RSOCKET_ROUTING.getString().equals(mime) && p.route == null) {
        Iterator<String> tags = new RoutingMetadata(entry.getContent()).iterator();
        p.route = tags.hasNext() ? tags.next() : null;
      } else if (EXTRA_MIME.equals(mime) && p.extra.isEmpty()) {
        p.extra = entry.getContent().toString(StandardCharsets.UTF_8);
      }
    }
    return p;
  }

  /** Composite metadata: routing {@code tags}, then an {@value #EXTRA_MIME} entry, then text/plain. */
  static byte[] metadata(List<String> tags, String extra) {
    ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
    CompositeByteBuf composite = alloc.compositeBuffer();
    try {
      ByteBuf routing = TaggingMetadataCodec.createRoutingMetadata(alloc, tags).getContent();
      CompositeMetadataCodec.encodeAndAddMetadata(
          composite, alloc, WellKnownMimeType.MESSAGE_RSOCKET_ROUTING, routing);
      CompositeMetadataCodec.encodeAndAddMetadata(
          composite, alloc, EXTRA_MIME, ByteBufUtil.writeUtf8(alloc, extra));
      return ByteBufUtil.getBytes(composite);
    } finally {
      composite.release();
    }
  }

  /** The answer to a routed request-response (see the class comment). */
  static Payload answer(byte[] metadata, byte[] data) {
    Parsed p = parse(io.netty.buffer.Unpooled.wrappedBuffer(metadata));
    if (!ECHO_ROUTE.equals(p.route)) {
      throw new ApplicationErrorException("no route: " + p.route);
    }
    String text =
        "route=" + p.route + ";mimes=" + String.join(",", p.mimes) + ";extra=" + p.extra
            + ";data=" + new String(data, StandardCharsets.UTF_8);
    return DefaultPayload.create(
        text.getBytes(StandardCharsets.UTF_8), metadata(List.of(p.route, "reply"), "from-rsocket-java"));
  }
}
