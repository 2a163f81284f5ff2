/**
 * The transport SPI: how the protocol core meets a socket (or any other frame pipe). A transport
 * implements {@link io.sluice.transport.DuplexTransport} per connection and {@link
 * io.sluice.transport.ClientTransport} / {@link io.sluice.transport.ServerTransport} to make them.
 */
package io.sluice.transport;
