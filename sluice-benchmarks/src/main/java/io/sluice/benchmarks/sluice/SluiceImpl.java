package io.sluice.benchmarks.sluice;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.benchmarks.harness.Counter;
import io.sluice.benchmarks.harness.Impl;
import io.sluice.benchmarks.harness.Spec;
import io.sluice.benchmarks.harness.StreamTexts;
import io.sluice.benchmarks.sluice.BenchTransports.Address;
import io.sluice.benchmarks.sluice.BenchTransports.BenchTransport;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.Resumption;
import io.sluice.transport.ClientTransport;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.netty.IoMode;
import io.sluice.transport.netty.Tls;
import io.sluice.transport.netty.internal.EventLoops;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Sluice through its flavor-neutral core SPI ({@link Connections}, {@link Responder}, {@link
 * StreamListener}): raw messages, default {@link ConnectionOptions}, TCP with one event loop per
 * side (or, named {@code sluice@...}, another transport of {@link BenchTransports}, another I/O
 * engine, TLS: {@link #parse}). The payload is one immutable buffer shared by every message, as the
 * other impls share one immutable byte array / ByteString; it is still copied into the socket's
 * batch buffer per message. {@code sluice+resume} is {@code sluice} with session resumption on both
 * sides ({@link Resumption#defaults()}): what keeping every sent frame until the peer acknowledges
 * it costs when nothing is cut.
 */
public final class SluiceImpl implements Impl {
  private static final String SERVER_LOOP = "sluice-server-loop";

  /** The transports an impl name can pick, {@code sluice@tcp} and so on: {@link BenchTransports}. */
  public static final List<String> TRANSPORTS = BenchTransports.names();

  private final BenchTransport transport;
  private final IoMode io;
  private final boolean tls;
  private final boolean resume;

  /** TCP on the default engine, no TLS: the impl {@code sluice}. */
  public SluiceImpl() {
    this(BenchTransports.find("tcp"), IoMode.AUTO, false, false);
  }

  private SluiceImpl(BenchTransport transport, IoMode io, boolean tls, boolean resume) {
    this.transport = transport;
    this.io = io;
    this.tls = tls;
    this.resume = resume;
  }

  /**
   * The impl an impl name names: {@code sluice}, or {@code sluice@TRANSPORT[/ENGINE][+tls]} with
   * TRANSPORT one of {@link BenchTransports} (tcp, uds, ws) and ENGINE auto, nio, epoll or io_uring
   * (e.g. {@code sluice@tcp/epoll}, {@code sluice@ws+tls}); null for any other name, a {@link
   * BenchTransports.NotBuiltException} for a transport not built yet.
   */
  public static SluiceImpl parse(String name) {
    if (name.equals("sluice")) {
      return new SluiceImpl();
    }
    if (name.equals("sluice+resume")) {
      return new SluiceImpl(BenchTransports.find("tcp"), IoMode.AUTO, false, true);
    }
    if (!name.startsWith("sluice@")) {
      return null;
    }
    String rest = name.substring("sluice@".length());
    boolean tls = rest.endsWith("+tls");
    if (tls) {
      rest = rest.substring(0, rest.length() - "+tls".length());
    }
    String[] parts = rest.split("/", -1);
    BenchTransport transport = parts.length > 2 ? null : BenchTransports.find(parts[0]);
    if (transport == null) {
      return null;
    }
    IoMode io;
    try {
      io = parts.length == 2 ? IoMode.parse(parts[1]) : IoMode.AUTO;
    } catch (IllegalArgumentException e) {
      return null;
    }
    return new SluiceImpl(transport, io, tls, false);
  }

  /** A unix socket's file: the server's process id stands in for the port the harness passes on. */
  private static Path socketFile(int token) {
    return Path.of(System.getProperty("java.io.tmpdir"), "sluice-bench-" + token + ".sock");
  }

  private static ByteBuf payload(int size) {
    return Unpooled.unreleasableBuffer(Unpooled.directBuffer(size).writeZero(size));
  }

  @Override
  public String serverLoopPrefix() {
    return SERVER_LOOP;
  }

  /**
   * The {@link StreamTexts} as unreleasable buffers, shared by every stream ({@code null} unless
   * {@code interaction} is {@link Spec#TEXTS24}).
   */
  private static List<ByteBuf> texts(String interaction) {
    if (!interaction.equals(Spec.TEXTS24)) {
      return null;
    }
    List<ByteBuf> texts = new ArrayList<>();
    for (String t : StreamTexts.texts()) {
      byte[] b = t.getBytes(StandardCharsets.US_ASCII);
      texts.add(Unpooled.unreleasableBuffer(Unpooled.directBuffer(b.length).writeBytes(b)));
    }
    return List.copyOf(texts);
  }

  @Override
  public int serve(String interaction, int size, Counter fnfReceived) throws Exception {
    ByteBuf payload = payload(size);
    List<ByteBuf> texts = texts(interaction);
    EventLoopGroup loop = EventLoops.newGroup(1, SERVER_LOOP, io);
    // Self-signed, made at start; the client (another process) trusts any certificate.
    SslContext ssl =
        tls
            ? Tls.server(Tls.selfSigned(BenchTransports.LOCAL_NAME, "127.0.0.1")).alpn("h2", "http/1.1").build()
            : null;
    // A unix socket has no port: the server's process id names its file and stands in for one.
    int token = (int) ProcessHandle.current().pid();
    ServerTransport server = transport.server().make(new Address(0, socketFile(token)), loop, ssl);
    ServerTransport.Bound bound =
        Connections.serve(
                server,
                resume
                    ? ConnectionOptions.builder().resumption(Resumption.defaults()).build()
                    : ConnectionOptions.defaults(),
                (setup, requester) -> new BenchResponder(payload, texts, fnfReceived))
            .get(60, TimeUnit.SECONDS); // hang guard: a loaded machine may take seconds
    return bound.address() instanceof InetSocketAddress
        ? ((InetSocketAddress) bound.address()).getPort()
        : token;
  }

  private Requester connect(int port) throws Exception {
    EventLoopGroup loop = EventLoops.newGroup(1, "sluice-client-loop", io);
    // ALPN h2 for the HTTP/2 transports; the others do not look at it.
    SslContext ssl = tls ? Tls.client().insecure().alpn(transport.alpn()).build() : null;
    ClientTransport client = transport.client().make(new Address(port, socketFile(port)), loop, ssl);
    return Connections.connect(
            client,
            ConnectionOptions.defaults(),
            resume ? ClientSetup.defaults().resumable(Resumption.defaults()) : ClientSetup.defaults(),
            r -> new Responder() {})
        .get(60, TimeUnit.SECONDS); // hang guard
  }

  @Override
  public void load(int port, String interaction, int size, int window, Counter received)
      throws Exception {
    ByteBuf payload = payload(size);
    Requester requester = connect(port);
    switch (interaction) {
      case "stream":
        requester.executor().execute(
            () -> requester.requestStream(Message.of(payload), Long.MAX_VALUE, new Receiver(received)));
        break;
      case "channel":
        requester.executor().execute(() -> {
          ChannelSender sender = new ChannelSender(payload, received);
          sender.handle = requester.requestChannel(Message.of(payload), false, Long.MAX_VALUE, sender);
        });
        break;
      case "rr":
        RequestLoop rr = new RequestLoop(requester, payload, received);
        requester.executor().execute(() -> rr.start(window));
        break;
      case "fnf":
        FnfLoop fnf = new FnfLoop(requester, payload, window);
        requester.executor().execute(fnf::pump);
        break;
      default:
        throw new IllegalArgumentException(interaction);
    }
  }

  @Override
  public void latency(int port, String interaction, int size, int concurrency, LatencySink sink)
      throws Exception {
    ByteBuf payload = payload(size);
    Requester requester = connect(port);
    boolean stream = interaction.equals("stream24") || interaction.equals(Spec.TEXTS24);
    // texts24: every stream must bring all the texts (a short one would look fast).
    int expected = interaction.equals(Spec.TEXTS24) ? StreamTexts.COUNT : -1;
    requester.executor().execute(() -> {
      for (int i = 0; i < concurrency; i++) {
        new TimedOp(requester, payload, stream, expected, sink).start();
      }
    });
  }

  /** Serves every interaction; one instance per connection, confined to its event loop. */
  private static final class BenchResponder implements Responder {
    private final ByteBuf payload;
    private final List<ByteBuf> texts;
    private final Counter fnfReceived;

    BenchResponder(ByteBuf payload, List<ByteBuf> texts, Counter fnfReceived) {
      this.payload = payload;
      this.texts = texts;
      this.fnfReceived = fnfReceived;
    }

    @Override
    public void fireAndForget(Message request) {
      request.release();
      fnfReceived.increment();
    }

    @Override
    public StreamListener requestResponse(Message request, StreamHandle response) {
      request.release();
      response.nextAndComplete(Message.of(payload));
      return StreamListener.DISCARDING;
    }

    @Override
    public StreamListener requestStream(Message request, StreamHandle stream) {
      if (texts != null) { // a server of texts24 answers every request-stream with the texts
        request.release();
        return new TextsProducer(stream, texts);
      }
      // The request says how many messages: empty = unending, otherwise a latency-mode stream.
      ByteBuf d = request.data();
      long count =
          d.readableBytes() == 1 && d.getByte(d.readerIndex()) == Spec.STREAM24
              ? Spec.STREAM24
              : Long.MAX_VALUE;
      request.release();
      return new Producer(stream, payload, count);
    }

    @Override
    public StreamListener requestChannel(Message first, boolean inboundComplete, StreamHandle channel) {
      return new Echo(channel, first);
    }
  }

  /** Sends as many messages as the core grants (it grants at most its outbound window at a time). */
  private static final class Producer implements StreamListener {
    private final StreamHandle stream;
    private final ByteBuf payload;
    private long remaining;

    Producer(StreamHandle stream, ByteBuf payload, long count) {
      this.stream = stream;
      this.payload = payload;
      this.remaining = count;
    }

    @Override
    public void onRequest(long n) {
      for (long i = 0; i < n && remaining > 0; i++) {
        if (--remaining == 0) {
          stream.nextAndComplete(Message.of(payload));
        } else {
          stream.next(Message.of(payload));
        }
      }
    }

    @Override
    public void onCancel() {
      remaining = 0;
    }

    @Override
    public void onNext(Message message) {
      message.release();
    }

    @Override
    public void onComplete() {}

    @Override
    public void onError(Throwable cause) {
      remaining = 0;
    }
  }

  /** Sends the texts of {@link StreamTexts}, as many as the core grants at a time, then completes. */
  private static final class TextsProducer implements StreamListener {
    private final StreamHandle stream;
    private final List<ByteBuf> texts;
    private int next;

    TextsProducer(StreamHandle stream, List<ByteBuf> texts) {
      this.stream = stream;
      this.texts = texts;
    }

    @Override
    public void onRequest(long n) {
      for (long i = 0; i < n && next < texts.size(); i++) {
        Message m = Message.of(texts.get(next++));
        if (next == texts.size()) {
          stream.nextAndComplete(m);
        } else {
          stream.next(m);
        }
      }
    }

    @Override
    public void onCancel() {
      next = texts.size();
    }

    @Override
    public void onNext(Message message) {
      message.release();
    }

    @Override
    public void onComplete() {}

    @Override
    public void onError(Throwable cause) {
      next = texts.size();
    }
  }

  /** Echoes a channel: asks the requester for as many messages as it may send back. */
  private static final class Echo implements StreamListener {
    private final StreamHandle channel;
    private Message first;

    Echo(StreamHandle channel, Message first) {
      this.channel = channel;
      this.first = first;
    }

    @Override
    public void onRequest(long n) {
      long grant = n;
      if (first != null) {
        channel.next(first);
        first = null;
        grant--;
      }
      if (grant > 0) {
        channel.request(grant);
      }
    }

    @Override
    public void onNext(Message message) {
      channel.next(message);
    }

    @Override
    public void onComplete() {
      channel.complete();
    }

    @Override
    public void onError(Throwable cause) {
      if (first != null) {
        first.release();
        first = null;
      }
    }

    @Override
    public void onCancel() {
      onError(null);
    }
  }

  /** Counts and releases what arrives. */
  private static final class Receiver implements StreamListener {
    private final Counter received;

    Receiver(Counter received) {
      this.received = received;
    }

    @Override
    public void onNext(Message message) {
      message.release();
      received.increment();
    }

    @Override
    public void onComplete() {}

    @Override
    public void onError(Throwable cause) {
      System.err.println("stream failed: " + cause);
    }
  }

  /** The client half of a channel: sends what the server asks for, counts the echoes. */
  private static final class ChannelSender implements StreamListener {
    private final ByteBuf payload;
    private final Counter received;
    StreamHandle handle;

    ChannelSender(ByteBuf payload, Counter received) {
      this.payload = payload;
      this.received = received;
    }

    @Override
    public void onRequest(long n) {
      for (long i = 0; i < n; i++) {
        handle.next(Message.of(payload));
      }
    }

    @Override
    public void onNext(Message message) {
      message.release();
      received.increment();
    }

    @Override
    public void onComplete() {}

    @Override
    public void onError(Throwable cause) {
      System.err.println("channel failed: " + cause);
    }
  }

  /**
   * Keeps {@code window} request-responses outstanding with one shared listener: each completion
   * starts the next request. Runs on the client's event loop.
   */
  private static final class RequestLoop implements StreamListener {
    private final Requester requester;
    private final ByteBuf payload;
    private final Counter received;

    RequestLoop(Requester requester, ByteBuf payload, Counter received) {
      this.requester = requester;
      this.payload = payload;
      this.received = received;
    }

    void start(int window) {
      for (int i = 0; i < window; i++) {
        requester.requestResponse(Message.of(payload), this);
      }
    }

    @Override
    public void onNext(Message message) {
      message.release();
      received.increment();
    }

    @Override
    public void onComplete() {
      requester.requestResponse(Message.of(payload), this);
    }

    @Override
    public void onError(Throwable cause) {
      System.err.println("request failed: " + cause);
    }
  }

  /**
   * Fire-and-forget with at most {@code window} sends not yet handed to the transport. Completions
   * may arrive inside the send, so sending is a loop that yields the event loop after each window.
   */
  private static final class FnfLoop implements StreamListener {
    private final Requester requester;
    private final ByteBuf payload;
    private final int window;
    private int outstanding;

    FnfLoop(Requester requester, ByteBuf payload, int window) {
      this.requester = requester;
      this.payload = payload;
      this.window = window;
    }

    void pump() {
      int sent = 0;
      while (outstanding < window && sent < window) {
        outstanding++;
        sent++;
        requester.fireAndForget(Message.of(payload), this);
      }
      requester.executor().execute(this::pump);
    }

    @Override
    public void onNext(Message message) {
      message.release();
    }

    @Override
    public void onComplete() {
      outstanding--;
    }

    @Override
    public void onError(Throwable cause) {
      outstanding--;
    }
  }

  /** One latency-mode operation at a time, restarted on completion. */
  private static final class TimedOp implements StreamListener {
    private static final ByteBuf STREAM24_REQUEST =
        Unpooled.unreleasableBuffer(Unpooled.directBuffer(1).writeByte(Spec.STREAM24));
    private final Requester requester;
    private final ByteBuf payload;
    private final boolean stream;
    private final int expected;
    private final LatencySink sink;
    private long started;
    private int received;

    /** {@code expected}: the messages each operation must bring, or -1 for any number. */
    TimedOp(Requester requester, ByteBuf payload, boolean stream, int expected, LatencySink sink) {
      this.requester = requester;
      this.payload = payload;
      this.stream = stream;
      this.expected = expected;
      this.sink = sink;
    }

    void start() {
      received = 0;
      started = System.nanoTime();
      if (stream) {
        requester.requestStream(Message.of(STREAM24_REQUEST), Long.MAX_VALUE, this);
      } else {
        requester.requestResponse(Message.of(payload), this);
      }
    }

    @Override
    public void onNext(Message message) {
      message.release();
      received++;
    }

    @Override
    public void onComplete() {
      long nanos = System.nanoTime() - started;
      if (expected >= 0 && received != expected) {
        // Ends the client: the orchestrator reports it ended early, with this line above.
        System.err.println("stream completed after " + received + " messages, not " + expected);
        System.exit(1);
      }
      sink.record(nanos);
      start();
    }

    @Override
    public void onError(Throwable cause) {
      System.err.println("operation failed: " + cause);
    }
  }
}
