package io.sluice.transport.netty;

import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.DelegatingSslContext;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.sluice.transport.netty.internal.SelfSignedCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;

/**
 * Builds the netty {@link SslContext}s that {@link TcpServerTransport#withSsl} and {@link
 * TcpClientTransport#withSsl} take, from PEM files: a server's certificate chain and key, the CA
 * certificates a side trusts, and mutual TLS as an option. Each context carries its own handshake
 * deadline ({@link #DEFAULT_HANDSHAKE_TIMEOUT} unless set): a peer that opens a connection and
 * does not finish the handshake in time is cut off, whatever else it does.
 *
 * <pre>{@code
 * SslContext server = Tls.server(Path.of("server.crt"), Path.of("server.key")).build();
 * SslContext client = Tls.client().trust(Path.of("ca.crt")).build();
 * TcpServerTransport.create("0.0.0.0", 7878).withSsl(server);
 * TcpClientTransport.create("example.org", 7878).withSsl(client);
 * }</pre>
 *
 * <p><b>Provider.</b> OpenSSL (BoringSSL, through netty-tcnative-boringssl-static) when it is on
 * the class path and loads, the JDK's provider otherwise ({@link #defaultProvider()}); {@code
 * provider(...)} picks one. <b>Files.</b> Certificates are PEM ({@code BEGIN CERTIFICATE}, the
 * server's own first, then its intermediates); keys are unencrypted PKCS#8 PEM ({@code BEGIN
 * PRIVATE KEY}, as {@code openssl genpkey} writes them). <b>Clients</b> check that the server's
 * certificate names the host they connect to (HTTPS rules), unless {@link
 * ClientBuilder#insecure()}.
 *
 * <p><b>Threads.</b> Builders are not thread-safe; the contexts they build are, and may be shared
 * by any number of transports and connections. <b>Buffers.</b> None.
 */
public final class Tls {
  private Tls() {}

  /** How long a TLS handshake may take unless a builder says otherwise. */
  public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

  /** OpenSSL if netty-tcnative loads here, the JDK's provider otherwise. */
  public static SslProvider defaultProvider() {
    return OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
  }

  /** A server that presents the PEM certificate chain {@code certChain} with the PEM key {@code key}. */
  public static ServerBuilder server(Path certChain, Path key) {
    return new ServerBuilder(read(certChain, "certificate chain"), read(key, "private key"));
  }

  /** A server that presents {@code certificate} (for example a {@link #selfSigned} one). */
  public static ServerBuilder server(SelfSigned certificate) {
    return new ServerBuilder(certificate.key, certificate.certificate);
  }

  /** A client; it trusts the JDK's default CAs until {@link ClientBuilder#trust} says otherwise. */
  public static ClientBuilder client() {
    return new ClientBuilder();
  }

  /**
   * A new self-signed certificate (EC P-256, valid for a year) for {@code hosts}: DNS names or
   * literal IP addresses, as clients will name the server ({@code "localhost"}, {@code
   * "127.0.0.1"}, ...). For demos and tests: clients must trust this very certificate (its {@link
   * SelfSigned#certificatePem()}), or be {@link ClientBuilder#insecure()}. The key stays in memory.
   */
  public static SelfSigned selfSigned(String... hosts) {
    try {
      SelfSignedCertificates.Generated g =
          SelfSignedCertificates.generate(List.of(hosts), Duration.ofDays(365));
      return new SelfSigned(g.certificate(), g.keyPair().getPrivate());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("could not make a self-signed certificate: " + e, e);
    }
  }

  /** A certificate made by {@link #selfSigned} and its private key (kept in memory only). */
  public static final class SelfSigned {
    private final X509Certificate certificate;
    private final PrivateKey key;

    private SelfSigned(X509Certificate certificate, PrivateKey key) {
      this.certificate = certificate;
      this.key = key;
    }

    public X509Certificate certificate() {
      return certificate;
    }

