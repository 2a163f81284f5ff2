/** Publisher and subscriber types over the core stream handle. Internal. */
package io.sluice.reactor.internal;
