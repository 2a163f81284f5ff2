package io.sluice.spring.boot;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * {@code sluice.server.*}: the Sluice server the auto-configuration starts, serving every generated
 * Sluice service bean of the application. Unset limits keep the library's defaults
 * (docs/limits.md).
 */
@ConfigurationProperties("sluice.server")
public class SluiceServerProperties {

  /** The wire a server speaks. */
  public enum Transport {
    /** RSocket over TCP. */
    TCP,
    /** RSocket over a unix domain socket (sluice.server.path). */
    UNIX,
    /** RSocket over WebSocket (sluice.server.websocket-path). */
    WEBSOCKET,
    /** RSocket over the HTTP/2 stream mapping. */
    H2,
    /** gRPC over HTTP/2 (plus gRPC-Web and HTTP/JSON): stock gRPC clients call the services. */
    GRPC,
    /** Every protocol on one port: RSocket over TCP, WebSocket and HTTP/2, and gRPC. */
    ONE_PORT
  }

  /** What a server grants clients that ask for leases. */
  public enum LeasePolicyKind {
    /** Unlimited leases. */
    UNLIMITED,
    /** sluice.server.lease.requests per sluice.server.lease.ttl. */
    FIXED,
    /** sluice-lease's adaptive policy (latency-based). */
    ADAPTIVE
  }

  /** Whether to start a Sluice server. */
  private boolean enabled = true;

  /** The wire: tcp, unix, websocket, h2, grpc or one-port. */
  private Transport transport = Transport.TCP;

  /** The address to listen on (every transport but unix). */
  private String host = "127.0.0.1";

  /** The port to listen on; 0 picks a free one (local.sluice.server.port then tells it). */
  private int port = 7878;

  /** The socket file of the unix transport. */
  private Path path;

  /** The HTTP path of the websocket transport (and of WebSocket on the one-port server). */
  private String websocketPath = "/rsocket";

  /** Whether to serve gRPC server reflection (needs sluice-rpc-services on the class path). */
  private boolean reflection = false;

  /**
   * How long a graceful shutdown lets calls in flight finish; by default
   * spring.lifecycle.timeout-per-shutdown-phase (30 s). With server.shutdown=immediate there is no
   * grace.
   */
  private Duration shutdownGrace;

  private final Tls tls = new Tls();
  private final Limits limits = new Limits();
  private final Lease lease = new Lease();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public Transport getTransport() {
    return transport;
  }

  public void setTransport(Transport transport) {
    this.transport = transport;
  }

  public String getHost() {
    return host;
  }

  public void setHost(String host) {
    this.host = host;
  }

  public int getPort() {
    return port;
  }

  public void setPort(int port) {
    this.port = port;
  }

  public Path getPath() {
    return path;
  }

  public void setPath(Path path) {
    this.path = path;
  }

  public String getWebsocketPath() {
    return websocketPath;
  }

  public void setWebsocketPath(String websocketPath) {
    this.websocketPath = websocketPath;
  }

  public boolean isReflection() {
    return reflection;
  }

  public void setReflection(boolean reflection) {
    this.reflection = reflection;
  }

  public Duration getShutdownGrace() {
    return shutdownGrace;
  }

  public void setShutdownGrace(Duration shutdownGrace) {
    this.shutdownGrace = shutdownGrace;
  }

  public Tls getTls() {
    return tls;
  }

  public Limits getLimits() {
    return limits;
  }

  public Lease getLease() {
    return lease;
  }

  /** {@code sluice.server.tls.*}: TLS from PEM files. */
  public static class Tls {
    /** Whether the server speaks TLS (certificate and private-key are then required). */
    private boolean enabled;

    /** The PEM file of the server's certificate chain. */
    private Path certificate;

    /** The PEM file of the server's private key (PKCS#8). */
    private Path privateKey;

    /** A PEM file of CA certificates: when set, clients must present a certificate they signed. */
    private Path clientCa;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Path getCertificate() {
      return certificate;
    }

    public void setCertificate(Path certificate) {
      this.certificate = certificate;
    }

    public Path getPrivateKey() {
      return privateKey;
    }

    public void setPrivateKey(Path privateKey) {
      this.privateKey = privateKey;
    }

    public Path getClientCa() {
      return clientCa;
    }

    public void setClientCa(Path clientCa) {
      this.clientCa = clientCa;
    }
  }

