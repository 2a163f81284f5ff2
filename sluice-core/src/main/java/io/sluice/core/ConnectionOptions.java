package io.sluice.core;

import io.sluice.lease.LeasePolicy;
import io.sluice.lease.RequestStats;
import java.time.Duration;
import java.util.Objects;

/**
 * Protocol settings and resource limits of a connection. Immutable; build with {@link #builder()}.
 * The defaults are meant to survive hostile peers without tuning: every buffer and table has a
 * bound, and a peer that breaks one gets the RSocket error code for it and is cut off.
 */
public final class ConnectionOptions {
  /** rsocket-java's smallest allowed MTU; smaller fragments would make little progress. */
  public static final int MIN_MTU = 64;

  private final Duration keepAliveInterval;
  private final Duration keepAliveMaxLifetime;
  private final int mtu;
  private final int maxFrameSize;
  private final int maxReassembledSize;
  private final int maxActiveStreams;
  private final int maxQueuedOutboundBytes;
  private final Duration setupTimeout;
  private final Duration drainTimeout;
  private final int outboundWindow;
  private final boolean lease;
  private final int leaseTtlMillis;
  private final int leaseRequests;
  private final LeasePolicy leasePolicy;
  private final RequestStats requestStats;
  private final ConnectionObserver observer;
  private final int maxReassemblyBytes;
  private final int maxFragmentsPerMessage;
  private final Duration writeStallTimeout;
  private final int maxKeepAliveDataSize;
  private final int maxKeepAlivesPerSecond;
  private final int maxMetadataPushSize;
  private final int maxMetadataPushesPerSecond;
  private final int maxRequestNPerSecond;
  private final int maxCancelsPerSecond;
  private final int maxIgnoredFramesPerSecond;
  private final int maxStreamErrorsPerSecond;
  private final Duration minPeerKeepAliveInterval;
  private final Duration maxPeerKeepAliveLifetime;
  private final Resumption resumption;

  private ConnectionOptions(Builder b) {
    this.keepAliveInterval = b.keepAliveInterval;
    this.keepAliveMaxLifetime = b.keepAliveMaxLifetime;
    this.mtu = b.mtu;
    this.maxFrameSize = b.maxFrameSize;
    this.maxReassembledSize = b.maxReassembledSize;
    this.maxActiveStreams = b.maxActiveStreams;
    this.maxQueuedOutboundBytes = b.maxQueuedOutboundBytes;
    this.setupTimeout = b.setupTimeout;
    this.drainTimeout = b.drainTimeout;
    this.outboundWindow = b.outboundWindow;
    this.lease = b.lease;
    this.leaseTtlMillis = b.leaseTtlMillis;
    this.leaseRequests = b.leaseRequests;
    this.leasePolicy = b.leasePolicy;
    this.requestStats = b.requestStats;
    this.observer = b.observer;
    this.maxReassemblyBytes = b.maxReassemblyBytes;
    this.maxFragmentsPerMessage = b.maxFragmentsPerMessage;
    this.writeStallTimeout = b.writeStallTimeout;
    this.maxKeepAliveDataSize = b.maxKeepAliveDataSize;
    this.maxKeepAlivesPerSecond = b.maxKeepAlivesPerSecond;
    this.maxMetadataPushSize = b.maxMetadataPushSize;
    this.maxMetadataPushesPerSecond = b.maxMetadataPushesPerSecond;
    this.maxRequestNPerSecond = b.maxRequestNPerSecond;
    this.maxCancelsPerSecond = b.maxCancelsPerSecond;
    this.maxIgnoredFramesPerSecond = b.maxIgnoredFramesPerSecond;
    this.maxStreamErrorsPerSecond = b.maxStreamErrorsPerSecond;
    this.minPeerKeepAliveInterval = b.minPeerKeepAliveInterval;
    this.maxPeerKeepAliveLifetime = b.maxPeerKeepAliveLifetime;
    this.resumption = b.resumption;
  }

  /**
   * A server's offer of session resumption (RESUME), or null (the default): SETUPs with the R flag
   * are then refused with REJECTED_SETUP and RESUMEs with REJECTED_RESUME. Clients ask for it
   * with {@link ClientSetup#resumable(Resumption)} instead.
   */
  public Resumption resumption() {
    return resumption;
  }

  public static Builder builder() {
    return new Builder();
  }

