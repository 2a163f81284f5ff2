package io.sluice.interop.peer;

import io.rsocket.lease.Lease;
import io.rsocket.lease.LeaseSender;
import java.time.Duration;
import reactor.core.publisher.Flux;

/**
 * Generous lease issuing, used by the server (towards lease-honouring clients) and by the client in
 * {@code --lease} mode (a lease-honouring client's responder must lease the server too).
 *
 * <p>In rsocket-java 1.1.5 a lease is issued by a {@link LeaseSender}, whose {@code send()} flux is
 * subscribed once per connection when the responder side is created; every emitted {@link Lease}
 * becomes one LEASE frame on stream 0 and replaces the previous lease for request accounting.
 */
final class Leases {

  /** Time-to-live of each lease. */
  static final Duration TTL = Duration.ofSeconds(30);

  /** Requests allowed by each lease. */
  static final int REQUESTS = 1_000_000;

  /** A fresh lease is issued this often, well before the previous one expires. */
  static final Duration REFRESH = Duration.ofSeconds(10);

  private Leases() {}

  /**
   * A sender that issues a lease immediately and then every {@link #REFRESH}.
   *
   * <p>Note: rsocket-java 1.1.5 replaces a {@code null} lease metadata with an empty buffer, so its
   * LEASE frames always carry the M flag with zero metadata bytes.
   */
  static LeaseSender generous() {
    return () ->
        Flux.interval(Duration.ZERO, REFRESH).map(tick -> Lease.create(TTL, REQUESTS));
  }
}
