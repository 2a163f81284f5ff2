/**
 * OpenTelemetry tracing for Sluice RPC: {@link io.sluice.opentelemetry.SluiceTracing} makes a
 * server and a client interceptor that record one span per call and carry the W3C trace context
 * in the call's headers, over RSocket and gRPC alike.
 */
package io.sluice.opentelemetry;
