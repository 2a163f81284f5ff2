/**
 * Test support for Sluice modules: {@link io.sluice.test.LeakCheckExtension} (auto-registered,
 * fails a test class on any netty buffer leak), {@link io.sluice.test.FrameBuilder} (RSocket 1.0
 * frames written byte by byte from the spec, independent of sluice-core), {@link
 * io.sluice.test.RawPeer} and {@link io.sluice.test.WireFrame} (the other end of a connection,
 * played frame by frame, for every wire test; sluice-transport-local's test jar has it on that
 * transport), {@link io.sluice.test.Hex}, {@link io.sluice.test.TestMessages} and {@link
 * io.sluice.test.UntrackedHeapAllocator}.
 *
 * <p>This jar carries {@code junit-platform.properties} (turning on JUnit extension
 * auto-detection); modules that depend on it must not add their own.
 */
package io.sluice.test;