  public static ConnectionOptions defaults() {
    return new Builder().build();
  }

  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Client: how often KEEPALIVE is sent. Server: unused (the client's SETUP decides). */
  public Duration keepAliveInterval() {
    return keepAliveInterval;
  }

  /** How long the peer may stay silent before the connection is closed. */
  public Duration keepAliveMaxLifetime() {
    return keepAliveMaxLifetime;
  }

  /** Largest outbound frame including its u24 length prefix; larger messages are fragmented. */
  public int mtu() {
    return mtu;
  }

  /** Largest inbound frame (without prefix); larger is a CONNECTION_ERROR. */
  public int maxFrameSize() {
    return maxFrameSize;
  }

  /** Largest inbound message rebuilt from fragments; larger fails the stream with INVALID. */
  public int maxReassembledSize() {
    return maxReassembledSize;
  }

  /** Most live streams per connection in each direction; more are REJECTED. */
  public int maxActiveStreams() {
    return maxActiveStreams;
  }

  /**
   * Outbound bytes queued in the transport above which producers are paused (the transport's high
   * water mark). Reading stops too, but only once more than this much output that flow control
   * does not bound (errors, rejections, keepalive echoes, request-response answers) piles up while
   * unwritable: a peer that floods requests and never reads is paused, while two peers streaming
   * both ways never wait on each other.
   */
  public int maxQueuedOutboundBytes() {
    return maxQueuedOutboundBytes;
  }

  /** Server: time allowed between accept and a valid SETUP. */
  public Duration setupTimeout() {
    return setupTimeout;
  }

  /** Graceful close: how long live streams may take to finish before the connection is cut. */
  public Duration drainTimeout() {
    return drainTimeout;
  }

  /**
   * Most outbound messages a stream's producer is asked for at once, however much the peer
   * requested: demand is a permission, never a reason to buffer.
   */
  public int outboundWindow() {
    return outboundWindow;
  }

  /**
   * Client: ask for leasing in SETUP (then requests wait for the server's first LEASE). A server
   * grants leases to every client that asks, whatever this says, from {@link #leasePolicy()}.
   */
  public boolean lease() {
    return lease;
  }

  /** Time-to-live of each LEASE this side grants. */
  public int leaseTtlMillis() {
    return leaseTtlMillis;
  }

  /** Requests allowed by each LEASE this side grants. */
  public int leaseRequests() {
    return leaseRequests;
  }

  /**
   * What this side grants a peer that asked for leasing: the policy set with {@link
   * Builder#leasePolicy}, else {@link LeasePolicy#fixed} of {@link #leaseTtlMillis()} and {@link
   * #leaseRequests()}.
   */
  public LeasePolicy leasePolicy() {
    return leasePolicy != null
        ? leasePolicy
        : LeasePolicy.fixed(Duration.ofMillis(leaseTtlMillis), leaseRequests);
  }

  /** Told of every request the peer starts on this side, or null (the default). */
  public RequestStats requestStats() {
    return requestStats;
  }

  /**
   * Told of every connection made with these options and given its counts (frames, bytes,
   * streams, errors, limits), or null (the default: nothing is counted). sluice-micrometer's
   * binding is one.
   */
  public ConnectionObserver observer() {
    return observer;
  }

  /**
   * Bytes of all partly reassembled inbound messages of the connection together; more is a
   * CONNECTION_ERROR (many streams each just below {@link #maxReassembledSize()} would otherwise
   * add up).
   */
  public int maxReassemblyBytes() {
    return maxReassemblyBytes;
  }

  /** Most fragments one inbound message may arrive in; more fails the stream with INVALID. */
  public int maxFragmentsPerMessage() {
    return maxFragmentsPerMessage;
  }

  /**
   * How long the transport may stay unwritable (the peer does not read what we queued) before the
   * connection is closed with CONNECTION_ERROR.
   */
  public Duration writeStallTimeout() {
    return writeStallTimeout;
  }

  /** Largest data of an inbound KEEPALIVE; larger is a CONNECTION_ERROR. */
  public int maxKeepAliveDataSize() {
    return maxKeepAliveDataSize;
  }

  /** Most inbound KEEPALIVE frames per second; more is a CONNECTION_ERROR. */
  public int maxKeepAlivesPerSecond() {
    return maxKeepAlivesPerSecond;
  }

  /** Largest inbound METADATA_PUSH metadata; larger is a CONNECTION_ERROR. */
  public int maxMetadataPushSize() {
    return maxMetadataPushSize;
  }

  /** Most inbound METADATA_PUSH frames per second; more is a CONNECTION_ERROR. */
  public int maxMetadataPushesPerSecond() {
    return maxMetadataPushesPerSecond;
  }

  /** Most inbound REQUEST_N frames per second (all streams together); more is a CONNECTION_ERROR. */
  public int maxRequestNPerSecond() {
    return maxRequestNPerSecond;
  }

  /**
   * Most inbound CANCEL frames per second (the rapid-reset pattern: request, cancel, repeat); more
   * is a CONNECTION_ERROR.
   */
  public int maxCancelsPerSecond() {
    return maxCancelsPerSecond;
  }

  /**
   * Most inbound frames per second that the spec says to ignore or that break a stream-level rule
   * (frames for unknown stream ids, requests on live ids, frames on stream 0 that belong to a
   * stream, unknown types with the I flag, empty or excess fragments, ...); more is a
   * CONNECTION_ERROR.
   */
  public int maxIgnoredFramesPerSecond() {
    return maxIgnoredFramesPerSecond;
  }

  /**
   * Most inbound stream ERROR frames per second (all streams together; a peer that opens streams
   * and ends them with ERROR at once, the rapid-reset pattern again); more is a CONNECTION_ERROR.
   */
  public int maxStreamErrorsPerSecond() {
    return maxStreamErrorsPerSecond;
  }

  /**
   * A server checks a client's liveness once per keepalive interval its SETUP asks for, but never
   * more often than this: an interval of 1 ms would otherwise mean a timer per millisecond per
   * connection. The lifetime the client asked for still applies, checked at this pace.
   */
  public Duration minPeerKeepAliveInterval() {
    return minPeerKeepAliveInterval;
  }

  /**
   * The longest keepalive max lifetime a server takes from a client's SETUP: a peer silent for
   * longer is cut off whatever it asked for (2^31-1 ms, about 24 days, would turn liveness off).
   * The server's check period is at most this long too.
   */
  public Duration maxPeerKeepAliveLifetime() {
    return maxPeerKeepAliveLifetime;
  }

  /** Builder for {@link ConnectionOptions}; every setter checks its argument. */
  public static final class Builder {
    private Duration keepAliveInterval = Duration.ofSeconds(20);
    private Duration keepAliveMaxLifetime = Duration.ofSeconds(90);
    private int mtu = 64 * 1024;
    private int maxFrameSize = 1024 * 1024;
    private int maxReassembledSize = 4 * 1024 * 1024;
    private int maxActiveStreams = 8192;
    private int maxQueuedOutboundBytes = 4 * 1024 * 1024;
    private Duration setupTimeout = Duration.ofSeconds(10);
    private Duration drainTimeout = Duration.ofSeconds(30);
    private int outboundWindow = 256;
    private boolean lease;
    private int leaseTtlMillis = 30_000;
    private int leaseRequests = Integer.MAX_VALUE;
    private LeasePolicy leasePolicy;
    private RequestStats requestStats;
    private ConnectionObserver observer;
    private int maxReassemblyBytes = 8 * 1024 * 1024;
    private int maxFragmentsPerMessage = 8192;
    private Duration writeStallTimeout = Duration.ofSeconds(30);
    private int maxKeepAliveDataSize = 1024;
    private int maxKeepAlivesPerSecond = 16;
    private int maxMetadataPushSize = 64 * 1024;
    private int maxMetadataPushesPerSecond = 1000;
    private int maxRequestNPerSecond = 100_000;
    private int maxCancelsPerSecond = 10_000;
    private int maxIgnoredFramesPerSecond = 10_000;
    private int maxStreamErrorsPerSecond = 10_000;
    private Duration minPeerKeepAliveInterval = Duration.ofSeconds(1);
    private Duration maxPeerKeepAliveLifetime = Duration.ofMinutes(10);
    private Resumption resumption;

    private Builder() {}

    private Builder(ConnectionOptions o) {
      keepAliveInterval = o.keepAliveInterval;
      keepAliveMaxLifetime = o.keepAliveMaxLifetime;
      mtu = o.mtu;
      maxFrameSize = o.maxFrameSize;
      maxReassembledSize = o.maxReassembledSize;
      maxActiveStreams = o.maxActiveStreams;
      maxQueuedOutboundBytes = o.maxQueuedOutboundBytes;
      setupTimeout = o.setupTimeout;
      drainTimeout = o.drainTimeout;
      outboundWindow = o.outboundWindow;
      lease = o.lease;
      leaseTtlMillis = o.leaseTtlMillis;
      leaseRequests = o.leaseRequests;
      leasePolicy = o.leasePolicy;
      requestStats = o.requestStats;
      observer = o.observer;
      maxReassemblyBytes = o.maxReassemblyBytes;
      maxFragmentsPerMessage = o.maxFragmentsPerMessage;
      writeStallTimeout = o.writeStallTimeout;
      maxKeepAliveDataSize = o.maxKeepAliveDataSize;
      maxKeepAlivesPerSecond = o.maxKeepAlivesPerSecond;
      maxMetadataPushSize = o.maxMetadataPushSize;
      maxMetadataPushesPerSecond = o.maxMetadataPushesPerSecond;
      maxRequestNPerSecond = o.maxRequestNPerSecond;
      maxCancelsPerSecond = o.maxCancelsPerSecond;
      maxIgnoredFramesPerSecond = o.maxIgnoredFramesPerSecond;
      maxStreamErrorsPerSecond = o.maxStreamErrorsPerSecond;
      minPeerKeepAliveInterval = o.minPeerKeepAliveInterval;
      maxPeerKeepAliveLifetime = o.maxPeerKeepAliveLifetime;
      resumption = o.resumption;
    }

    /** See {@link ConnectionOptions#resumption()}; null turns it off. */
    public Builder resumption(Resumption resumption) {
      this.resumption = resumption;
      return this;
    }

    public Builder keepAlive(Duration interval, Duration maxLifetime) {
      this.keepAliveInterval = positiveMillis(interval, "keepAlive interval");
      this.keepAliveMaxLifetime = positiveMillis(maxLifetime, "keepAlive max lifetime");
      return this;
    }

    /** 0 disables fragmentation; otherwise at least {@link #MIN_MTU} bytes. */
    public Builder mtu(int mtu) {
      if (mtu != 0 && mtu < MIN_MTU) {
        throw new IllegalArgumentException("mtu must be 0 or at least " + MIN_MTU + ", got " + mtu);
      }
      if (mtu > 0xFFFFFF + 3) {
        throw new IllegalArgumentException("mtu larger than the largest RSocket frame: " + mtu);
      }
      this.mtu = mtu;
      return this;
    }

    public Builder maxFrameSize(int bytes) {
      if (bytes < 64 || bytes > 0xFFFFFF) {
        throw new IllegalArgumentException("maxFrameSize must be in [64, 16777215], got " + bytes);
      }
      this.maxFrameSize = bytes;
      return this;
    }

    public Builder maxReassembledSize(int bytes) {
      this.maxReassembledSize = positive(bytes, "maxReassembledSize");
      return this;
    }

    public Builder maxActiveStreams(int streams) {
      this.maxActiveStreams = positive(streams, "maxActiveStreams");
      return this;
    }

    public Builder maxQueuedOutboundBytes(int bytes) {
      this.maxQueuedOutboundBytes = positive(bytes, "maxQueuedOutboundBytes");
      return this;
    }

    public Builder setupTimeout(Duration timeout) {
      this.setupTimeout = positiveMillis(timeout, "setupTimeout");
      return this;
    }

    public Builder drainTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "drainTimeout");
      if (timeout.isNegative()) {
        throw new IllegalArgumentException("drainTimeout must not be negative");
      }
      this.drainTimeout = timeout;
      return this;
    }

