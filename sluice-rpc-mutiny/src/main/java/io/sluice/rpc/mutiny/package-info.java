/**
 * Mutiny flavor of Sluice RPC ({@code --sluice_opt=flavor=mutiny}): glue for generated {@code
 * Mutiny<Service>}, {@code Mutiny<Service>Client} and {@code Mutiny<Service>Server} classes, with
 * {@code Uni} and {@code Multi}.
 */
package io.sluice.rpc.mutiny;
