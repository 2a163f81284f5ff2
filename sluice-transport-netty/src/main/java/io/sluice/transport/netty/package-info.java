/** TCP transport (epoll or NIO, optional TLS) built on netty. */
package io.sluice.transport.netty;
