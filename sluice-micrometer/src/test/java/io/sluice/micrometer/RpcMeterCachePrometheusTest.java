package io.sluice.micrometer;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * {@link RpcMeterCacheTest}'s cases on a PrometheusMeterRegistry: whatever path the RPC meters take for
 * that registry, the cache must keep what its filters say and let a dropped registry go.
 */
class RpcMeterCachePrometheusTest extends RpcMeterCacheTest {
  @Override
  MeterRegistry newRegistry() {
    return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  }
}
