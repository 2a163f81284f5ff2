/**
 * Codecs for the well-known RSocket metadata extensions (rsocket/rsocket {@code Extensions/}):
 * {@link io.sluice.metadata.CompositeMetadata} ({@code message/x.rsocket.composite-metadata.v0}),
 * {@link io.sluice.metadata.RoutingMetadata} ({@code message/x.rsocket.routing.v0}) and the table
 * of {@link io.sluice.metadata.WellKnownMimeType well-known MIME type ids}.
 *
 * <p>All codecs are flyweights over netty {@link io.netty.buffer.ByteBuf}s: encoders append to a
 * buffer the caller owns, readers walk a buffer without moving its indexes or retaining it and
 * without allocating per entry unless a {@code String} or slice is asked for. Malformed input is
 * reported with a {@link io.sluice.metadata.MalformedMetadataException} that says what is wrong and
 * where. Nothing here is thread-safe; readers are meant to be reused on one thread.
 */
package io.sluice.metadata;
