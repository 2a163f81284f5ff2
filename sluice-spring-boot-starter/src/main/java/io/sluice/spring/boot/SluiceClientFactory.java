package io.sluice.spring.boot;

import io.netty.handler.ssl.SslContext;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.balancer.AddressSource;
import io.sluice.balancer.Balancer;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.ClientInterceptor;
import io.sluice.rpc.ClientInterceptors;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.grpc.GrpcClientTransport;
import io.sluice.transport.http2.Http2ClientTransport;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.Tls;
import io.sluice.transport.netty.UnixClientTransport;
import io.sluice.transport.websocket.WebSocketClientTransport;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Makes what {@code sluice.client.<name>.*} describes: a {@link Balancer} over the address or
 * addresses (one connection per server, reconnected when lost, calls spread by load) and the
 * generated client stub over it.
 */
final class SluiceClientFactory {
  /** The server name a unix socket client checks with TLS. */
  static final String UNIX_TLS_NAME = "localhost";

  private SluiceClientFactory() {}

  /** Checks a client's properties; the message names the property. */
  static void validate(String name, SluiceClientProperties.Client c) {
    String prefix = "sluice.client." + name + ".";
    if (c.getStub() == null) {
      throw new IllegalStateException(prefix + "stub is required: the generated client class to make");
    }
    stubConstructor(name, c.getStub());
    boolean unix = c.getTransport() == SluiceClientProperties.Transport.UNIX;
    boolean hasAddress = c.getAddress() != null && !c.getAddress().isBlank();
    boolean hasAddresses = c.getAddresses() != null && !c.getAddresses().isEmpty();
    if (unix) {
      if (c.getPath() == null || hasAddress || hasAddresses) {
        throw new IllegalStateException(prefix + "transport=unix takes " + prefix + "path (the socket file), not address(es)");
      }
    } else if (hasAddress == hasAddresses) {
      throw new IllegalStateException(prefix + "address or " + prefix + "addresses is required (one of them)");
    }
    if (c.getTls().isInsecure() && c.getTls().getCa() != null) {
      throw new IllegalStateException(prefix + "tls.ca and " + prefix + "tls.insecure exclude each other");
    }
    addresses(name, c);
  }

  /** The servers of a client, unresolved (the balancer's connector resolves them). */
  static List<SocketAddress> addresses(String name, SluiceClientProperties.Client c) {
    if (c.getTransport() == SluiceClientProperties.Transport.UNIX) {
      return List.of(UnixDomainSocketAddress.of(c.getPath()));
    }
    List<String> raw = c.getAddress() != null && !c.getAddress().isBlank() ? List.of(c.getAddress()) : c.getAddresses();
    LinkedHashSet<SocketAddress> r = new LinkedHashSet<>();
    for (String item : raw) {
      r.add(parse("sluice.client." + name, item));
    }
    return new ArrayList<>(r);
  }

  /** {@code host:port} or {@code [v6]:port}. */
  static InetSocketAddress parse(String prefix, String item) {
    String s = item.trim();
    int colon = s.lastIndexOf(':');
    String host = colon > 0 ? s.substring(0, colon) : "";
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(s.substring(colon + 1));
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (host.isEmpty() || port <= 0 || port > 65535) {
      throw new IllegalStateException(prefix + ": an address is host:port (port 1..65535), got '" + item + "'");
    }
    return InetSocketAddress.createUnresolved(host, port);
  }

  /** The balancer, its RSocket connections' options changed by {@code observability} too. */
  static Balancer balancer(String name, SluiceClientProperties.Client c, List<SluiceObservability> observability) {
    SslContext ssl = ssl(c);
    ConnectionOptions.Builder ob = ConnectionOptions.builder().lease(c.isLease());
    for (SluiceObservability o : observability) {
      o.customizeConnections(ob);
    }
    ConnectionOptions options = ob.build();
    Balancer.Builder b =
        Balancer.builder()
            .addresses(AddressSource.fixed(addresses(name, c)))
            .connector(address -> connect(c, address, ssl, options));
    if (c.getWaitForServer() != null) {
      b.waitForServer(c.getWaitForServer());
    }
    return b.build();
  }

