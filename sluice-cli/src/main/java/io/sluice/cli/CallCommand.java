package io.sluice.cli;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.GenericDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.TypeRegistry;
import com.google.protobuf.util.JsonFormat;
import io.netty.handler.ssl.SslContext;
import io.sluice.core.ConnectionOptions;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.Headers;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.proto.SluiceOptions;
import io.sluice.rpc.reactor.ReactorClientCalls;
import io.sluice.rpc.rsocket.RpcErrors;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.grpc.GrpcClientTransport;
import io.sluice.transport.netty.IoMode;
import io.sluice.transport.netty.internal.EventLoops;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import reactor.core.publisher.Flux;

/**
 * {@code ./sluice call}: grpcurl's verbs against a Sluice or gRPC server, over gRPC's wire or
 * Sluice's RPC on RSocket, the schema from the server's reflection service or {@code --proto}.
 *
 * <pre>
 * ./sluice call [options] ADDRESS list [SERVICE]
 * ./sluice call [options] ADDRESS describe [SYMBOL]
 * ./sluice call [options] [-d JSON|@] [-H K:V]... ADDRESS SERVICE/METHOD
 * </pre>
 *
 * Answers go to stdout as JSON, one message a line; a call's non-OK status to stderr as {@code
 * ERROR <CODE>: <message>}, exit code 1; any other failure as {@code sluice call: <message>}, exit
 * code 1; usage errors exit 2.
 */
final class CallCommand {
  /** Options with a value (all repeatable ones listed in {@link #REPEATABLE}). */
  static final Set<String> OPTIONS =
      Set.of("wire", "transport", "ws-path", "ca", "proto", "import-path", "deadline", "data", "header", "io",
          "connect-timeout");
  static final Set<String> FLAGS = Set.of("tls", "insecure");
  private static final Set<String> REPEATABLE = Set.of("proto", "import-path", "header");
  private static final Map<String, String> SHORT = Map.of("d", "data", "H", "header", "I", "import-path");

  private CallCommand() {}

  /** The parsed command line. */
  static final class Parsed {
    final Map<String, List<String>> values = new HashMap<>();
    final Set<String> flags = new TreeSet<>();
    final List<String> positional = new ArrayList<>();

    String get(String name, String dflt) {
      List<String> v = values.get(name);
      return v == null ? dflt : v.get(v.size() - 1);
    }

    List<String> all(String name) {
      return values.getOrDefault(name, List.of());
    }

    /** As {@link Args}, for {@link Endpoints}: the single-valued options and the flags. */
    Args args() {
      List<String> argv = new ArrayList<>();
      argv.add("call");
      for (Map.Entry<String, List<String>> e : values.entrySet()) {
        if (Endpoints.CLIENT_OPTIONS.contains(e.getKey())) {
          argv.add("--" + e.getKey());
          argv.add(e.getValue().get(e.getValue().size() - 1));
        }
      }
      for (String f : flags) {
        argv.add("--" + f);
      }
      return Args.parse(argv.toArray(String[]::new), 1, Endpoints.CLIENT_OPTIONS, Endpoints.CLIENT_FLAGS);
    }
  }

  static Parsed parse(String[] argv) {
    Parsed p = new Parsed();
    for (int i = 1; i < argv.length; i++) {
      String arg = argv[i];
      String name;
      String value = null;
      if (arg.startsWith("--") && arg.length() > 2) {
        name = arg.substring(2);
        int eq = name.indexOf('=');
        if (eq >= 0) {
          value = name.substring(eq + 1);
          name = name.substring(0, eq);
        }
      } else if (arg.startsWith("-") && arg.length() >= 2 && SHORT.containsKey(arg.substring(1, 2))) {
        name = SHORT.get(arg.substring(1, 2));
        if (arg.length() > 2) {
          value = arg.substring(2);
        }
      } else if (arg.startsWith("-") && arg.length() > 1) {
        throw new Args.UsageException("unknown option " + arg);
      } else {
        p.positional.add(arg);
        continue;
      }
      if (FLAGS.contains(name) && value == null) {
        p.flags.add(name);
      } else if (OPTIONS.contains(name)) {
        if (value == null) {
          if (i + 1 >= argv.length) {
            throw new Args.UsageException("--" + name + " needs a value");
          }
          value = argv[++i];
        }
        List<String> list = p.values.computeIfAbsent(name, k -> new ArrayList<>());
        if (!list.isEmpty() && !REPEATABLE.contains(name)) {
          throw new Args.UsageException("--" + name + " given twice");
        }
        list.add(value);
      } else {
        throw new Args.UsageException("unknown option --" + name);
      }
    }
    return p;
  }

