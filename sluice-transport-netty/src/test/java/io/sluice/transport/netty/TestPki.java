package io.sluice.transport.netty;

import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Certificates for the TLS tests, made once per test JVM with netty-pkitesting (an implementation
 * independent of {@link Tls#selfSigned}) and written as PEM files into a temporary folder that is
 * deleted when the JVM exits: a CA, a server certificate it signed for localhost and 127.0.0.1, a
 * client certificate it signed, a second, unrelated CA, and a server certificate it signed for the
 * name server.test only. Nothing is committed.
 */
final class TestPki {
  private TestPki() {}

  private static final class Holder {
    static final TestPki.Files FILES = make();
  }

  /** The PEM files. */
  record Files(
      Path ca,
      Path serverCert,
      Path serverKey,
      Path clientCert,
      Path clientKey,
      Path otherCa,
      Path namedServerCert,
      Path namedServerKey) {}

  static Files files() {
    return Holder.FILES;
  }

  private static Files make() {
    try {
      Instant now = Instant.now();
      CertificateBuilder base =
          new CertificateBuilder()
              .ecp256()
              .notBefore(now.minus(1, ChronoUnit.HOURS))
              .notAfter(now.plus(1, ChronoUnit.DAYS));
      X509Bundle ca =
          base.copy().subject("CN=sluice test CA").setIsCertificateAuthority(true).buildSelfSigned();
      X509Bundle other =
          base.copy().subject("CN=another CA").setIsCertificateAuthority(true).buildSelfSigned();
      X509Bundle server =
          base.copy()
              .subject("CN=localhost")
              .addSanDnsName("localhost")
              .addSanIpAddress("127.0.0.1")
              .addExtendedKeyUsageServerAuth()
              .buildIssuedBy(ca);
      X509Bundle named = // a server known only by name, as one found by DNS discovery
          base.copy()
              .subject("CN=server.test")
              .addSanDnsName("server.test")
              .addExtendedKeyUsageServerAuth()
              .buildIssuedBy(ca);
      X509Bundle client =
          base.copy().subject("CN=sluice test client").addExtendedKeyUsageClientAuth().buildIssuedBy(ca);
      Path dir = java.nio.file.Files.createTempDirectory("sluice-tls-test");
      Files f =
          new Files(
              write(dir, "ca.crt", ca.getCertificatePEM()),
              write(dir, "server.crt", server.getCertificatePEM()),
              write(dir, "server.key", server.getPrivateKeyPEM()),
              write(dir, "client.crt", client.getCertificatePEM()),
              write(dir, "client.key", client.getPrivateKeyPEM()),
              write(dir, "other-ca.crt", other.getCertificatePEM()),
              write(dir, "named.crt", named.getCertificatePEM()),
              write(dir, "named.key", named.getPrivateKeyPEM()));
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try (var list = java.nio.file.Files.list(dir)) {
                      list.forEach(p -> p.toFile().delete());
                    } catch (IOException ignored) {
                      // best effort
                    }
                    dir.toFile().delete();
                  }));
      return f;
    } catch (Exception e) {
      throw new IllegalStateException("could not make the test certificates", e);
    }
  }

  private static Path write(Path dir, String name, String pem) {
    try {
      return java.nio.file.Files.writeString(dir.resolve(name), pem);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
