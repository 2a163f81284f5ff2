/**
 * Futures flavor of Sluice RPC ({@code --sluice_opt=flavor=futures}): glue for generated {@code
 * Futures<Service>}, {@code Futures<Service>Client} and {@code Futures<Service>Server} classes,
 * with {@link java.util.concurrent.CompletableFuture} for single values and {@link
 * java.util.concurrent.Flow.Publisher} for streams.
 */
package io.sluice.rpc.futures;
