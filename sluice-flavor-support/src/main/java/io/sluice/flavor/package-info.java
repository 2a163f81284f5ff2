/**
 * Building blocks shared by the API flavors (reactor, futures, rxjava, mutiny, gRPC stub,
 * blocking): each turns the core's {@link io.sluice.StreamHandle}/{@link io.sluice.StreamListener} pair into a
 * Reactive Streams publisher or subscriber with one object per stream, no operator chain and no
 * queue. Every publisher and subscriber here speaks both {@code org.reactivestreams} and {@link
 * java.util.concurrent.Flow}, so flavors built on either reuse the same state machines.
 *
 * <p>Meant for flavor modules; applications use a flavor's own API.
 */
package io.sluice.flavor;
