package io.sluice.opentelemetry;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.sluice.balancer.AttemptObserver;
import java.net.InetSocketAddress;

/** {@link SluiceTracing#balancerAttempts()}: a span per balancer attempt under the call's span. */
final class BalancerAttempts {
  static final AttributeKey<Long> PREVIOUS_ATTEMPTS = AttributeKey.longKey("previous-rpc-attempts");
  static final AttributeKey<String> SERVER = AttributeKey.stringKey("server.address");
  static final AttributeKey<Boolean> RETRIED = AttributeKey.booleanKey("retried");

  private BalancerAttempts() {}

  static AttemptObserver observer(Tracer tracer) {
    return () -> {
      Context parent = Context.current();
      if (!Span.fromContext(parent).getSpanContext().isValid()) {
        return null; // no call span to hang attempts under
      }
      return (previous, server) -> {
        Span span = tracer.spanBuilder("Attempt")
            .setParent(parent)
            .setAttribute(PREVIOUS_ATTEMPTS, (long) previous)
            .setAttribute(SERVER, server instanceof InetSocketAddress a ? a.getHostString() + ":" + a.getPort() : String.valueOf(server))
            .startSpan();
        return (error, retried) -> {
          if (error != null) {
            span.setStatus(StatusCode.ERROR, String.valueOf(error.getMessage()));
            span.setAttribute(RETRIED, retried);
          }
          span.end();
        };
      };
    };
  }
}
