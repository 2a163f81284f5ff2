package io.sluice.transport.grpc.internal.web;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ServerMethodDefinition;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.transport.grpc.Console;
import io.sluice.transport.grpc.ConsoleFigures;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntSupplier;

/**
 * The console of a server that asked for one ({@link Console}): under {@code /console/} the page
 * ({@code index.html}, {@code console.css}, {@code console.js}, resources beside this class),
 * {@code api/services} (the services, methods and message fields as JSON, made once) and {@code
 * api/figures} (the live figures as JSON, made per request). GET and HEAD only; 403 for a client
 * off loopback unless the console allows remote access; 404 for other paths under it. Calls made
 * from the page go to the server's HTTP/JSON route like any other. Immutable but for the
 * connection count, set once when the server binds; answers on the request's event loop.
 */
final class ConsolePages {
  static final String PREFIX = "/console";

  private static final Map<String, String> FILES =
      Map.of(
          "/console/", "index.html",
          "/console/index.html", "index.html",
          "/console/console.css", "console.css",
          "/console/console.js", "console.js");

  private final Console console;
  private final ConsoleFigures figures;
  private final CallFigures own; // null when the application gave its figures
  private final byte[] services;
  private final Map<String, byte[]> files = new LinkedHashMap<>();

  ConsolePages(Console console, ServiceRegistry registry) {
    this.console = console;
    this.own = console.figures() == null ? new CallFigures() : null;
    this.figures = own != null ? own : console.figures();
    this.services = servicesJson(registry).getBytes(StandardCharsets.UTF_8);
    for (String f : FILES.values()) {
      files.computeIfAbsent(f, ConsolePages::resource);
    }
  }

  /** The console's own counts, to observe the server's calls; null when it shows other figures. */
  CallFigures ownFigures() {
    return own;
  }

  void countConnections(IntSupplier connections) {
    if (own != null) {
      own.countConnections(connections);
    }
  }

  /** True for a path under {@code /console} (query strings ignored). */
  static boolean claims(CharSequence path) {
    if (path == null) {
      return false;
    }
    String p = path.toString();
    return p.equals(PREFIX) || p.startsWith(PREFIX + "/") || p.startsWith(PREFIX + "?");
  }

