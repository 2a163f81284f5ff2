/**
 * Opening and serving connections ({@link io.sluice.core.Connections}) and their settings ({@link
 * io.sluice.core.ConnectionOptions}, {@link io.sluice.core.ClientSetup}).
 */
package io.sluice.core;