  /** {@code sluice.server.limits.*}: the main limits; unset ones keep the library's default. */
  public static class Limits {
    /** Largest frame a peer may send (RSocket transports). */
    private DataSize maxFrameSize;

    /** Largest message after reassembling fragments (RSocket transports). */
    private DataSize maxReassembledSize;

    /** Concurrent streams per connection (RSocket transports). */
    private Integer maxActiveStreams;

    /** Bytes queued for a slow reader before the connection pushes back (RSocket transports). */
    private DataSize maxQueuedOutboundBytes;

    /** Time a new connection has to send its SETUP (RSocket transports). */
    private Duration setupTimeout;

    /** Keepalive interval the server asks for (RSocket transports; with keepalive-max-lifetime). */
    private Duration keepaliveInterval;

    /** Silence after which a connection is closed (RSocket transports; with keepalive-interval). */
    private Duration keepaliveMaxLifetime;

    /** Open connections at once (grpc and one-port). */
    private Integer maxConnections;

    /** Concurrent calls per HTTP/2 connection (grpc and one-port). */
    private Integer maxConcurrentStreams;

    /** Largest request message of a gRPC call (grpc and one-port). */
    private DataSize maxInboundMessageSize;

    public DataSize getMaxFrameSize() {
      return maxFrameSize;
    }

    public void setMaxFrameSize(DataSize maxFrameSize) {
      this.maxFrameSize = maxFrameSize;
    }

    public DataSize getMaxReassembledSize() {
      return maxReassembledSize;
    }

    public void setMaxReassembledSize(DataSize maxReassembledSize) {
      this.maxReassembledSize = maxReassembledSize;
    }

    public Integer getMaxActiveStreams() {
      return maxActiveStreams;
    }

    public void setMaxActiveStreams(Integer maxActiveStreams) {
      this.maxActiveStreams = maxActiveStreams;
    }

    public DataSize getMaxQueuedOutboundBytes() {
      return maxQueuedOutboundBytes;
    }

    public void setMaxQueuedOutboundBytes(DataSize maxQueuedOutboundBytes) {
      this.maxQueuedOutboundBytes = maxQueuedOutboundBytes;
    }

    public Duration getSetupTimeout() {
      return setupTimeout;
    }

    public void setSetupTimeout(Duration setupTimeout) {
      this.setupTimeout = setupTimeout;
    }

    public Duration getKeepaliveInterval() {
      return keepaliveInterval;
    }

    public void setKeepaliveInterval(Duration keepaliveInterval) {
      this.keepaliveInterval = keepaliveInterval;
    }

    public Duration getKeepaliveMaxLifetime() {
      return keepaliveMaxLifetime;
    }

    public void setKeepaliveMaxLifetime(Duration keepaliveMaxLifetime) {
      this.keepaliveMaxLifetime = keepaliveMaxLifetime;
    }

    public Integer getMaxConnections() {
      return maxConnections;
    }

    public void setMaxConnections(Integer maxConnections) {
      this.maxConnections = maxConnections;
    }

    public Integer getMaxConcurrentStreams() {
      return maxConcurrentStreams;
    }

    public void setMaxConcurrentStreams(Integer maxConcurrentStreams) {
      this.maxConcurrentStreams = maxConcurrentStreams;
    }

    public DataSize getMaxInboundMessageSize() {
      return maxInboundMessageSize;
    }

    public void setMaxInboundMessageSize(DataSize maxInboundMessageSize) {
      this.maxInboundMessageSize = maxInboundMessageSize;
    }
  }

  /** {@code sluice.server.lease.*}: RSocket leasing (not on h2 and grpc, which carry none). */
  public static class Lease {
    /** Whether clients that ask for leasing are served (and granted what policy says). */
    private boolean enabled = true;

    /** unlimited, fixed (requests per ttl) or adaptive. */
    private LeasePolicyKind policy = LeasePolicyKind.UNLIMITED;

    /** How long a fixed lease lasts. */
    private Duration ttl = Duration.ofSeconds(1);

    /** Requests a fixed lease allows. */
    private int requests = 1000;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public LeasePolicyKind getPolicy() {
      return policy;
    }

    public void setPolicy(LeasePolicyKind policy) {
      this.policy = policy;
    }

    public Duration getTtl() {
      return ttl;
    }

    public void setTtl(Duration ttl) {
      this.ttl = ttl;
    }

    public int getRequests() {
      return requests;
    }

    public void setRequests(int requests) {
      this.requests = requests;
    }
  }
}