  /** Answers a request whose path {@link #claims} says is the console's. */
  void serve(WebExchange ex, CharSequence method, CharSequence rawPath) {
    String path = rawPath.toString();
    int q = path.indexOf('?');
    if (q >= 0) {
      path = path.substring(0, q);
    }
    if (!console.remoteAccess() && !loopback(ex.channel().remoteAddress())) {
      text(ex, 403, "the console answers clients on this machine only (Console.withRemoteAccess)");
      return;
    }
    boolean head = "HEAD".contentEquals(method);
    if (!head && !"GET".contentEquals(method)) {
      text(ex, 405, "the console's pages are read with GET");
      return;
    }
    if (path.equals(PREFIX)) {
      Http2Headers h = new DefaultHttp2Headers().set("location", PREFIX + "/");
      ex.respond(308, h, Unpooled.EMPTY_BUFFER);
      return;
    }
    byte[] body;
    String type;
    String file = FILES.get(path);
    if (file != null) {
      body = files.get(file);
      type = file.endsWith(".html") ? "text/html; charset=utf-8"
          : file.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8";
    } else if (path.equals(PREFIX + "/api/services")) {
      body = services;
      type = "application/json";
    } else if (path.equals(PREFIX + "/api/figures")) {
      body = figuresJson(figures.snapshot()).getBytes(StandardCharsets.UTF_8);
      type = "application/json";
    } else {
      text(ex, 404, "no such page of the console: " + path);
      return;
    }
    Http2Headers h = headers(type);
    ex.respond(200, h, head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body));
  }

  private static Http2Headers headers(String type) {
    return new DefaultHttp2Headers()
        .set("content-type", type)
        .set("cache-control", "no-store")
        .set("x-content-type-options", "nosniff")
        .set("x-frame-options", "DENY")
        // Nothing from elsewhere: the page's own script and style, calls to this origin only.
        .set("content-security-policy", "default-src 'self'; frame-ancestors 'none'");
  }

  private static void text(WebExchange ex, int status, String reason) {
    Http2Headers h = headers("text/plain; charset=utf-8");
    ex.respond(status, h, Unpooled.copiedBuffer(reason + "\n", StandardCharsets.UTF_8));
  }

  static boolean loopback(SocketAddress address) {
    return address instanceof InetSocketAddress a && a.getAddress() != null && a.getAddress().isLoopbackAddress();
  }

  private static byte[] resource(String name) {
    try (InputStream in = ConsolePages.class.getResourceAsStream("console/" + name)) {
      if (in == null) {
        throw new IllegalStateException("console/" + name + " is missing from the jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // JSON

  /**
   * {@code {"services":[{"name","methods":[{"name","kind","json","request","response"}]}],
   * "messages":{"pkg.Msg":{"fields":[{"name","json","number","type","repeated","map","message",
   * "enum":[...]}]}}}}: {@code json} says whether the page can call the method through HTTP/JSON
   * (unary and server streaming with full messages); a message is described when its descriptor
   * is known.
   */
  static String servicesJson(ServiceRegistry registry) {
    Map<String, Descriptor> messages = new TreeMap<>();
    StringBuilder b = new StringBuilder("{\"services\":[");
    boolean firstService = true;
    for (ServiceDefinition s : registry.services()) {
      b.append(firstService ? "" : ",").append("{\"name\":").append(quote(s.name())).append(",\"methods\":[");
      firstService = false;
      boolean firstMethod = true;
      for (ServerMethodDefinition<?, ?> m : s.methods()) {
        Descriptor req = descriptor(m.method().requestParser());
        Descriptor resp = descriptor(m.method().responseParser());
        MethodKind kind = m.method().kind();
        boolean json = req != null && resp != null && (kind == MethodKind.UNARY || kind == MethodKind.SERVER_STREAMING);
        b.append(firstMethod ? "" : ",")
            .append("{\"name\":").append(quote(m.method().method()))
            .append(",\"kind\":").append(quote(kind.name()))
            .append(",\"json\":").append(json)
            .append(",\"request\":").append(req == null ? "null" : quote(req.getFullName()))
            .append(",\"response\":").append(resp == null ? "null" : quote(resp.getFullName()))
            .append('}');
        firstMethod = false;
        collect(req, messages);
        collect(resp, messages);
      }
      b.append("]}");
    }
    b.append("],\"messages\":{");
    boolean first = true;
    for (Descriptor d : messages.values()) {
      b.append(first ? "" : ",").append(quote(d.getFullName())).append(":{\"fields\":[");
      first = false;
      boolean firstField = true;
      for (FieldDescriptor f : d.getFields()) {
        b.append(firstField ? "" : ",")
            .append("{\"name\":").append(quote(f.getName()))
            .append(",\"json\":").append(quote(f.getJsonName()))
            .append(",\"number\":").append(f.getNumber())
            .append(",\"type\":").append(quote(type(f)))
            .append(",\"repeated\":").append(f.isRepeated() && !f.isMapField())
            .append(",\"map\":").append(f.isMapField());
        if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE && !f.isMapField()) {
          b.append(",\"message\":").append(quote(f.getMessageType().getFullName()));
        }
        if (f.getJavaType() == FieldDescriptor.JavaType.ENUM) {
          b.append(",\"enum\":[");
          boolean firstValue = true;
          for (EnumValueDescriptor v : f.getEnumType().getValues()) {
            b.append(firstValue ? "" : ",").append(quote(v.getName()));
            firstValue = false;
          }
          b.append(']');
        }
        b.append('}');
        firstField = false;
      }
      b.append("]}");
    }
    return b.append("}}").toString();
  }

  private static String type(FieldDescriptor f) {
    if (f.isMapField()) {
      return "map<" + type(f.getMessageType().findFieldByNumber(1)) + ", "
          + type(f.getMessageType().findFieldByNumber(2)) + ">";
    }
    switch (f.getJavaType()) {
      case MESSAGE:
        return f.getMessageType().getFullName();
      case ENUM:
        return f.getEnumType().getFullName();
      default:
        return f.getType().name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** {@code d} and every message type its fields reach. */
  private static void collect(Descriptor d, Map<String, Descriptor> into) {
    if (d == null || into.putIfAbsent(d.getFullName(), d) != null) {
      return;
    }
    for (FieldDescriptor f : d.getFields()) {
      if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
        collect(f.getMessageType(), into);
      }
    }
  }

  /** The descriptor of the messages {@code parser} makes, or null for lite messages. */
  private static Descriptor descriptor(Parser<?> parser) {
    try {
      MessageLite m = (MessageLite) parser.parseFrom(ByteString.EMPTY);
      return m instanceof Message full ? full.getDescriptorForType() : null;
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      return null; // a message with required fields: described as unknown
    }
  }

  static String figuresJson(ConsoleFigures.Snapshot s) {
    StringBuilder b = new StringBuilder("{\"source\":").append(quote(s.source()))
        .append(",\"connections\":").append(s.connections())
        .append(",\"openCalls\":").append(s.openCalls())
        .append(",\"callsPerSecond\":").append(number(s.callsPerSecond()))
        .append(",\"methods\":[");
    List<ConsoleFigures.MethodFigures> methods = s.methods() == null ? List.of() : new ArrayList<>(s.methods());
    for (int i = 0; i < methods.size(); i++) {
      ConsoleFigures.MethodFigures m = methods.get(i);
      b.append(i == 0 ? "" : ",")
          .append("{\"method\":").append(quote(m.method()))
          .append(",\"calls\":").append(m.calls())
          .append(",\"failures\":").append(m.failures())
          .append(",\"callsPerSecond\":").append(number(m.callsPerSecond()))
          .append(",\"p99Millis\":").append(number(m.p99Millis()))
          .append('}');
    }
    return b.append("]}").toString();
  }

  private static String number(double d) {
    return Double.isFinite(d) ? String.valueOf(Math.round(d * 1000) / 1000.0) : "null";
  }

  static String quote(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x2028 || c == 0x2029) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
