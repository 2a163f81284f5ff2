package io.sluice.spring.boot;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code sluice.client.<name>.*}: one generated client stub bean per name, over a {@link
 * io.sluice.balancer.Balancer} of the address or addresses given.
 */
@ConfigurationProperties("sluice")
public class SluiceClientProperties {

  /** The wire a client speaks. */
  public enum Transport {
    /** RSocket over TCP. */
    TCP,
    /** RSocket over a unix domain socket (path). */
    UNIX,
    /** RSocket over WebSocket (websocket-path). */
    WEBSOCKET,
    /** RSocket over the HTTP/2 stream mapping. */
    H2,
    /** gRPC over HTTP/2: any gRPC server, Sluice's or not. */
    GRPC
  }

  /** Clients by name: each becomes a stub bean of that name. */
  private Map<String, Client> client = new LinkedHashMap<>();

  public Map<String, Client> getClient() {
    return client;
  }

  public void setClient(Map<String, Client> client) {
    this.client = client;
  }

  /** One client. */
  public static class Client {
    /**
     * The generated client class to make (e.g. com.example.ReactorGreeterClient); any flavor's
     * generated client, as each has a constructor taking an io.sluice.Requester.
     */
    private Class<?> stub;

    /** The server, as host:port ([v6]:port for IPv6). */
    private String address;

    /** Several servers as host:port; calls are spread over them by the balancer. */
    private List<String> addresses = new ArrayList<>();

    /** The wire: tcp, unix, websocket, h2 or grpc. */
    private Transport transport = Transport.TCP;

    /** The socket file of the unix transport. */
    private Path path;

    /** The HTTP path of the websocket transport. */
    private String websocketPath = "/rsocket";

    /** Deadline of every call made through the stub (none when unset). */
    private Duration deadline;

    /** Whether to ask the servers for leases (RSocket transports but h2). */
    private boolean lease;

    /** How long a call waits for a first server to connect before failing. */
    private Duration waitForServer;

    private final Tls tls = new Tls();

    public Class<?> getStub() {
      return stub;
    }

    public void setStub(Class<?> stub) {
      this.stub = stub;
    }

    public String getAddress() {
      return address;
    }

    public void setAddress(String address) {
      this.address = address;
    }

    public List<String> getAddresses() {
      return addresses;
    }

    public void setAddresses(List<String> addresses) {
      this.addresses = addresses;
    }

    public Transport getTransport() {
      return transport;
    }

    public void setTransport(Transport transport) {
      this.transport = transport;
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

    public Duration getDeadline() {
      return deadline;
    }

    public void setDeadline(Duration deadline) {
      this.deadline = deadline;
    }

    public boolean isLease() {
      return lease;
    }

    public void setLease(boolean lease) {
      this.lease = lease;
    }

    public Duration getWaitForServer() {
      return waitForServer;
    }

    public void setWaitForServer(Duration waitForServer) {
      this.waitForServer = waitForServer;
    }

    public Tls getTls() {
      return tls;
    }
  }

  /** {@code sluice.client.<name>.tls.*}: TLS from PEM files. */
  public static class Tls {
    /** Whether the client speaks TLS (trusting ca, or the JDK's CAs without it). */
    private boolean enabled;

    /** A PEM file of the CA certificates to trust. */
    private Path ca;

    /** Trust any server certificate: for tests only, never in production. */
    private boolean insecure;

    /** The PEM file of the client's certificate chain, for servers that ask for one. */
    private Path certificate;

    /** The PEM file of the client's private key (PKCS#8). */
    private Path privateKey;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Path getCa() {
      return ca;
    }

    public void setCa(Path ca) {
      this.ca = ca;
    }

    public boolean isInsecure() {
      return insecure;
    }

    public void setInsecure(boolean insecure) {
      this.insecure = insecure;
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
  }
}
