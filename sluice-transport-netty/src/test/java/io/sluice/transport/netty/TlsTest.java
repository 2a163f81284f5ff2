package io.sluice.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.ReferenceCountUtil;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.test.TestMessages;
import io.sluice.transport.ServerTransport;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateParsingException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * TLS on TCP through {@link Tls}: echo on each provider, mutual TLS accepted and refused, a server
 * signed by a CA the client does not trust, handshake deadlines on both sides, the provider
 * chosen, self-signed certificates, and bad files. Test certificates come from {@link TestPki}.
 */
class TlsTest {
  private static final long WAIT = 30; // seconds; hang guard only

  private final List<ServerTransport.Bound> servers = new ArrayList<>();
  private final List<Requester> clients = new ArrayList<>();
  private final AtomicInteger accepted = new AtomicInteger();

  @AfterEach
  void close() {
    clients.forEach(Requester::dispose);
    servers.forEach(ServerTransport.Bound::close);
  }

  private static final Responder ECHO =
      new Responder() {
        @Override
        public StreamListener requestResponse(Message request, StreamHandle response) {
          response.nextAndComplete(request);
          return StreamListener.DISCARDING;
        }
      };

  private InetSocketAddress serve(SslContext ssl, ConnectionOptions options) throws Exception {
    ServerTransport.Bound b =
        Connections.serve(
                TcpServerTransport.create("127.0.0.1", 0).withSsl(ssl),
                options,
                (setup, requester) -> {
                  accepted.incrementAndGet();
                  return ECHO;
                })
            .get(WAIT, TimeUnit.SECONDS);
    servers.add(b);
    return (InetSocketAddress) b.address();
  }

  private InetSocketAddress serve(SslContext ssl) throws Exception {
    return serve(ssl, ConnectionOptions.defaults());
  }

  private CompletableFuture<Requester> connect(String host, InetSocketAddress at, SslContext ssl) {
    return Connections.connect(
            TcpClientTransport.create(host, at.getPort()).withSsl(ssl),
            ConnectionOptions.defaults(),
            ClientSetup.defaults(),
            r -> new Responder() {})
        .thenApply(
            r -> {
              synchronized (clients) {
                clients.add(r);
              }
              return r;
            });
  }

  private static String echo(Requester r, String text) throws Exception {
    CompletableFuture<String> answer = new CompletableFuture<>();
    r.requestResponse(
        TestMessages.pooled(text),
        new StreamListener() {
          @Override
          public void onNext(Message message) {
            answer.complete(TestMessages.dataAndRelease(message));
          }

          @Override
          public void onComplete() {}

          @Override
          public void onError(Throwable cause) {
            answer.completeExceptionally(cause);
          }
        });
    return answer.get(WAIT, TimeUnit.SECONDS);
  }

  private static Throwable failure(CompletableFuture<?> f) throws Exception {
    Throwable e = f.handle((v, error) -> error).get(WAIT, TimeUnit.SECONDS);
    assertThat(e).as("the connect fails").isNotNull();
    return e;
  }

  private static List<Throwable> causes(Throwable t) {
    List<Throwable> out = new ArrayList<>();
    for (Throwable c = t; c != null && out.size() < 16; c = c.getCause()) {
      out.add(c);
    }
    return out;
  }

  private static TestPki.Files pki() {
    return TestPki.files();
  }

  @ParameterizedTest
  @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
  void echoOverTls(SslProvider provider) throws Exception {
    InetSocketAddress at =
        serve(Tls.server(pki().serverCert(), pki().serverKey()).provider(provider).build());
    Requester r =
        connect("localhost", at, Tls.client().trust(pki().ca()).provider(provider).build())
            .get(WAIT, TimeUnit.SECONDS);
    assertThat(echo(r, "over tls")).isEqualTo("over tls");
  }

  @ParameterizedTest
  @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
  void mutualTlsAcceptsAClientWithACertificateFromTheCa(SslProvider provider) throws Exception {
    InetSocketAddress at =
        serve(
            Tls.server(pki().serverCert(), pki().serverKey())
                .requireClientCertificates(pki().ca())
                .provider(provider)
                .build());
    SslContext client =
        Tls.client()
            .trust(pki().ca())
            .certificate(pki().clientCert(), pki().clientKey())
            .provider(provider)
            .build();
    Requester r = connect("127.0.0.1", at, client).get(WAIT, TimeUnit.SECONDS);
    assertThat(echo(r, "mutual")).isEqualTo("mutual");
    assertThat(accepted).hasValue(1);
  }

