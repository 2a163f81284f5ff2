/**
 * Blocking flavor of Sluice RPC ({@code --sluice_opt=flavor=blocking}, Java 21+): glue for
 * generated {@code Blocking<Service>}, {@code Blocking<Service>Client} and {@code
 * Blocking<Service>Server} classes, with plain return values and {@link java.util.stream.Stream}s,
 * every server call on its own virtual thread.
 */
package io.sluice.rpc.blocking;
