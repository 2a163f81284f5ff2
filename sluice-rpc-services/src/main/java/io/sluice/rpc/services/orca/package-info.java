/**
 * ORCA (Open Request Cost Aggregation) backend metrics, so gRPC's weighted round robin and xDS
 * balancers (grpc-java's, grpc-go's) weigh Sluice servers by their load: per call in the {@code
 * endpoint-load-metrics-bin} trailer ({@link io.sluice.rpc.services.orca.OrcaServerInterceptor},
 * with what a handler records in {@link io.sluice.rpc.services.orca.CallMetricRecorder}) and out of
 * band on {@code xds.service.orca.v3.OpenRcaService} ({@link
 * io.sluice.rpc.services.orca.OrcaService}). Both carry what the server measures ({@link
 * io.sluice.rpc.services.orca.ServerLoad}, from the adaptive lease policy) and what the application
 * sets ({@link io.sluice.rpc.services.orca.ServerMetricRecorder}).
 */
package io.sluice.rpc.services.orca;