  /**
   * Without a client certificate the server refuses the handshake. In TLS 1.3 the client's side of
   * the handshake may finish before the server has checked, so the client sees either a failed
   * connect or a connection that closes at once; either way the server never accepts it.
   */
  @ParameterizedTest
  @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
  void mutualTlsRefusesAClientWithoutCertificate(SslProvider provider) throws Exception {
    InetSocketAddress at =
        serve(
            Tls.server(pki().serverCert(), pki().serverKey())
                .requireClientCertificates(pki().ca())
                .provider(provider)
                .build());
    CompletableFuture<Requester> f =
        connect("127.0.0.1", at, Tls.client().trust(pki().ca()).provider(provider).build());
    Throwable error = f.handle((r, e) -> e).get(WAIT, TimeUnit.SECONDS);
    if (error == null) {
      Requester r = f.join();
      r.onClose().handle((v, e) -> null).get(WAIT, TimeUnit.SECONDS);
      assertThat(r.isOpen()).isFalse();
    } else {
      // The server's alert either fails the client's handshake (an SSLException), or, in TLS 1.3,
      // arrives just after it and closes the connection before the engine has started it. Then
      // the alert's reason is not passed on (see docs/guide/transports.md, TLS, Errors).
      assertThat(causes(error))
          .anySatisfy(
              c ->
                  assertThat(
                          c instanceof SSLException
                              || String.valueOf(c.getMessage()).contains("transport closed"))
                      .as("%s is a TLS error or the transport's close", c)
                      .isTrue());
    }
    assertThat(accepted).as("connections the server accepted").hasValue(0);
  }

  @ParameterizedTest
  @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
  void aServerSignedByAnotherCaIsRefusedWithAClearError(SslProvider provider) throws Exception {
    InetSocketAddress at =
        serve(Tls.server(pki().serverCert(), pki().serverKey()).provider(provider).build());
    Throwable error =
        failure(connect("localhost", at, Tls.client().trust(pki().otherCa()).provider(provider).build()));
    List<Throwable> chain = causes(error);
    assertThat(chain).anySatisfy(c -> assertThat(c).isInstanceOf(SSLHandshakeException.class));
    // The JDK says so at once; netty's OpenSSL engine says "General OpenSslEngine problem" with
    // the JDK trust manager's verdict as the cause.
    assertThat(chain)
        .anySatisfy(
            c ->
                assertThat(String.valueOf(c.getMessage()).toLowerCase(Locale.ROOT))
                    .contains("certification path"));
    assertThat(accepted).hasValue(0);
  }

  /**
   * The handshake's failure is the connect's error, however soon it comes: the client used to look
   * for its TLS handler in the pipeline once the TCP connect was done, and when the handshake had
   * already failed and closed the channel (which empties the pipeline) it handed the engine a
   * closed plain connection, whose connect then failed with "the transport closed before the
   * connection started" instead of the TLS error. Many connects, as the race is one of timing.
   */
  @ParameterizedTest
  @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
  void everyRefusedHandshakeFailsTheConnectWithTheTlsError(SslProvider provider) throws Exception {
    InetSocketAddress at =
        serve(Tls.server(pki().serverCert(), pki().serverKey()).provider(provider).build());
    SslContext untrusting = Tls.client().trust(pki().otherCa()).provider(provider).build();
    for (int i = 0; i < 200; i++) {
      Throwable error = failure(connect("localhost", at, untrusting));
      assertThat(causes(error))
          .as("connect %d", i)
          .anySatisfy(c -> assertThat(c).isInstanceOf(SSLHandshakeException.class));
    }
  }

  @ParameterizedTest
  @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
  void aServerCertificateForAnotherHostIsRefused(SslProvider provider) throws Exception {
    // Trusted, but it names example.org, not the 127.0.0.1 the client connects to.
    Tls.SelfSigned cert = Tls.selfSigned("example.org");
    InetSocketAddress at = serve(Tls.server(cert).provider(provider).build());
    Throwable error =
        failure(
            connect(
                "127.0.0.1", at, Tls.client().trust(cert.certificate()).provider(provider).build()));
    assertThat(causes(error)).anySatisfy(c -> assertThat(c).isInstanceOf(SSLHandshakeException.class));
    assertThat(accepted).hasValue(0);
  }

