/** The protocol engine. Internal: no compatibility promise; use io.sluice.core. */
package io.sluice.internal;
