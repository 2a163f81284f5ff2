package io.sluice.transport.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.MessageLite;
import io.sluice.transport.netty.Tls;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** JDK HttpClient calls for the gRPC-Web and HTTP/JSON tests, and gRPC-Web body parsing. */
final class WebHttp {
  static final Duration TIMEOUT = Duration.ofSeconds(30);

  private WebHttp() {}

  /** A client of {@code version} (HTTP/2 only over TLS: the JDK does not speak h2c prior knowledge). */
  static HttpClient client(HttpClient.Version version, Tls.SelfSigned cert) throws Exception {
    HttpClient.Builder b = HttpClient.newBuilder().version(version).connectTimeout(TIMEOUT);
    if (cert != null) {
      KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
      ks.load(null, null);
      ks.setCertificateEntry(
          "server",
          CertificateFactory.getInstance("X.509")
              .generateCertificate(new ByteArrayInputStream(cert.certificatePem().getBytes(StandardCharsets.US_ASCII))));
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      SSLContext ssl = SSLContext.getInstance("TLS");
      ssl.init(null, tmf.getTrustManagers(), null);
      b.sslContext(ssl);
    }
    return b.build();
  }

  static HttpResponse<byte[]> post(HttpClient c, String url, String contentType, byte[] body, String... headers)
      throws Exception {
    HttpRequest.Builder r =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(TIMEOUT)
            .header("content-type", contentType)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    for (int i = 0; i < headers.length; i += 2) {
      r.header(headers[i], headers[i + 1]);
    }
    return c.send(r.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  /** A gRPC-Web request body: {@code message} behind the 5-byte prefix. */
  static byte[] frame(MessageLite message) {
    byte[] m = message.toByteArray();
    return ByteBuffer.allocate(5 + m.length).put((byte) 0).putInt(m.length).put(m).array();
  }

  /** A gRPC-Web response body parsed: its messages and its trailers. */
  record Body(List<ByteString> messages, Map<String, String> trailers) {}

  static Body parse(byte[] body) {
    List<ByteString> messages = new ArrayList<>();
    Map<String, String> trailers = new LinkedHashMap<>();
    ByteBuffer b = ByteBuffer.wrap(body);
    while (b.remaining() > 0) {
      byte flag = b.get();
      int len = b.getInt();
      byte[] payload = new byte[len];
      b.get(payload);
      if ((flag & 0x80) != 0) {
        for (String line : new String(payload, StandardCharsets.US_ASCII).split("\r\n")) {
          int colon = line.indexOf(':');
          trailers.put(line.substring(0, colon).trim().toLowerCase(), line.substring(colon + 1).trim());
        }
      } else {
        messages.add(ByteString.copyFrom(payload));
      }
    }
    return new Body(messages, trailers);
  }

  /** A {@code -text} response body: base64 segments (each padded) decoded and concatenated. */
  static byte[] fromText(byte[] text) {
    String s = new String(text, StandardCharsets.US_ASCII);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int start = 0;
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) == '=' && (i + 1) % 4 == 0 && (i + 1 == s.length() || s.charAt(i + 1) != '=')) {
        out.writeBytes(java.util.Base64.getDecoder().decode(s.substring(start, i + 1)));
        start = i + 1;
      }
    }
    if (start < s.length()) {
      out.writeBytes(java.util.Base64.getDecoder().decode(s.substring(start)));
    }
    return out.toByteArray();
  }
}