  /**
   * Of {@code insecure()} and {@code trust(...)} the last one called decides: trusting a CA after
   * {@code insecure()} checks the host name again (it stayed off: any certificate the CA signed,
   * for any host, was taken), and {@code insecure()} after {@code trust} trusts anything.
   */
  @ParameterizedTest
  @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
  void trustAfterInsecureChecksTheHostNameAgain(SslProvider provider, @TempDir Path dir) throws Exception {
    Tls.SelfSigned cert = Tls.selfSigned("example.org"); // trusted below, but not 127.0.0.1's
    InetSocketAddress at = serve(Tls.server(cert).provider(provider).build());
    Throwable byCert =
        failure(
            connect(
                "127.0.0.1",
                at,
                Tls.client().insecure().trust(cert.certificate()).provider(provider).build()));
    assertThat(causes(byCert)).anySatisfy(c -> assertThat(c).isInstanceOf(SSLHandshakeException.class));
    Path pem = Files.writeString(dir.resolve("ca.crt"), cert.certificatePem());
    Throwable byFile =
        failure(connect("127.0.0.1", at, Tls.client().insecure().trust(pem).provider(provider).build()));
    assertThat(causes(byFile)).anySatisfy(c -> assertThat(c).isInstanceOf(SSLHandshakeException.class));
    assertThat(accepted).hasValue(0);

    Requester insecureLast =
        connect("127.0.0.1", at, Tls.client().trust(pki().ca()).insecure().provider(provider).build())
            .get(WAIT, TimeUnit.SECONDS);
    assertThat(echo(insecureLast, "insecure last")).isEqualTo("insecure last");
  }

  /**
   * The server speaks TLS 1.2 and 1.3 only, whatever the provider: a client that offers only TLS
   * 1.0 or 1.1 is refused. The client is netty's OpenSSL (BoringSSL) engine, which can still
   * offer them (the JDK's own client may not, by its java.security).
   */
  /** Cipher suites TLS 1.0 and 1.1 can use with the test PKI's EC keys. */
  private static final List<String> OLD_CIPHERS =
      List.of("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA");

