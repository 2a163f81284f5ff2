/** Internal pieces of the WebSocket transport: the upgrade handlers and the frame codec. */
package io.sluice.transport.websocket.internal;
