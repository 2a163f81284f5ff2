/**
 * RSocket 1.0 frames as flyweights over {@link io.netty.buffer.ByteBuf}: validation ({@link
 * io.sluice.internal.frame.FrameValidator}), then static readers and writers ({@link
 * io.sluice.internal.frame.Frames}, {@link io.sluice.internal.frame.Setup}). Internal: no
 * compatibility promise.
 */
package io.sluice.internal.frame;