    public Builder outboundWindow(int messages) {
      this.outboundWindow = positive(messages, "outboundWindow");
      return this;
    }

    public Builder lease(boolean lease) {
      this.lease = lease;
      return this;
    }

    public Builder leaseGrant(int ttlMillis, int requests) {
      this.leaseTtlMillis = positive(ttlMillis, "lease ttl");
      this.leaseRequests = positive(requests, "lease requests");
      this.leasePolicy = null;
      return this;
    }

    /**
     * The policy that decides the leases this side grants (implies {@link #lease(boolean)
     * lease(true)} on a server: clients that ask for leasing are accepted). Replaces {@link
     * #leaseGrant}.
     */
    public Builder leasePolicy(LeasePolicy policy) {
      this.leasePolicy = Objects.requireNonNull(policy, "policy");
      this.lease = true;
      return this;
    }

    /** See {@link ConnectionOptions#requestStats()}; null turns it off. */
    public Builder requestStats(RequestStats stats) {
      this.requestStats = stats;
      return this;
    }

    /** See {@link ConnectionOptions#observer()}; null turns it off. */
    public Builder observer(ConnectionObserver observer) {
      this.observer = observer;
      return this;
    }

    /** See {@link ConnectionOptions#maxReassemblyBytes()}. */
    public Builder maxReassemblyBytes(int bytes) {
      this.maxReassemblyBytes = positive(bytes, "maxReassemblyBytes");
      return this;
    }

