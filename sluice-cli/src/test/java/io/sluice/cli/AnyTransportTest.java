package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.ssl.SslContext;
import io.sluice.Message;
import io.sluice.core.ConnectionOptions;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.reactor.SluiceServer;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.http2.Http2ClientTransport;
import io.sluice.transport.netty.IoMode;
import io.sluice.transport.netty.Tls;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * {@code ./sluice server --transport any}: one port answers the echo contract over tcp and ws
 * (and, with {@code --tls}, over TLS and wss too), and request-response and request-stream over
 * the HTTP/2 stream mapping (h2c, and h2 by ALPN with {@code --tls}), whose client the front door
 * does not have yet.
 */
class AnyTransportTest {
  private static final Duration WAIT = Duration.ofSeconds(20); // hang guard only

  private static Args parse(String command, String... options) {
    String[] argv = new String[options.length + 1];
    argv[0] = command;
    System.arraycopy(options, 0, argv, 1, options.length);
    return Main.COMMANDS.get(command).parse(argv);
  }

  /** A bound {@code server} as Main runs it, with what it printed on stderr. */
  private record Server(ServerTransport.Bound bound, String listening, String err) implements AutoCloseable {
    static Server start(String... args) {
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      ServerTransport transport =
          Endpoints.server(parse("server", args), IoMode.AUTO, new PrintStream(err, true, StandardCharsets.UTF_8));
      ServerTransport.Bound bound =
          SluiceServer.builder(transport)
              .options(ConnectionOptions.builder().lease(true).build())
              .acceptor((setup, requester) -> new EchoResponder(requester.alloc()))
              .bind()
              .block(WAIT);
      return new Server(bound, Endpoints.listening(transport, bound), err.toString(StandardCharsets.UTF_8));
    }

    /** The PEM file of the self-signed certificate a {@code --tls} server names on stderr. */
    Path certificate() {
      Matcher m = Pattern.compile("--ca (\\S+)").matcher(err);
      assertThat(m.find()).as("the server names its certificate file: " + err).isTrue();
      return Path.of(m.group(1));
    }

    @Override
    public void close() {
      bound.close();
      bound.onClose().orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
    }
  }

  /** Runs the echo contract's client with {@code clientArgs} against {@code server}'s port. */
  private static String contract(Server server, String... clientArgs) {
    List<String> args = new ArrayList<>(Arrays.asList(clientArgs));
    args.addAll(List.of("--port", server.listening()));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    int failures =
        new EchoClient(
                Endpoints.client(parse("client", args.toArray(new String[0])), IoMode.AUTO, quiet),
                ConnectionOptions.defaults(),
                false,
                0,
                new PrintStream(out, true, StandardCharsets.UTF_8))
            .run();
    String report = out.toString(StandardCharsets.UTF_8);
    assertThat(failures).as(String.join(" ", clientArgs) + ":\n" + report).isZero();
    return report;
  }

  /** Request-response and request-stream over the HTTP/2 stream mapping. */
  private static void http2(ClientTransport transport) {
    ReactorRequester client = SluiceClient.builder(transport).connect().block(WAIT);
    try {
      Message reply = client.requestResponse(Message.utf8(client.alloc(), "h2")).block(WAIT);
      assertThat(take(reply)).isEqualTo("echo:h2");
      List<String> items =
          client.requestStream(Message.utf8(client.alloc(), "s")).map(AnyTransportTest::take).collectList().block(WAIT);
      assertThat(items).containsExactly("s-0", "s-1", "s-2", "s-3", "s-4");
    } finally {
      client.dispose();
      client.onClose().onErrorResume(e -> Mono.empty()).block(WAIT);
    }
  }

  private static String take(Message m) {
    try {
      return m.dataUtf8();
    } finally {
      m.release();
    }
  }

  @Test
  void onePortServesTcpWebSocketAndHttp2() {
    try (Server server = Server.start("--transport", "any", "--port", "0", "--ws-path", "/rsocket")) {
      assertThat(Integer.parseInt(server.listening())).isPositive();
      assertThat(contract(server)).contains("0 failed");
      assertThat(contract(server, "--transport", "ws", "--ws-path", "/rsocket")).contains("0 failed");
      http2(Http2ClientTransport.create("127.0.0.1", Integer.parseInt(server.listening())));
    }
  }

  @Test
  void withTlsOnePortServesEachOverTlsToo() {
    try (Server server = Server.start("--transport", "any", "--port", "0", "--tls")) {
      String ca = server.certificate().toString();
      assertThat(contract(server)).contains("0 failed");
      assertThat(contract(server, "--transport", "ws")).contains("0 failed");
      assertThat(contract(server, "--tls", "--ca", ca)).contains("0 failed");
      assertThat(contract(server, "--transport", "ws", "--tls", "--ca", ca)).contains("0 failed");
      SslContext h2 = Tls.client().trust(server.certificate()).alpn("h2").build();
      http2(Http2ClientTransport.create("localhost", Integer.parseInt(server.listening())).withSsl(h2));
    }
  }

  @Test
  void optionsThatDoNotFitAreUsageErrors() {
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertThatThrownBy(
            () -> Endpoints.server(parse("server", "--transport", "any", "--path", "x.sock"), IoMode.AUTO, quiet))
        .isInstanceOf(Args.UsageException.class)
        .hasMessageContaining("--path is for --transport uds");
    assertThatThrownBy(
            () -> Endpoints.server(parse("server", "--transport", "any", "--ws-path", "x"), IoMode.AUTO, quiet))
        .isInstanceOf(Args.UsageException.class)
        .hasMessageContaining("must start with '/'");
  }
}