  /**
   * The command line parsed and its words counted, without running anything (what {@link
   * Main#check} asks of {@code call}).
   *
   * @throws Args.UsageException naming what is wrong
   */
  static Parsed check(String[] argv) {
    Parsed p = parse(argv);
    if (p.positional.size() < 2) {
      throw new Args.UsageException("give an address and a verb: ADDRESS list|describe|SERVICE/METHOD");
    }
    String address = p.positional.get(0);
    String verb = p.positional.get(1);
    List<String> rest = p.positional.subList(2, p.positional.size());
    boolean isCall = !verb.equals("list") && !verb.equals("describe");
    if (rest.size() > (isCall ? 0 : 1)) {
      throw new Args.UsageException("unexpected argument: " + rest.get(isCall ? 0 : 1));
    }
    if (!isCall && (p.get("data", null) != null)) {
      throw new Args.UsageException("-d goes with a call (ADDRESS SERVICE/METHOD), not with " + verb);
    }
    return p;
  }

  static int run(String[] argv, InputStream in, PrintStream out, PrintStream err) {
    Parsed p = check(argv);
    String address = p.positional.get(0);
    String verb = p.positional.get(1);
    List<String> rest = p.positional.subList(2, p.positional.size());
    CallOptions options = options(p);
    Duration connectTimeout = seconds(p.get("connect-timeout", "10"), "connect-timeout");
    Wire wire = Wire.parse(p.get("wire", "grpc"));
    // Requests made before the connection: bad usage is reported without a network round trip.
    Headers headers = options.headers();
    ReactorRequester requester = null;
    try {
      requester = connect(p, wire, address, connectTimeout, err);
      CallSchema schema;
      CallReflection reflection = null;
      if (!p.all("proto").isEmpty()) {
        schema = new CallSchema(null);
        schema.add(CallProtoFiles.load(p.all("proto"), p.all("import-path")));
      } else {
        // Reflection gets the call's headers (authorization, say) but not its deadline.
        reflection = new CallReflection(requester, CallOptions.DEFAULT.withHeaders(headers), connectTimeout.multipliedBy(3));
        CallReflection r = reflection;
        schema = new CallSchema(r::fileByName);
      }
      switch (verb) {
        case "list":
          return list(schema, reflection, rest.isEmpty() ? null : rest.get(0), out);
        case "describe":
          return describe(schema, reflection, rest.isEmpty() ? null : rest.get(0), out);
        default:
          return call(schema, reflection, requester, wire, options, verb, p.get("data", null), in, out);
      }
    } catch (StatusException e) {
      out.flush();
      err.println("ERROR " + e.code().name() + ": " + e.status().description());
      return 1;
    } catch (CallException e) {
      out.flush();
      err.println("sluice call: " + e.getMessage());
      return 1;
    } catch (Args.UsageException e) {
      throw e;
    } catch (RuntimeException e) {
      out.flush();
      err.println("sluice call: " + message(e));
      return 1;
    } finally {
      if (requester != null) {
        requester.dispose();
      }
    }
  }

  /** The two wires a call may travel. */
  enum Wire {
    GRPC,
    RSOCKET;

    static Wire parse(String s) {
      switch (s) {
        case "grpc":
          return GRPC;
        case "rsocket":
          return RSOCKET;
        default:
          throw new Args.UsageException("--wire is grpc or rsocket, got '" + s + "'");
      }
    }
  }

  private static CallOptions options(Parsed p) {
    CallOptions o = CallOptions.DEFAULT;
    Headers.Builder h = Headers.builder();
    for (String kv : p.all("header")) {
      int colon = kv.indexOf(':');
      if (colon <= 0) {
        throw new Args.UsageException("-H takes KEY:VALUE, got '" + kv + "'");
      }
      String key = kv.substring(0, colon).strip().toLowerCase(Locale.ROOT);
      String value = kv.substring(colon + 1).strip();
      try {
        if (Headers.isBinaryKey(key)) {
          h.addBinary(key, Base64.getDecoder().decode(value));
        } else {
          h.add(key, value);
        }
      } catch (IllegalArgumentException e) {
        throw new Args.UsageException("-H " + kv + ": " + e.getMessage());
      }
    }
    o = o.withHeaders(h.build());
    String deadline = p.get("deadline", null);
    if (deadline != null) {
      try {
        o = o.withTimeout(duration(deadline));
      } catch (IllegalArgumentException e) {
        throw new Args.UsageException("--deadline: " + e.getMessage());
      }
    }
    return o;
  }

