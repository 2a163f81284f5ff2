/**
 * The JDK-only API: fire-and-forget and request-response as {@link
 * java.util.concurrent.CompletableFuture}, request-stream and request-channel as {@link
 * java.util.concurrent.Flow.Publisher} (explicit demand through {@code Flow.Subscription.request}).
 * Start with {@link io.sluice.futures.FuturesClient} and {@link io.sluice.futures.FuturesServer}.
 */
package io.sluice.futures;
