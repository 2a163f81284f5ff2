/**
 * The transport test kit: {@link io.sluice.transport.tck.TransportTestKit}, one abstract JUnit 5
 * suite that every Sluice transport runs from its tests (a transport joins by adding one subclass
 * that makes its server and client transports), and {@link io.sluice.transport.tck.CountingAllocator},
 * which tells how many bytes of what a test allocated are still held.
 *
 * <p>This is test code shipped as a library: depend on it with test scope.
 */
package io.sluice.transport.tck;
