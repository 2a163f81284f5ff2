/** Internal: the first-bytes detection and the hand-over to each protocol's handlers. Not an API. */
package io.sluice.transport.multiprotocol.internal;
