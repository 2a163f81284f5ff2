/** Internal pieces of the netty transport. */
package io.sluice.transport.netty.internal;
