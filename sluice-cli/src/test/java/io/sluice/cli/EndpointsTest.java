package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.ConnectionOptions;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.IoMode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The front door's transports: {@code server} options make the transport {@code client} options
 * reach, over tcp, uds, ws, h2 and ws-h2, with and without TLS, and the echo contract passes over each; what
 * does not fit together is a usage error.
 */
class EndpointsTest {
  @TempDir Path dir;

  private static Args parse(String command, String... options) {
    String[] argv = new String[options.length + 1];
    argv[0] = command;
    System.arraycopy(options, 0, argv, 1, options.length);
    return Main.COMMANDS.get(command).parse(argv);
  }

  /** Binds what {@code serverArgs} name, runs the echo contract with {@code clientArgs} + where. */
  private String contract(String[] serverArgs, String... clientArgs) {
    ByteArrayOutputStream serverErr = new ByteArrayOutputStream();
    ServerTransport transport =
        Endpoints.server(
            parse("server", serverArgs), IoMode.AUTO, new PrintStream(serverErr, true, StandardCharsets.UTF_8));
    ServerTransport.Bound bound =
        SluiceServer.builder(transport)
            .options(ConnectionOptions.builder().lease(true).build())
            .acceptor((setup, requester) -> new EchoResponder(requester.alloc()))
            .bind()
            .block(Duration.ofSeconds(10));
    try {
      String listening = Endpoints.listening(transport, bound);
      List<String> client = new ArrayList<>(Arrays.asList(clientArgs));
      if (Arrays.asList(serverArgs).contains("uds")) {
        assertThat(listening).isEqualTo(dir.resolve("echo.sock").toString());
        client.addAll(List.of("--path", listening));
      } else {
        assertThat(Integer.parseInt(listening)).isPositive();
        client.addAll(List.of("--port", listening));
      }
      // A self-signed server names its certificate's PEM file; "--ca SELF" trusts it.
      int ca = client.indexOf("SELF");
      if (ca >= 0) {
        Matcher m =
            Pattern.compile("--ca (\\S+)").matcher(serverErr.toString(StandardCharsets.UTF_8));
        assertThat(m.find()).as("the server names its certificate file: " + serverErr).isTrue();
        client.set(ca, m.group(1));
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int failures =
          new EchoClient(
                  Endpoints.client(
                      parse("client", client.toArray(new String[0])),
                      IoMode.AUTO,
                      new PrintStream(err, true, StandardCharsets.UTF_8)),
                  ConnectionOptions.defaults(),
                  false,
                  0,
                  new PrintStream(out, true, StandardCharsets.UTF_8))
              .skipping(Endpoints.uncarried(Endpoints.kind(parse("client", client.toArray(new String[0])))))
              .run();
      String report = out.toString(StandardCharsets.UTF_8);
      assertThat(failures).as(report).isZero();
      return report + err.toString(StandardCharsets.UTF_8);
    } finally {
      bound.close();
      bound.onClose().orTimeout(10, TimeUnit.SECONDS).join();
    }
  }

  @Test
  void tcp() {
    assertThat(contract(new String[] {"--port", "0"})).contains("0 failed");
  }

  @Test
  void unixSocket() {
    String sock = dir.resolve("echo.sock").toString();
    assertThat(contract(new String[] {"--transport", "uds", "--path", sock}, "--transport", "uds"))
        .contains("0 failed");
    assertThat(Files.exists(Path.of(sock))).as("the socket file is removed on close").isFalse();
  }

  @Test
  void webSocketOnAPath() {
    assertThat(
            contract(
                new String[] {"--transport", "ws", "--port", "0", "--ws-path", "/rsocket"},
                "--transport", "ws", "--ws-path", "/rsocket"))
        .contains("0 failed");
  }

  @Test
  void http2StreamMappingSkipsWhatItCannotCarry() {
    assertThat(contract(new String[] {"--transport", "h2", "--port", "0"}, "--transport", "h2"))
        .contains("0 failed")
        .contains("SKIP metadata-push: the HTTP/2 stream mapping does not carry METADATA_PUSH")
        .doesNotContain("PASS metadata-push");
  }

  @Test
  void webSocketOverHttp2CarriesTheWholeContract() {
    assertThat(
            contract(
                new String[] {"--transport", "ws-h2", "--port", "0", "--ws-path", "/rs"},
                "--transport", "ws-h2", "--ws-path", "/rs"))
        .contains("0 failed")
        .contains("PASS metadata-push")
        .doesNotContain("SKIP");
  }

  @Test
  void webSocketOverHttp2OverTlsNegotiatesH2() {
    assertThat(
            contract(
                new String[] {"--transport", "ws-h2", "--port", "0", "--tls"},
                "--transport", "ws-h2", "--tls", "--ca", "SELF"))
        .contains("0 failed")
        .contains("PASS request-channel");
  }

  @Test
  void http2OverTlsNegotiatesH2() {
    assertThat(
            contract(
                new String[] {"--transport", "h2", "--port", "0", "--tls"},
                "--transport", "h2", "--tls", "--ca", "SELF"))
        .contains("0 failed")
        .contains("PASS request-channel");
  }

  @Test
  void tlsWithTheSelfSignedCertificateTrustedByFile() {
    assertThat(contract(new String[] {"--port", "0", "--tls"}, "--tls", "--ca", "SELF"))
        .contains("0 failed");
  }

  @Test
  void wssInsecureSaysSoLoudly() {
    assertThat(
            contract(
                new String[] {"--transport", "ws", "--port", "0", "--tls"},
                "--transport", "ws", "--tls", "--insecure"))
        .contains("0 failed")
        .contains("WARNING: --insecure");
  }

  @Test
  void tlsOverAUnixSocket() {
    String sock = dir.resolve("echo.sock").toString();
    assertThat(
            contract(
                new String[] {"--transport", "uds", "--path", sock, "--tls"},
                "--transport", "uds", "--tls", "--ca", "SELF"))
        .contains("0 failed");
  }

  @Test
  void aClientThatTrustsTheJdkCasRefusesASelfSignedServer() {
    assertThatThrownBy(() -> contract(new String[] {"--port", "0", "--tls"}, "--tls"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("FAIL");
  }

  @Test
  void optionsThatDoNotFitAreUsageErrors() {
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertThatThrownBy(() -> Endpoints.server(parse("server", "--transport", "udp"), IoMode.AUTO, quiet))
        .isInstanceOf(Args.UsageException.class)
        .hasMessageContaining("tcp, uds, ws, h2 or ws-h2");
    assertThatThrownBy(() -> Endpoints.server(parse("server", "--transport", "uds"), IoMode.AUTO, quiet))
        .hasMessageContaining("needs --path");
    assertThatThrownBy(() -> Endpoints.server(parse("server", "--path", "x.sock"), IoMode.AUTO, quiet))
        .hasMessageContaining("--path is for --transport uds");
    assertThatThrownBy(
            () -> Endpoints.server(parse("server", "--transport", "uds", "--path", "x", "--port", "1"), IoMode.AUTO, quiet))
        .hasMessageContaining("uds takes --path");
    assertThatThrownBy(() -> Endpoints.server(parse("server", "--ws-path", "/x"), IoMode.AUTO, quiet))
        .hasMessageContaining("--ws-path is for --transport ws");
    assertThatThrownBy(
            () -> Endpoints.server(parse("server", "--transport", "ws", "--ws-path", "x"), IoMode.AUTO, quiet))
        .hasMessageContaining("must start with '/'");
    assertThatThrownBy(() -> Endpoints.server(parse("server", "--cert", "c.pem", "--key", "k.pem"), IoMode.AUTO, quiet))
        .hasMessageContaining("go with --tls");
    assertThatThrownBy(() -> Endpoints.server(parse("server", "--tls", "--cert", "c.pem"), IoMode.AUTO, quiet))
        .hasMessageContaining("go together");
    assertThatThrownBy(() -> Endpoints.client(parse("client", "--insecure"), IoMode.AUTO, quiet))
        .hasMessageContaining("go with --tls");
    assertThatThrownBy(
            () -> Endpoints.client(parse("client", "--tls", "--insecure", "--ca", "c.pem"), IoMode.AUTO, quiet))
        .hasMessageContaining("exclude each other");
    assertThatThrownBy(() -> Endpoints.client(parse("client", "--port", "0"), IoMode.AUTO, quiet))
        .hasMessageContaining("1..65535");
  }

  @Test
  void aMissingCertificateFileIsNamed() {
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    String missing = dir.resolve("nope.pem").toString();
    assertThatThrownBy(
            () -> Endpoints.server(parse("server", "--tls", "--cert", missing, "--key", missing), IoMode.AUTO, quiet))
        .hasMessageContaining("nope.pem");
  }
}