  @ParameterizedTest
  @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
  void tlsBelow12IsRefused(SslProvider serverProvider) throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(OpenSsl.isAvailable(), "needs netty-tcnative");
    InetSocketAddress at =
        serve(Tls.server(pki().serverCert(), pki().serverKey()).provider(serverProvider).build());
    for (String old : new String[] {"TLSv1", "TLSv1.1"}) {
      SslContext client =
          io.netty.handler.ssl.SslContextBuilder.forClient()
              .sslProvider(SslProvider.OPENSSL)
              .trustManager(pki().ca().toFile())
              .protocols(old)
              .ciphers(OLD_CIPHERS)
              .build();
      Throwable error = failure(connect("localhost", at, client));
      assertThat(causes(error))
          .as("%s to a %s server", old, serverProvider)
          .anySatisfy(c -> assertThat(c).isInstanceOf(SSLException.class));
      // Refused for its version, not for want of a common cipher suite.
      assertThat(causes(error))
          .as("%s to a %s server", old, serverProvider)
          .anySatisfy(c -> assertThat(String.valueOf(c.getMessage())).contains("PROTOCOL_VERSION"));
    }
    // The client does offer them: a server that enables TLS 1.1 on purpose takes it.
    SslContext tls11Server =
        io.netty.handler.ssl.SslContextBuilder.forServer(pki().serverCert().toFile(), pki().serverKey().toFile())
            .sslProvider(SslProvider.OPENSSL)
            .protocols("TLSv1.1")
            .ciphers(OLD_CIPHERS)
            .build();
    SslContext tls11Client =
        io.netty.handler.ssl.SslContextBuilder.forClient()
            .sslProvider(SslProvider.OPENSSL)
            .trustManager(pki().ca().toFile())
            .protocols("TLSv1.1")
            .ciphers(OLD_CIPHERS)
            .build();
    Requester control = connect("localhost", serve(tls11Server), tls11Client).get(WAIT, TimeUnit.SECONDS);
    assertThat(echo(control, "tls 1.1 on purpose")).isEqualTo("tls 1.1 on purpose");
    accepted.set(0);
    SslContext tls12 =
        io.netty.handler.ssl.SslContextBuilder.forClient()
            .sslProvider(SslProvider.OPENSSL)
            .trustManager(pki().ca().toFile())
            .protocols("TLSv1.2")
            .build();
    Requester r = connect("localhost", at, tls12).get(WAIT, TimeUnit.SECONDS);
    assertThat(echo(r, "tls 1.2")).isEqualTo("tls 1.2");
    assertThat(accepted).hasValue(1);
  }

  /**
   * A peer that opens a TCP connection and sends nothing is cut off by the server's handshake
   * deadline, long before the connection's setup timeout (10 minutes here) would do it.
   */
  @Test
  void aServerKnownByNameIsReachedByItsIpWithTheNameCheckedAndSentAsSni() throws Exception {
    // The server's certificate names server.test only; the client connects to its IP, as a
    // balancer does with addresses found by DNS. It checks the certificate against the name it is
    // given and sends that name as SNI.
    List<javax.net.ssl.SSLEngine> engines = new java.util.concurrent.CopyOnWriteArrayList<>();
    SslContext serverSsl =
        new io.netty.handler.ssl.DelegatingSslContext(
            Tls.server(TestPki.files().namedServerCert(), TestPki.files().namedServerKey()).build()) {
          @Override
          protected void initEngine(javax.net.ssl.SSLEngine engine) {
            engines.add(engine);
          }
        };
    InetSocketAddress at = serve(serverSsl);
    SslContext client = Tls.client().trust(pki().ca()).build();

    // The IP alone does not match the certificate: refused, as it should be.
    assertThat(failure(connect("127.0.0.1", at, client))).isNotNull();
    // With the server's name: checked against it, and accepted.
    Requester r =
        Connections.connect(
                TcpClientTransport.create("127.0.0.1", at.getPort()).withSsl(client, "server.test"),
                ConnectionOptions.defaults(),
                ClientSetup.defaults(),
                x -> new Responder() {})
            .get(WAIT, TimeUnit.SECONDS);
    clients.add(r);
    assertThat(echo(r, "by name")).isEqualTo("by name");
    javax.net.ssl.SSLSession session = engines.get(engines.size() - 1).getSession();
    assertThat(((javax.net.ssl.ExtendedSSLSession) session).getRequestedServerNames())
        .containsExactly(new javax.net.ssl.SNIHostName("server.test"));
    // A name the certificate does not carry is refused.
    assertThat(
            failure(
                Connections.connect(
                    TcpClientTransport.create("127.0.0.1", at.getPort()).withSsl(client, "other.test"),
                    ConnectionOptions.defaults(),
                    ClientSetup.defaults(),
                    x -> new Responder() {})))
        .isNotNull();
  }

  @Test
  void theServerCutsOffAPeerThatNeverFinishesTheHandshake() throws Exception {
    InetSocketAddress at =
        serve(
            Tls.server(pki().serverCert(), pki().serverKey())
                .handshakeTimeout(Duration.ofMillis(200))
                .build(),
            ConnectionOptions.builder().setupTimeout(Duration.ofMinutes(10)).build());
    try (Socket silent = new Socket()) {
      silent.connect(at);
      silent.setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT)); // a timeout here fails the test
      InputStream in = silent.getInputStream();
      int read;
      try {
        // The server may send a TLS alert first; then it closes.
        do {
          read = in.read();
        } while (read != -1);
      } catch (SocketException reset) {
        read = -1; // closed with a reset: also cut off
      }
      assertThat(read).as("the server closed the connection").isEqualTo(-1);
    }
    assertThat(accepted).hasValue(0);
  }

  /** A server that accepts the TCP connection but never answers the handshake fails the connect. */
  @Test
  void theClientGivesUpOnAServerThatNeverAnswersTheHandshake() throws Exception {
    // The kernel completes the TCP handshake for connections waiting in the backlog: nothing
    // ever accepts or answers them.
    try (ServerSocket mute = new ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
      InetSocketAddress at = new InetSocketAddress("127.0.0.1", mute.getLocalPort());
      Throwable error =
          failure(
              connect(
                  "127.0.0.1",
                  at,
                  Tls.client().trust(pki().ca()).handshakeTimeout(Duration.ofMillis(200)).build()));
      assertThat(causes(error))
          .anySatisfy(c -> assertThat(c).isInstanceOf(SslHandshakeTimeoutException.class));
    }
  }

  @Test
  void openSslIsUsedWhenNettyTcnativeIsPresent() {
    boolean linuxX64 =
        System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux")
            && System.getProperty("os.arch").matches("amd64|x86_64");
    if (linuxX64) {
      // This module's tests carry netty-tcnative-boringssl-static for linux-x86_64: it must load.
      assertThat(OpenSsl.isAvailable())
          .as("OpenSSL loads (cause: %s)", OpenSsl.unavailabilityCause())
          .isTrue();
    }
    SslProvider expected = OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
    assertThat(Tls.defaultProvider()).isEqualTo(expected);
    assertEngine(Tls.client().trust(pki().ca()).build(), expected == SslProvider.OPENSSL);
    assertEngine(
        Tls.server(pki().serverCert(), pki().serverKey()).build(), expected == SslProvider.OPENSSL);
    assertEngine(Tls.client().trust(pki().ca()).provider(SslProvider.JDK).build(), false);
  }

  private static void assertEngine(SslContext ctx, boolean openSsl) {
    SSLEngine engine = ctx.newEngine(PooledByteBufAllocator.DEFAULT);
    try {
      assertThat(engine instanceof ReferenceCountedOpenSslEngine)
          .as("%s is an OpenSSL engine", engine.getClass().getName())
          .isEqualTo(openSsl);
    } finally {
      ReferenceCountUtil.release(engine);
    }
  }

  @Test
  void theHandshakeDeadlineIsSetOnEveryHandler() {
    SslContext ctx = Tls.client().trust(pki().ca()).handshakeTimeout(Duration.ofMillis(1234)).build();
    io.netty.handler.ssl.SslHandler h = ctx.newHandler(PooledByteBufAllocator.DEFAULT, "localhost", 1);
    try {
      assertThat(h.getHandshakeTimeoutMillis()).isEqualTo(1234);
    } finally {
      ReferenceCountUtil.release(h.engine());
    }
    SslContext dflt = Tls.client().trust(pki().ca()).build();
    io.netty.handler.ssl.SslHandler d = dflt.newHandler(PooledByteBufAllocator.DEFAULT);
    try {
      assertThat(d.getHandshakeTimeoutMillis()).isEqualTo(Tls.DEFAULT_HANDSHAKE_TIMEOUT.toMillis());
    } finally {
      ReferenceCountUtil.release(d.engine());
    }
  }

  @ParameterizedTest
  @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
  void aSelfSignedServerIsTrustedByItsCertificateOrByAnInsecureClient(
      SslProvider provider, @TempDir Path dir) throws Exception {
    Tls.SelfSigned cert = Tls.selfSigned("localhost", "127.0.0.1", "::1");
    assertThat(cert.certificate().getSubjectAlternativeNames())
        .extracting(n -> (Object) n.get(1))
        .contains("localhost", "127.0.0.1");
    InetSocketAddress at = serve(Tls.server(cert).provider(provider).build());

    Path pem = Files.writeString(dir.resolve("self.crt"), cert.certificatePem());
    Requester byFile =
        connect("localhost", at, Tls.client().trust(pem).provider(provider).build())
            .get(WAIT, TimeUnit.SECONDS);
    assertThat(echo(byFile, "trusted by file")).isEqualTo("trusted by file");
    Requester byCert =
        connect("127.0.0.1", at, Tls.client().trust(cert.certificate()).provider(provider).build())
            .get(WAIT, TimeUnit.SECONDS);
    assertThat(echo(byCert, "trusted")).isEqualTo("trusted");
    Requester insecure =
        connect("127.0.0.1", at, Tls.client().insecure().provider(provider).build())
            .get(WAIT, TimeUnit.SECONDS);
    assertThat(echo(insecure, "insecure")).isEqualTo("insecure");

    Throwable refused = failure(connect("localhost", at, Tls.client().provider(provider).build()));
    assertThat(causes(refused)).anySatisfy(c -> assertThat(c).isInstanceOf(SSLHandshakeException.class));
  }

  @Test
  void aSelfSignedCertificateNeedsAValidHostName() throws CertificateParsingException {
    assertThatThrownBy(() -> Tls.selfSigned()).hasMessageContaining("at least one host");
    assertThatThrownBy(() -> Tls.selfSigned("h\u00f6st")).hasMessageContaining("ASCII");
  }

  @Test
  void filesThatAreNotPemAreRefusedWithTheirName(@TempDir Path dir) throws Exception {
    Path junk = Files.writeString(dir.resolve("junk.crt"), "not a certificate");
    assertThatThrownBy(() -> Tls.server(junk, pki().serverKey()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("junk.crt")
        .hasMessageContaining("not PEM");
    assertThatThrownBy(() -> Tls.client().trust(dir.resolve("missing.crt")))
        .hasMessageContaining("missing.crt");
    // A certificate where the key should be.
    assertThatThrownBy(() -> Tls.server(pki().serverCert(), pki().serverCert()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PKCS#8");
  }
}