  private static CompletableFuture<Requester> connect(
      SluiceClientProperties.Client c, SocketAddress address, SslContext ssl, ConnectionOptions options) {
    if (c.getTransport() == SluiceClientProperties.Transport.GRPC) {
      InetSocketAddress at = (InetSocketAddress) address;
      GrpcClientTransport t = GrpcClientTransport.create(at.getHostString(), at.getPort());
      return (ssl == null ? t : t.withSsl(ssl)).connect().thenApply(channel -> (Requester) channel);
    }
    return Connections.connect(transport(c, address, ssl), options, ClientSetup.defaults(), r -> new Responder() {});
  }

  private static ClientTransport transport(SluiceClientProperties.Client c, SocketAddress address, SslContext ssl) {
    if (c.getTransport() == SluiceClientProperties.Transport.UNIX) {
      UnixClientTransport t = UnixClientTransport.create(Path.of(((UnixDomainSocketAddress) address).getPath().toString()));
      return ssl == null ? t : t.withSsl(ssl, UNIX_TLS_NAME);
    }
    InetSocketAddress at = (InetSocketAddress) address;
    String host = at.getHostString();
    int port = at.getPort();
    switch (c.getTransport()) {
      case TCP:
        {
          TcpClientTransport t = TcpClientTransport.create(host, port);
          return ssl == null ? t : t.withSsl(ssl);
        }
      case WEBSOCKET:
        {
          WebSocketClientTransport t = WebSocketClientTransport.create(host, port).withPath(c.getWebsocketPath());
          return ssl == null ? t : t.withSsl(ssl);
        }
      case H2:
        {
          Http2ClientTransport t = Http2ClientTransport.create(host, port);
          return ssl == null ? t : t.withSsl(ssl);
        }
      default:
        throw new IllegalStateException(String.valueOf(c.getTransport()));
    }
  }

  /** The client's TLS context, or null without TLS. */
  static SslContext ssl(SluiceClientProperties.Client c) {
    SluiceClientProperties.Tls tls = c.getTls();
    if (!tls.isEnabled()) {
      return null;
    }
    Tls.ClientBuilder b = Tls.client();
    if (c.getTransport() == SluiceClientProperties.Transport.H2
        || c.getTransport() == SluiceClientProperties.Transport.GRPC) {
      b.alpn("h2");
    }
    if (tls.getCa() != null) {
      b.trust(tls.getCa());
    } else if (tls.isInsecure()) {
      b.insecure();
    }
    if (tls.getCertificate() != null) {
      b.certificate(tls.getCertificate(), tls.getPrivateKey());
    }
    return b.build();
  }

  private static Constructor<?> stubConstructor(String name, Class<?> stub) {
    try {
      return stub.getConstructor(Requester.class);
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(
          "sluice.client." + name + ".stub: " + stub.getName()
              + " is not a generated Sluice client (no public constructor taking io.sluice.Requester)");
    }
  }

  /** The stub over {@code requester}, its calls through {@code observability}'s client interceptors. */
  static Object stub(
      String name, SluiceClientProperties.Client c, Requester requester, List<SluiceObservability> observability) {
    List<ClientInterceptor> interceptors = new ArrayList<>();
    for (SluiceObservability o : observability) {
      interceptors.addAll(o.clientInterceptors());
    }
    return stub(name, c, interceptors.isEmpty() ? requester : ClientInterceptors.intercept(requester, interceptors));
  }

  /** The stub over {@code requester}, with the client's deadline on every call. */
  static Object stub(String name, SluiceClientProperties.Client c, Requester requester) {
    try {
      Object stub = stubConstructor(name, c.getStub()).newInstance(requester);
      if (c.getDeadline() != null) {
        Method with = c.getStub().getMethod("withOptions", CallOptions.class);
        stub = with.invoke(stub, CallOptions.DEFAULT.withTimeout(c.getDeadline()));
      }
      return stub;
    } catch (InvocationTargetException e) {
      throw new IllegalStateException("sluice.client." + name + ": cannot make " + c.getStub().getName(), e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("sluice.client." + name + ": cannot make " + c.getStub().getName(), e);
    }
  }
}
