/**
 * The blocking API, meant for virtual threads (Java 21+): every interaction is a plain blocking
 * call, streams are backpressured iterators, and server handlers run on virtual threads. Start with
 * {@link io.sluice.virtualthreads.BlockingClient} and {@link io.sluice.virtualthreads.BlockingServer}.
 */
package io.sluice.virtualthreads;
