package io.sluice.interop.peer;

import io.netty.buffer.Unpooled;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.util.DefaultPayload;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * The {@code route-client} mode: connects with SETUP metadata MIME type {@value Routing#COMPOSITE},
 * sends one request-response whose composite metadata carries the route (as Spring Messaging does)
 * and an {@value Routing#EXTRA_MIME} entry {@code "from-rsocket-java"}, and prints what came back:
 *
 * <pre>
 * RESPONSE &lt;data&gt;
 * RESPONSE-ROUTE &lt;first routing tag of the response metadata&gt;
 * RESPONSE-MIMES &lt;entry MIME types of the response metadata&gt;
 * RESPONSE-EXTRA &lt;content of its text/x.sluice-interop entry&gt;
 * </pre>
 *
 * or {@code ERROR <message>}. Exit status 0 on a response, 1 otherwise.
 */
final class RouteClient {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final String host;
  private final int port;
  private final String route;
  private final String data;

  RouteClient(String host, int port, String route, String data) {
    this.host = host;
    this.port = port;
    this.route = route;
    this.data = data;
  }

  int run(PrintStream out) {
    RSocket rsocket = null;
    try {
      rsocket =
          RSocketConnector.create()
              .metadataMimeType(Routing.COMPOSITE)
              .dataMimeType("text/plain")
              .connect(TcpClientTransport.create(host, port))
              .block(TIMEOUT);
      byte[] metadata = Routing.metadata(List.of(route), "from-rsocket-java");
      Payload response =
          rsocket
              .requestResponse(DefaultPayload.create(data.getBytes(StandardCharsets.UTF_8), metadata))
              .block(TIMEOUT);
      if (response == null) {
        out.println("ERROR no response");
        return 1;
      }
      try {
        out.println("RESPONSE " + response.getDataUtf8());
        if (response.hasMetadata()) {
          Routing.Parsed p = Routing.parse(Unpooled.wrappedBuffer(Payloads.metadataOrNull(response)));
          out.println("RESPONSE-ROUTE " + p.route);
          out.println("RESPONSE-MIMES " + String.join(",", p.mimes));
          out.println("RESPONSE-EXTRA " + p.extra);
        }
      } finally {
        response.release();
      }
      return 0;
    } catch (RuntimeException e) {
      out.println("ERROR " + e.getMessage());
      return 1;
    } finally {
      out.flush();
      if (rsocket != null) {
        rsocket.dispose();
      }
    }
  }
}
