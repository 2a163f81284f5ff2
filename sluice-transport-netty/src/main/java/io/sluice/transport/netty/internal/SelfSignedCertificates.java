package io.sluice.transport.netty.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * Makes a self-signed X.509 v3 certificate with the JDK alone: an EC P-256 key pair, the
 * certificate's DER written here (RFC 5280), signed with SHA256withECDSA. It names its hosts as
 * subject alternative names (DNS names, and IP addresses for names that are literal addresses),
 * which is what TLS clients check, and the first as the subject's common name.
 *
 * <p>Written here rather than taken from a library: netty's {@code SelfSignedCertificate} is
 * deprecated and, without BouncyCastle, runs the {@code keytool} program and writes temporary
 * files; BouncyCastle would add several MiB to every TCP user's class path for one certificate.
 * Stateless and thread-safe.
 */
public final class SelfSignedCertificates {
  private SelfSignedCertificates() {}

  // DER tags.
  private static final int INTEGER = 0x02;
  private static final int BIT_STRING = 0x03;
  private static final int OCTET_STRING = 0x04;
  private static final int OID = 0x06;
  private static final int UTF8_STRING = 0x0C;
  private static final int UTC_TIME = 0x17;
  private static final int GENERALIZED_TIME = 0x18;
  private static final int SEQUENCE = 0x30;
  private static final int SET = 0x31;

  private static final byte[] ECDSA_WITH_SHA256 = oid(1, 2, 840, 10045, 4, 3, 2);
  private static final byte[] COMMON_NAME = oid(2, 5, 4, 3);
  private static final byte[] SUBJECT_ALT_NAME = oid(2, 5, 29, 17);

  /** A certificate and its private key. */
  public record Generated(X509Certificate certificate, KeyPair keyPair) {}

  /**
   * A new key pair and a certificate for {@code hosts} (DNS names or literal IP addresses, at
   * least one), valid from an hour ago for {@code validity}.
   */
  public static Generated generate(List<String> hosts, Duration validity)
      throws GeneralSecurityException {
    if (hosts.isEmpty()) {
      throw new IllegalArgumentException("a certificate needs at least one host name");
    }
    SecureRandom random = new SecureRandom();
    KeyPairGenerator kpg = KeyPairGenerator.getInstance("EC");
    kpg.initialize(new ECGenParameterSpec("secp256r1"), random);
    KeyPair keys = kpg.generateKeyPair();

    byte[] serial = new byte[16];
    random.nextBytes(serial);
    serial[0] &= 0x7F; // positive
    serial[0] |= 0x40; // and without a leading zero byte
    Instant now = Instant.now();
    byte[] name = name(hosts.get(0));
    byte[] algorithm = tlv(SEQUENCE, tlv(OID, ECDSA_WITH_SHA256));
    byte[] tbs =
        tlv(
            SEQUENCE,
            tlv(0xA0, tlv(INTEGER, new byte[] {2})), // version v3
            tlv(INTEGER, new BigInteger(serial).toByteArray()),
            algorithm,
            name, // issuer
            tlv(SEQUENCE, time(now.minus(Duration.ofHours(1))), time(now.plus(validity))),
            name, // subject
            keys.getPublic().getEncoded(), // SubjectPublicKeyInfo, DER already
            tlv(0xA3, tlv(SEQUENCE, subjectAltName(hosts))));

    Signature signer = Signature.getInstance("SHA256withECDSA");
    signer.initSign(keys.getPrivate(), random);
    signer.update(tbs);
    byte[] signature = signer.sign();
    byte[] bits = new byte[signature.length + 1]; // no unused bits
    System.arraycopy(signature, 0, bits, 1, signature.length);
    byte[] der = tlv(SEQUENCE, tbs, algorithm, tlv(BIT_STRING, bits));

    X509Certificate cert =
        (X509Certificate)
            CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(der));
    cert.verify(keys.getPublic());
    return new Generated(cert, keys);
  }

  private static byte[] name(String commonName) {
    byte[] cn = commonName.getBytes(StandardCharsets.UTF_8);
    return tlv(SEQUENCE, tlv(SET, tlv(SEQUENCE, tlv(OID, COMMON_NAME), tlv(UTF8_STRING, cn))));
  }

  private static byte[] subjectAltName(List<String> hosts) {
    byte[][] names = new byte[hosts.size()][];
    for (int i = 0; i < names.length; i++) {
      String host = hosts.get(i);
      if (isLiteralAddress(host)) {
        try {
          names[i] = tlv(0x87, InetAddress.getByName(host).getAddress()); // [7] iPAddress
        } catch (java.net.UnknownHostException e) {
          throw new IllegalArgumentException("not an IP address: " + host, e);
        }
      } else {
        if (host.isEmpty() || !StandardCharsets.US_ASCII.newEncoder().canEncode(host)) {
          throw new IllegalArgumentException("not an ASCII host name: '" + host + "'");
        }
        names[i] = tlv(0x82, host.getBytes(StandardCharsets.US_ASCII)); // [2] dNSName
      }
    }
    return tlv(SEQUENCE, tlv(OID, SUBJECT_ALT_NAME), tlv(OCTET_STRING, tlv(SEQUENCE, names)));
  }

  /** An IPv4 dotted quad or anything with a colon (IPv6): never resolved through DNS. */
  static boolean isLiteralAddress(String host) {
    return host.indexOf(':') >= 0 || host.matches("\\d{1,3}(\\.\\d{1,3}){3}");
  }

  private static byte[] time(Instant t) {
    ZonedDateTime utc = t.atZone(ZoneOffset.UTC);
    // RFC 5280 4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050.
    if (utc.getYear() < 2050) {
      return tlv(UTC_TIME, ascii(DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").format(utc)));
    }
    return tlv(GENERALIZED_TIME, ascii(DateTimeFormatter.ofPattern("yyyyMMddHHmmss'Z'").format(utc)));
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  /** The content octets of an OBJECT IDENTIFIER. */
  private static byte[] oid(long... arcs) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write((int) (arcs[0] * 40 + arcs[1]));
    for (int i = 2; i < arcs.length; i++) {
      long arc = arcs[i];
      int groups = 1;
      for (long v = arc >>> 7; v != 0; v >>>= 7) {
        groups++;
      }
      for (int g = groups - 1; g >= 0; g--) {
        int b = (int) ((arc >>> (7 * g)) & 0x7F);
        out.write(g == 0 ? b : b | 0x80);
      }
    }
    return out.toByteArray();
  }

  /** Tag, definite length, then the parts' bytes one after the other. */
  private static byte[] tlv(int tag, byte[]... parts) {
    int length = 0;
    for (byte[] p : parts) {
      length += p.length;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(length + 6);
    out.write(tag);
    if (length < 0x80) {
      out.write(length);
    } else {
      int bytes = length > 0xFFFFFF ? 4 : length > 0xFFFF ? 3 : length > 0xFF ? 2 : 1;
      out.write(0x80 | bytes);
      for (int i = bytes - 1; i >= 0; i--) {
        out.write(length >>> (8 * i));
      }
    }
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