    /** The certificate as PEM, for a client to {@link ClientBuilder#trust(Path) trust}. */
    public String certificatePem() {
      try {
        String b64 =
            Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(certificate.getEncoded());
        return "-----BEGIN CERTIFICATE-----\n" + b64 + "\n-----END CERTIFICATE-----\n";
      } catch (CertificateEncodingException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** Builds a server context. */
  public static final class ServerBuilder {
    private final SslContextBuilder builder;
    private SslProvider provider;
    private Duration handshakeTimeout = DEFAULT_HANDSHAKE_TIMEOUT;

    private ServerBuilder(byte[] certChain, byte[] key) {
      try {
        builder = SslContextBuilder.forServer(stream(certChain), stream(key));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "could not read the server's certificate chain and key (PEM certificates, unencrypted"
                + " PKCS#8 PEM key): "
                + e.getMessage(),
            e);
      }
    }

    private ServerBuilder(PrivateKey key, X509Certificate cert) {
      builder = SslContextBuilder.forServer(key, cert);
    }

    /**
     * Mutual TLS: every client must present a certificate signed by one of the CAs in the PEM
     * file {@code caCertificates}; a client without one is refused during the handshake.
     */
    public ServerBuilder requireClientCertificates(Path caCertificates) {
      builder.trustManager(stream(read(caCertificates, "CA certificates"))).clientAuth(ClientAuth.REQUIRE);
      return this;
    }

    /**
     * Offers these application protocols in ALPN, in order of preference ({@code "h2"}, {@code
     * "http/1.1"}): the server picks the first of its own the client also offers; a client that
     * offers none of them, or no ALPN at all, is still served (it then speaks the server's
     * default, plain RSocket on a TCP server).
     */
    public ServerBuilder alpn(String... protocols) {
      builder.applicationProtocolConfig(alpnConfig(protocols));
      return this;
    }

    /** Longest a handshake may take; a client that is slower is disconnected. */
    public ServerBuilder handshakeTimeout(Duration timeout) {
      this.handshakeTimeout = checkTimeout(timeout);
      return this;
    }

    /** Uses {@code provider} instead of {@link #defaultProvider()}. */
    public ServerBuilder provider(SslProvider provider) {
      this.provider = Objects.requireNonNull(provider, "provider");
      return this;
    }

    public SslContext build() {
      return Tls.build(builder, provider, handshakeTimeout);
    }
  }

  /** Builds a client context. */
  public static final class ClientBuilder {
    private final SslContextBuilder builder = SslContextBuilder.forClient();
    private SslProvider provider;
    private Duration handshakeTimeout = DEFAULT_HANDSHAKE_TIMEOUT;

    private ClientBuilder() {
      builder.endpointIdentificationAlgorithm("HTTPS");
    }

    /**
     * Trusts the CA certificates (or a self-signed server certificate) in the PEM file, and checks
     * that the server's certificate names the host: this replaces an earlier {@link #insecure()}.
     */
    public ClientBuilder trust(Path caCertificates) {
      builder
          .trustManager(stream(read(caCertificates, "CA certificates")))
          .endpointIdentificationAlgorithm("HTTPS");
      return this;
    }

    /**
     * Trusts {@code certificate} (a server's {@link #selfSigned} certificate), and checks that it
     * names the host: this replaces an earlier {@link #insecure()}.
     */
    public ClientBuilder trust(X509Certificate certificate) {
      builder.trustManager(certificate).endpointIdentificationAlgorithm("HTTPS");
      return this;
    }

    /**
     * Trusts any server certificate, whatever signed it and whatever host it names: the
     * connection is encrypted but the server is not authenticated, so anyone in between can read
     * it. For demos against a self-signed server only. Replaces an earlier {@code trust}; a later
     * one replaces this (of the two, the last call decides).
     */
    public ClientBuilder insecure() {
      builder.trustManager(InsecureTrustManagerFactory.INSTANCE).endpointIdentificationAlgorithm(null);
      return this;
    }

    /** Presents this PEM certificate chain and PKCS#8 PEM key to servers that ask (mutual TLS). */
    public ClientBuilder certificate(Path certChain, Path key) {
      builder.keyManager(stream(read(certChain, "certificate chain")), stream(read(key, "private key")));
      return this;
    }

    /**
     * Offers these application protocols in ALPN ({@code "h2"} for HTTP/2); the server's choice
     * is the connection's {@code SslHandler.applicationProtocol()}.
     */
    public ClientBuilder alpn(String... protocols) {
      builder.applicationProtocolConfig(alpnConfig(protocols));
      return this;
    }

    /** Longest a handshake may take; a server that is slower fails the connect. */
    public ClientBuilder handshakeTimeout(Duration timeout) {
      this.handshakeTimeout = checkTimeout(timeout);
      return this;
    }

    /** Uses {@code provider} instead of {@link #defaultProvider()}. */
    public ClientBuilder provider(SslProvider provider) {
      this.provider = Objects.requireNonNull(provider, "provider");
      return this;
    }

    public SslContext build() {
      return Tls.build(builder, provider, handshakeTimeout);
    }
  }

  private static SslContext build(SslContextBuilder builder, SslProvider provider, Duration timeout) {
    SslProvider p = provider != null ? provider : defaultProvider();
    try {
      return new WithHandshakeTimeout(builder.sslProvider(p).build(), timeout.toMillis());
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException("could not build the TLS context: " + e.getMessage(), e);
    }
  }

  private static ApplicationProtocolConfig alpnConfig(String... protocols) {
    if (protocols.length == 0) {
      throw new IllegalArgumentException("name at least one ALPN protocol");
    }
    for (String p : protocols) {
      if (p == null || p.isEmpty() || p.length() > 255) {
        throw new IllegalArgumentException("not an ALPN protocol name: " + p);
      }
    }
    return new ApplicationProtocolConfig(
        ApplicationProtocolConfig.Protocol.ALPN,
        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
        protocols);
  }

  private static Duration checkTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.toMillis() <= 0) {
      throw new IllegalArgumentException("handshake timeout must be at least 1 ms, got " + timeout);
    }
    return timeout;
  }

  private static byte[] read(Path file, String what) {
    Objects.requireNonNull(file, what);
    try {
      byte[] bytes = Files.readAllBytes(file);
      if (!new String(bytes, StandardCharsets.US_ASCII).contains("-----BEGIN ")) {
        throw new IllegalArgumentException(what + " file " + file + " is not PEM (no -----BEGIN line)");
      }
      return bytes;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the " + what + " file " + file + ": " + e, e);
    }
  }

  private static InputStream stream(byte[] bytes) {
    return new java.io.ByteArrayInputStream(bytes);
  }

  /** Sets the handshake deadline on every handler the wrapped context makes. */
  private static final class WithHandshakeTimeout extends DelegatingSslContext {
    private final long timeoutMillis;

    WithHandshakeTimeout(SslContext ctx, long timeoutMillis) {
      super(ctx);
      this.timeoutMillis = timeoutMillis;
    }

    @Override
    protected void initEngine(SSLEngine engine) {}

    @Override
    protected void initHandler(SslHandler handler) {
      handler.setHandshakeTimeoutMillis(timeoutMillis);
    }
  }
}
