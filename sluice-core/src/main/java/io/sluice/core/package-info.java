/**
 * Opening and serving connections ({@link io.sluice.core.Connections}), a server that can be
 * stopped gracefully ({@link io.sluice.core.SluiceServer}), and their settings ({@link
 * io.sluice.core.ConnectionOptions}, {@link io.sluice.core.ClientSetup}).
 */
package io.sluice.core;