    /** See {@link ConnectionOptions#maxFragmentsPerMessage()}. */
    public Builder maxFragmentsPerMessage(int fragments) {
      if (fragments < 2) {
        throw new IllegalArgumentException("maxFragmentsPerMessage must be at least 2, got " + fragments);
      }
      this.maxFragmentsPerMessage = fragments;
      return this;
    }

    /** See {@link ConnectionOptions#writeStallTimeout()}. */
    public Builder writeStallTimeout(Duration timeout) {
      this.writeStallTimeout = positiveMillis(timeout, "writeStallTimeout");
      return this;
    }

    /** See {@link ConnectionOptions#maxKeepAliveDataSize()}; 0 allows only empty data. */
    public Builder maxKeepAliveDataSize(int bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("maxKeepAliveDataSize must not be negative, got " + bytes);
      }
      this.maxKeepAliveDataSize = bytes;
      return this;
    }

    /** See {@link ConnectionOptions#maxKeepAlivesPerSecond()}. */
    public Builder maxKeepAlivesPerSecond(int frames) {
      this.maxKeepAlivesPerSecond = positive(frames, "maxKeepAlivesPerSecond");
      return this;
    }

    /** See {@link ConnectionOptions#maxMetadataPushSize()}. */
    public Builder maxMetadataPushSize(int bytes) {
      this.maxMetadataPushSize = positive(bytes, "maxMetadataPushSize");
      return this;
    }

    /** See {@link ConnectionOptions#maxMetadataPushesPerSecond()}. */
    public Builder maxMetadataPushesPerSecond(int frames) {
      this.maxMetadataPushesPerSecond = positive(frames, "maxMetadataPushesPerSecond");
      return this;
    }

    /** See {@link ConnectionOptions#maxRequestNPerSecond()}. */
    public Builder maxRequestNPerSecond(int frames) {
      this.maxRequestNPerSecond = positive(frames, "maxRequestNPerSecond");
      return this;
    }

    /** See {@link ConnectionOptions#maxCancelsPerSecond()}. */
    public Builder maxCancelsPerSecond(int frames) {
      this.maxCancelsPerSecond = positive(frames, "maxCancelsPerSecond");
      return this;
    }

    /** See {@link ConnectionOptions#maxIgnoredFramesPerSecond()}. */
    public Builder maxIgnoredFramesPerSecond(int frames) {
      this.maxIgnoredFramesPerSecond = positive(frames, "maxIgnoredFramesPerSecond");
      return this;
    }

    /** See {@link ConnectionOptions#maxStreamErrorsPerSecond()}. */
    public Builder maxStreamErrorsPerSecond(int frames) {
      this.maxStreamErrorsPerSecond = positive(frames, "maxStreamErrorsPerSecond");
      return this;
    }

    /** See {@link ConnectionOptions#minPeerKeepAliveInterval()}. */
    public Builder minPeerKeepAliveInterval(Duration interval) {
      this.minPeerKeepAliveInterval = positiveMillis(interval, "minPeerKeepAliveInterval");
      return this;
    }

    /** See {@link ConnectionOptions#maxPeerKeepAliveLifetime()}. */
    public Builder maxPeerKeepAliveLifetime(Duration lifetime) {
      this.maxPeerKeepAliveLifetime = positiveMillis(lifetime, "maxPeerKeepAliveLifetime");
      return this;
    }

    public ConnectionOptions build() {
      if (keepAliveMaxLifetime.compareTo(keepAliveInterval) < 0) {
        throw new IllegalArgumentException("keepAlive max lifetime is shorter than its interval");
      }
      return new ConnectionOptions(this);
    }

    private static int positive(int value, String what) {
      if (value <= 0) {
        throw new IllegalArgumentException(what + " must be positive, got " + value);
      }
      return value;
    }

    private static Duration positiveMillis(Duration d, String what) {
      Objects.requireNonNull(d, what);
      if (d.toMillis() <= 0 || d.toMillis() > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(what + " must be in [1 ms, 2^31-1 ms], got " + d);
      }
      return d;
    }
  }
}