  /** {@code 5s}, {@code 250ms}, {@code 2m}, {@code 1.5} (seconds). */
  static Duration duration(String s) {
    String t = s.strip().toLowerCase(Locale.ROOT);
    double scale = 1000;
    if (t.endsWith("ms")) {
      scale = 1;
      t = t.substring(0, t.length() - 2);
    } else if (t.endsWith("s")) {
      t = t.substring(0, t.length() - 1);
    } else if (t.endsWith("m")) {
      scale = 60_000;
      t = t.substring(0, t.length() - 1);
    } else if (t.endsWith("h")) {
      scale = 3_600_000;
      t = t.substring(0, t.length() - 1);
    }
    double v;
    try {
      v = Double.parseDouble(t);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("a duration like 5s, 250ms or 2m, got '" + s + "'");
    }
    long nanos = (long) Math.ceil(v * scale * 1_000_000);
    if (!(v > 0) || nanos <= 0) {
      throw new IllegalArgumentException("must be positive, got '" + s + "'");
    }
    return Duration.ofNanos(nanos);
  }

  private static Duration seconds(String s, String name) {
    try {
      return duration(s);
    } catch (IllegalArgumentException e) {
      throw new Args.UsageException("--" + name + ": " + e.getMessage());
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Connecting

  private static ReactorRequester connect(Parsed p, Wire wire, String address, Duration timeout, PrintStream err) {
    Args a = p.args();
    IoMode io;
    try {
      io = IoMode.parse(p.get("io", "auto"));
    } catch (IllegalArgumentException e) {
      throw new Args.UsageException("--io: " + e.getMessage());
    }
    if (wire == Wire.GRPC) {
      if (p.get("transport", null) != null || p.get("ws-path", null) != null) {
        throw new Args.UsageException("--transport and --ws-path are for --wire rsocket (gRPC is HTTP/2)");
      }
      HostPort hp = HostPort.parse(address);
      SslContext ssl = Endpoints.clientTls(a, err, Endpoints.Kind.H2);
      GrpcClientTransport t =
          GrpcClientTransport.create(hp.host, hp.port)
              .withEventLoopGroup(EventLoops.shared(io))
              .withConnectTimeoutMillis((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
      if (ssl != null) {
        t = t.withSsl(ssl);
      }
      try {
        return new ReactorRequester(t.connect().get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS));
      } catch (ExecutionException e) {
        throw new CallException("cannot connect to " + address + " (grpc): " + message(e.getCause()));
      } catch (TimeoutException e) {
        throw new CallException("cannot connect to " + address + " (grpc): no connection within " + timeout.toMillis() + " ms");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CallException("interrupted");
      }
    }
    Endpoints.Kind kind = Endpoints.kind(a);
    if (p.get("ws-path", null) != null && kind != Endpoints.Kind.WS && kind != Endpoints.Kind.WS_H2) {
      throw new Args.UsageException("--ws-path is for --transport ws and ws-h2");
    }
    SslContext ssl = Endpoints.clientTls(a, err, kind);
    ClientTransport transport;
    if (kind == Endpoints.Kind.UDS) {
      transport =
          Endpoints.clientTransport(kind, null, 0, Path.of(address), "/", ssl, EventLoops.shared(io));
    } else {
      HostPort hp = HostPort.parse(address);
      transport =
          Endpoints.clientTransport(kind, hp.host, hp.port, null, Endpoints.wsPath(a), ssl, EventLoops.shared(io));
    }
    try {
      ReactorRequester r =
          SluiceClient.builder(transport)
              .options(ConnectionOptions.builder().maxFrameSize(0xFFFFFF).build())
              .connect()
              .block(timeout);
      if (r == null) {
        throw new CallException("cannot connect to " + address + " (rsocket over " + kind.label() + ")");
      }
      return r;
    } catch (CallException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CallException(
          "cannot connect to " + address + " (rsocket over " + kind.label() + "): " + message(e));
    }
  }

  private static String message(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c && (c.getMessage() == null || c instanceof ExecutionException)) {
      c = c.getCause();
    }
    return c.getMessage() != null ? c.getMessage() : c.toString();
  }

  /** {@code host:port} or {@code [v6]:port}. */
  private record HostPort(String host, int port) {
    static HostPort parse(String s) {
      int colon = s.lastIndexOf(':');
      if (colon <= 0 || colon == s.length() - 1) {
        throw new Args.UsageException("the address is HOST:PORT, got '" + s + "'");
      }
      String host = s.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      int port;
      try {
        port = Integer.parseInt(s.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new Args.UsageException("the port of '" + s + "' is not a number");
      }
      if (port < 1 || port > 65535) {
        throw new Args.UsageException("the port of '" + s + "' is not in 1..65535");
      }
      return new HostPort(host, port);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Verbs

  private static int list(CallSchema schema, CallReflection reflection, String service, PrintStream out) {
    if (service == null) {
      TreeSet<String> names = new TreeSet<>();
      if (reflection != null) {
        names.addAll(reflection.services());
      } else {
        for (ServiceDescriptor s : schema.services()) {
          names.add(s.getFullName());
        }
      }
      names.forEach(out::println);
      return 0;
    }
    ServiceDescriptor s = service(schema, reflection, service);
    for (MethodDescriptor m : s.getMethods()) {
      out.println(m.getFullName());
    }
    return 0;
  }

  private static int describe(CallSchema schema, CallReflection reflection, String symbol, PrintStream out) {
    if (symbol == null) {
      List<String> names = new ArrayList<>();
      if (reflection != null) {
        names.addAll(reflection.services());
      } else {
        for (ServiceDescriptor s : schema.services()) {
          names.add(s.getFullName());
        }
      }
      names.sort(null);
      for (String name : names) {
        out.println(CallDescribe.describe(resolve(schema, reflection, name)));
      }
      return 0;
    }
    out.println(CallDescribe.describe(resolve(schema, reflection, symbol)));
    return 0;
  }

  private static GenericDescriptor resolve(CallSchema schema, CallReflection reflection, String symbol) {
    String s = symbol.startsWith(".") ? symbol.substring(1) : symbol;
    GenericDescriptor d = schema.find(s);
    if (d == null && reflection != null) {
      try {
        schema.add(reflection.fileContaining(s));
      } catch (StatusException e) {
        if (e.code() != Status.Code.NOT_FOUND) {
          throw e;
        }
        // A field's or enum value's symbol is not one reflection answers: try its parent.
        int dot = s.lastIndexOf('.');
        if (dot > 0 && schema.find(s.substring(0, dot)) == null) {
          try {
            schema.add(reflection.fileContaining(s.substring(0, dot)));
          } catch (StatusException ignored) {
            // Not found either: said below.
          }
        }
      }
      d = schema.find(s);
    }
    if (d == null) {
      throw new CallException("symbol " + s + " not found" + (reflection != null ? " (the server does not describe it)" : " in --proto's files"));
    }
    return d;
  }

  private static ServiceDescriptor service(CallSchema schema, CallReflection reflection, String name) {
    GenericDescriptor d = resolve(schema, reflection, name);
    if (!(d instanceof ServiceDescriptor)) {
      throw new CallException(name + " is not a service");
    }
    return (ServiceDescriptor) d;
  }

  private static int call(
      CallSchema schema,
      CallReflection reflection,
      ReactorRequester requester,
      Wire wire,
      CallOptions options,
      String target,
      String data,
      InputStream in,
      PrintStream out) {
    int slash = target.lastIndexOf('/');
    if (slash < 0) {
      slash = target.lastIndexOf('.');
    }
    if (slash <= 0 || slash == target.length() - 1) {
      throw new Args.UsageException(
          "unknown verb '" + target + "': list, describe or a method as SERVICE/METHOD");
    }
    String serviceName = target.substring(0, slash);
    String methodName = target.substring(slash + 1);
    ServiceDescriptor service;
    try {
      service = service(schema, reflection, serviceName);
    } catch (CallException e) {
      throw new CallException("unknown service " + serviceName + ": " + e.getMessage());
    }
    MethodDescriptor m = service.findMethodByName(methodName);
    if (m == null) {
      List<String> names = new ArrayList<>();
      for (MethodDescriptor x : service.getMethods()) {
        names.add(x.getName());
      }
      throw new CallException(
          "service " + service.getFullName() + " has no method " + methodName + " (it has " + String.join(", ", names) + ")");
    }
    TypeRegistry types = schema.typeRegistry();
    List<DynamicMessage> requests = requests(m.getInputType(), types, data, in);
    if (!m.isClientStreaming() && requests.size() != 1) {
      throw new CallException(
          m.getFullName() + " takes one request message, got " + requests.size());
    }
    SluiceOptions.MethodOptions sluice = m.getOptions().getExtension(SluiceOptions.method);
    MethodKind kind;
    if (m.isClientStreaming()) {
      kind = m.isServerStreaming() ? MethodKind.BIDI_STREAMING : MethodKind.CLIENT_STREAMING;
    } else if (m.isServerStreaming()) {
      kind = MethodKind.SERVER_STREAMING;
    } else {
      // gRPC has no fire-and-forget: over its wire the call is unary, so the server's answer (a
      // Sluice server refuses such a call with UNIMPLEMENTED) is seen rather than dropped.
      kind = sluice.getFireAndForget() && wire == Wire.RSOCKET ? MethodKind.FIRE_AND_FORGET : MethodKind.UNARY;
    }
    io.sluice.rpc.MethodDescriptor<DynamicMessage, DynamicMessage> md =
        io.sluice.rpc.MethodDescriptor.<DynamicMessage, DynamicMessage>builder()
            .service(service.getFullName())
            .method(m.getName())
            .kind(kind)
            .idempotent(sluice.getIdempotent())
            .rank(sluice.getRank())
            .requestParser(DynamicMessage.getDefaultInstance(m.getInputType()).getParserForType())
            .responseParser(DynamicMessage.getDefaultInstance(m.getOutputType()).getParserForType())
            .build();
    JsonFormat.Printer printer = JsonFormat.printer().usingTypeRegistry(types).omittingInsignificantWhitespace();
    Flux<DynamicMessage> answers;
    switch (kind) {
      case UNARY:
        answers = ReactorClientCalls.unary(requester, md, options, requests.get(0)).flux();
        break;
      case FIRE_AND_FORGET:
        answers = ReactorClientCalls.fireAndForget(requester, md, options, requests.get(0)).thenMany(Flux.empty());
        break;
      case SERVER_STREAMING:
        answers = ReactorClientCalls.serverStreaming(requester, md, options, requests.get(0));
        break;
      case CLIENT_STREAMING:
        answers = ReactorClientCalls.clientStreaming(requester, md, options, Flux.fromIterable(requests)).flux();
        break;
      default:
        answers = ReactorClientCalls.bidiStreaming(requester, md, options, Flux.fromIterable(requests));
        break;
    }
    try {
      answers
          .doOnNext(
              a -> {
                try {
                  out.println(printer.print(a));
                  out.flush();
                } catch (InvalidProtocolBufferException e) {
                  throw new CallException("cannot print the answer as JSON: " + e.getMessage());
                }
              })
          .blockLast();
    } catch (StatusException | CallException e) {
      throw e;
    } catch (RuntimeException e) {
      throw RpcErrors.toStatusException(e);
    }
    return 0;
  }

  /**
   * The request messages: {@code data} ({@code {}} when absent) or, for {@code @}, stdin; either
   * holds JSON objects one after the other (NDJSON, or whitespace between them).
   */
  static List<DynamicMessage> requests(Descriptor type, TypeRegistry types, String data, InputStream in) {
    String text;
    if (data == null) {
      text = "{}";
    } else if (data.equals("@")) {
      try {
        text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new CallException("cannot read stdin: " + e.getMessage());
      }
    } else {
      text = data;
    }
    JsonFormat.Parser parser = JsonFormat.parser().usingTypeRegistry(types);
    List<DynamicMessage> out = new ArrayList<>();
    int n = 0;
    for (String json : CallJson.split(text)) {
      n++;
      DynamicMessage.Builder b = DynamicMessage.newBuilder(type);
      try {
        parser.merge(json, b);
      } catch (InvalidProtocolBufferException | RuntimeException e) {
        throw new CallException(
            "request " + n + " is not JSON of " + type.getFullName() + ": " + e.getMessage());
      }
      out.add(b.build());
    }
    return out;
  }
}
