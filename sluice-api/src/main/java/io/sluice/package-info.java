/**
 * Sluice's public contracts: {@link io.sluice.Message}, the flavor-neutral {@link
 * io.sluice.Requester} / {@link io.sluice.Responder} / {@link io.sluice.StreamHandle} / {@link
 * io.sluice.StreamListener} SPI that every API flavor adapts, and RSocket {@link
 * io.sluice.ErrorCode error codes}. This module depends on netty-buffer only.
 */
package io.sluice;
