/**
 * RxJava 3 flavor of Sluice RPC ({@code --sluice_opt=flavor=rxjava}): glue for generated {@code
 * Rx<Service>}, {@code Rx<Service>Client} and {@code Rx<Service>Server} classes, with {@code
 * Single}, {@code Flowable} and {@code Completable}.
 */
package io.sluice.rpc.rxjava;
