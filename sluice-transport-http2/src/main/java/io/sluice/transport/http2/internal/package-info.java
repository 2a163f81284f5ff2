/** Internal: the HTTP/2 connection handler, the stream mapping and its wire constants. Not an API. */
package io.sluice.transport.http2.internal;
