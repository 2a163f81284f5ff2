/**
 * {@code ./sluice demo --browser}: a Sluice server on a WebSocket that also serves a page whose
 * script (rsocket-js, bundled from npm when this module is built) runs a request-stream and
 * request-responses against it. Not published.
 */
package io.sluice.browserdemo;
