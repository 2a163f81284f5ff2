/**
 * TCP and unix domain socket transports (epoll, io_uring or NIO: {@link
 * io.sluice.transport.netty.IoMode}; optional TLS) built on netty.
 */
package io.sluice.transport.netty;
