package io.sluice.transport.http2.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.DefaultHttp2Connection;
import io.netty.handler.codec.http2.DefaultHttp2ConnectionDecoder;
import io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2RemoteFlowController;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Flags;
import io.netty.handler.codec.http2.Http2FrameListener;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2LocalFlowController;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.UniformStreamByteDistributor;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One HTTP/2 connection, either side: netty's connection handler (built by netty's builder, so
 * every mitigation the builder applies is kept: the limit on RST_STREAM sent, the queued control
 * frame limit, the empty-DATA limit, the CONTINUATION limits, the stream cap from the first byte)
 * with the frame listener that hands each stream's frames to its {@link StreamSink}.
 *
 * <p>A server's streams get their sink from the {@link Router} when their request HEADERS
 * arrive; a client's from whoever opens them ({@link #attach}). Events of the connection as a
 * whole (PING acks, GOAWAY, the channel closing) go to the {@link ConnectionListener}s.
 *
 * <p><b>Resets.</b> A server counts early resets: streams a client resets before it could have
 * seen an answer, either before any response HEADERS went out on them or in the same read as the
 * one that opened them (HEADERS and RST_STREAM sent back to back). That is what rapid reset
 * (CVE-2023-44487) does, work started for streams nobody waits for. More than {@link
 * Limits#maxEarlyResets} in {@link Limits#earlyResetWindowNanos} is a connection error
 * ENHANCE_YOUR_CALM. A reset of a stream the client had an answer on (a cancel, a deadline during
 * a stream, {@code take(n)}) is not counted here, nor one of a stream whose request had ended
 * and that was answered whole within the same read ({@link H2Answers#writeWhole} closes it at
 * once: its work is done, and netty ignores a reset of a closed stream). The streams this side
 * resets are remembered (the newest {@value StreamHistory#RESET_IDS_KEPT}), and the frames the
 * peer sent on them before it saw the reset are ignored, as RFC 9113 5.1 requires, not answered
 * with a reset of their own.
 *
 * <p><b>Answers before the request's end.</b> A server that answered a request in full while the
 * client is still sending it ({@link H2Answers#respondAndEnd}, {@link #discardRequestRest}) does not reset
 * the stream: it drops what the client still sends until its END_STREAM, and asks it to stop
 * (RST_STREAM NO_ERROR, RFC 9113 8.1) only if it sends more than a stream window after the answer.
 *
 * <p><b>Threads.</b> Everything runs on the channel's event loop.
 */
public final class H2Handler extends Http2ConnectionHandler implements Http2FrameListener {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(H2Handler.class);

  /** {@link #flushSoon}: one flush task at a time. */
  private boolean flushSoonScheduled;
  /**
   * Between a read and its read-complete, whose flush ({@link Http2ConnectionHandler}'s) sends what
   * the read's streams wrote: {@link #flushSoon} then schedules no flush task of its own.
   */
  private boolean reading;
  private final Runnable flushSoonTask =
      () -> {
        flushSoonScheduled = false;
        flush(this.ctx);
      };

  /** Receives the frames of one HTTP/2 stream. */
  public interface StreamSink {
    /** Request or response HEADERS, or trailers ({@code endStream} set then). */
    void onHeaders(Http2Stream stream, Http2Headers headers, boolean endStream);

    /**
     * DATA. Returns how many of its bytes (padding included) are consumed now: the rest is
     * consumed later through {@link H2Handler#consume}. {@code data} is borrowed.
     */
    int onData(Http2Stream stream, ByteBuf data, int padding, boolean endStream);

    /** The peer reset the stream. */
    void onReset(Http2Stream stream, long errorCode);

    /** The stream is closed (both ways, reset, or the connection went); last call for it. */
    void onClosed(Http2Stream stream);

    /**
     * The answer is made but not written yet (a gRPC unary response waiting for its call's end):
     * a reset now cancels an answered stream, which is not an early reset.
     */
    default boolean answerHeld() {
      return false;
    }
  }

  /** Picks the sink of a server stream from its request headers. */
  public interface Router {
    /**
     * The sink for a new stream, or null after answering it (a 404, say) through {@code
     * handler}.
     */
    StreamSink route(H2Handler handler, Http2Stream stream, Http2Headers headers, boolean endStream);

    /** The client's preface (its first SETTINGS) has arrived. */
    default void onPreface(H2Handler handler) {}
  }

  /** Events of the connection as a whole. All default to nothing. */
  public interface ConnectionListener {
    default void onPingAck(long data) {}

    /** A PING from the peer (netty acks it). */
    default void onPing(long data) {}

    default void onGoAway(int lastStreamId, long errorCode, ByteBuf debugData) {}

    /**
     * The peer's SETTINGS (each frame, the first being its preface), after netty applied them: a
     * WebSocket over HTTP/2 client reads SETTINGS_ENABLE_CONNECT_PROTOCOL here (RFC 8441).
     */
    default void onSettings(Http2Settings settings) {}

    /** The channel's writability changed. */
    default void onChannelWritabilityChanged(boolean writable) {}

    /** The end of a read batch. */
    default void onReadComplete() {}

    /** The channel closed: last call. */
    default void onChannelClosed() {}
  }

  /**
   * Streams a server answered (or refused) without a sink: later frames on them go nowhere (their
   * DATA consumed). Also what tests give streams whose frames they do not look at.
   */
  static final StreamSink NO_SINK =
      new StreamSink() {
        @Override
        public void onHeaders(Http2Stream stream, Http2Headers headers, boolean endStream) {}

        @Override
        public int onData(Http2Stream stream, ByteBuf data, int padding, boolean endStream) {
          return data.readableBytes() + padding;
        }

        @Override
        public void onReset(Http2Stream stream, long errorCode) {}

        @Override
        public void onClosed(Http2Stream stream) {}
      };

  private final Http2Connection.PropertyKey sinkKey;
  /** Streams answered in full while the client still sends: the bytes dropped since (an int[1]). */
  private final Http2Connection.PropertyKey discardKey;
  /** The ids of streams either side reset, and the ids a client skipped. */
  private final StreamHistory history = new StreamHistory();
  private final List<ConnectionListener> listeners = new ArrayList<>(2);
  private Router router;
  private ChannelHandlerContext ctx;
  /** Bytes to add to the connection's receive window once the preface is out. */
  private int connectionWindowIncrement;
  private boolean settingsSeen;
  /** Server: the advertised SETTINGS_MAX_CONCURRENT_STREAMS, refused above here (see {@link #raiseRemoteCap}). */
  private int refuseAbove = Integer.MAX_VALUE;
  /**
   * Server: control frames a client may send without an answer of the server's, at most this
   * many per {@link #CONTROL_FLOOD_WINDOW_NANOS}; one more is a connection error
   * ENHANCE_YOUR_CALM (see {@link ControlFrameBudget}: SETTINGS and their acks count for the
   * window, PINGs, WINDOW_UPDATEs, PRIORITY and unknown frames until the server next sends HEADERS
   * or DATA). Without it, a flood at a rate the socket buffers absorb (the ACKs go out, nothing is
   * queued for netty's bound on queued control frames) keeps the server busy with nothing to cut
   * it on.
   */
  public static final int MAX_CONTROL_FRAMES = 1_000;

  static final long CONTROL_FLOOD_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(10);
  private final ControlFrameBudget controlFrames;
  private final AnswerBlocks answerBlocks;
  /** Below this handler: gathers the connection's small writes until the flush. */
  private final SmallWrites smallWrites = new SmallWrites();

  /** Server: see {@link Limits#maxEarlyResets}; the early resets in the current window. */
  private int maxEarlyResets = Integer.MAX_VALUE;
  private long earlyResetWindowNanos;
  private long earlyResetWindowStart;
  private int earlyResets;
  /** Server: the first client stream opened in the current read (ids grow), or MAX_VALUE. */
  private int firstOpenedThisRead = Integer.MAX_VALUE;

  /**
   * The encoder's connection, which never changes: netty's {@link #connection()} asks the encoder,
   * through each of its decorators, every time.
   */
  private final Http2Connection connection;
  /** The connection's read budget once a call asked for it ({@link #readBudget}). */
  private ReadBudget readBudget;

  private H2Handler(
      Http2ConnectionDecoder decoder,
      Http2ConnectionEncoder encoder,
      Http2Settings settings,
      AnswerBlocks answerBlocks) {
    super(
        new LateStreamFrames(
            decoder,
            settings.maxFrameSize() == null ? Http2CodecUtil.DEFAULT_MAX_FRAME_SIZE : settings.maxFrameSize()),
        encoder,
        settings);
    this.connection = encoder.connection();
    this.answerBlocks = answerBlocks;
    this.controlFrames = answerBlocks.budget;
    decoder.frameListener(this);
    sinkKey = connection().newKey();
    discardKey = connection().newKey();
    connection()
        .addListener(
            new Http2ConnectionAdapter() {
              @Override
              public void onStreamAdded(Http2Stream stream) {
                if (connection().isServer() && connection().remote().isValidStreamId(stream.id())) {
                  history.opened(stream.id());
                  if (firstOpenedThisRead == Integer.MAX_VALUE) {
                    firstOpenedThisRead = stream.id();
                  }
                }
              }

              @Override
              public void onStreamClosed(Http2Stream stream) {
                StreamSink sink = stream.removeProperty(sinkKey);
                if (sink != null) {
                  sink.onClosed(stream);
                }
              }
            });
  }

  /**
   * Limits and settings of one side; see the transports' {@code with*} methods. A server closes a
   * connection whose client makes more than {@code maxEarlyResets} early resets within {@code
   * earlyResetWindowNanos} (see the class comment); a client ignores both.
   */
  public record Limits(
      int maxConcurrentStreams,
      int streamWindowSize,
      int connectionWindowSize,
      int maxHeaderListSize,
      int maxFrameSize,
      boolean enableConnectProtocol,
      int maxEarlyResets,
      long earlyResetWindowNanos) {

    /** With the default bound on early resets ({@link Http2Options#DEFAULT_MAX_EARLY_RESETS}). */
    public Limits(
        int maxConcurrentStreams,
        int streamWindowSize,
        int connectionWindowSize,
        int maxHeaderListSize,
        int maxFrameSize,
        boolean enableConnectProtocol) {
      this(
          maxConcurrentStreams,
          streamWindowSize,
          connectionWindowSize,
          maxHeaderListSize,
          maxFrameSize,
          enableConnectProtocol,
          Http2Options.DEFAULT_MAX_EARLY_RESETS,
          Http2Options.DEFAULT_EARLY_RESET_WINDOW.toNanos());
    }

    /** These limits with another bound on early resets. */
    public Limits withEarlyResets(int max, long windowNanos) {
      return new Limits(
          maxConcurrentStreams,
          streamWindowSize,
          connectionWindowSize,
          maxHeaderListSize,
          maxFrameSize,
          enableConnectProtocol,
          max,
          windowNanos);
    }
  }

  /**
   * Builds a handler with netty's builder, every default mitigation kept. Resets: on a server,
   * netty's limit on RST_STREAM sent (error codes other than NO_ERROR and CANCEL: MadeYouReset)
   * and this class's bound on early resets received in place of netty's count of every reset
   * received; on a client, neither (as netty's defaults for clients): a client's connection is
   * not cut for the resets a server sends or makes it send.
   */
  public static H2Handler build(boolean server, Limits limits, Router router) {
    Http2Settings settings = new Http2Settings();
    settings.maxConcurrentStreams(server ? limits.maxConcurrentStreams() : 0);
    settings.initialWindowSize(limits.streamWindowSize());
    settings.maxHeaderListSize(limits.maxHeaderListSize());
    settings.maxFrameSize(limits.maxFrameSize());
    if (!server) {
      settings.pushEnabled(false);
    }
    if (server && limits.enableConnectProtocol()) {
      settings.connectProtocolEnabled(true); // RFC 8441: WebSocket over HTTP/2
    }
    // Streams share the connection's window evenly (priorities mean nothing to RSocket), which
    // costs less per write than netty's default weighted fair queue.
    DefaultHttp2Connection connection = new DefaultHttp2Connection(server);
    connection.remote().flowController(
        new DefaultHttp2RemoteFlowController(connection, new UniformStreamByteDistributor(connection)));
    AnswerBlocks blocks = new AnswerBlocks(new ControlFrameBudget(MAX_CONTROL_FRAMES, CONTROL_FLOOD_WINDOW_NANOS));
    H2Handler h = new Builder(blocks).connection(connection).settings(settings, server).build();
    h.router = router;
    if (server) {
      h.refuseAbove = limits.maxConcurrentStreams();
      h.raiseRemoteCap();
      h.maxEarlyResets = limits.maxEarlyResets();
      h.earlyResetWindowNanos = limits.earlyResetWindowNanos();
      h.earlyResetWindowStart = System.nanoTime();
    }
    h.connectionWindowIncrement =
        Math.max(0, limits.connectionWindowSize() - Http2CodecUtil.DEFAULT_WINDOW_SIZE);
    return h;
  }

  /** netty's bound on resets received, off in both passes of {@link Builder} (see its settings). */
  private static final int RESETS_RECEIVED_BOUND = 0;

  /**
   * netty's builder, used twice: the first pass makes the connection's encoder with netty's bounds
   * (queued control frames, resets sent) and a decoder whose header blocks netty's HPACK decoder
   * reads, which no public option replaces; {@link #build(Http2ConnectionDecoder,
   * Http2ConnectionEncoder, Http2Settings)} sets that decoder aside for one like it whose header
   * blocks go through {@link RepeatedHeaderBlocks}, and the second pass ({@link Codec}) wraps it as
   * the first wrapped its own (consecutive empty DATA frames) and makes the handler.
   */
  private static final class Builder extends AbstractHttp2ConnectionHandlerBuilder<H2Handler, Builder> {
    private final AnswerBlocks blocks;

    Builder(AnswerBlocks blocks) {
      this.blocks = blocks;
      // The frames written, as they go out: see AnswerWatch.
      frameLogger(new AnswerWatch(blocks));
    }

    Builder settings(Http2Settings s, boolean server) {
      initialSettings(s);
      // The engine has drained its streams before it closes: no grace period is waited for.
      gracefulShutdownTimeoutMillis(0);
      // Rapid reset (CVE-2023-44487): netty counts every RST_STREAM received, cancels of answered
      // streams too; a server counts early resets itself instead (onRstStreamRead).
      decoderEnforceMaxRstFramesPerWindow(RESETS_RECEIVED_BOUND, RESETS_RECEIVED_BOUND);
      // MadeYouReset (CVE-2025-55163): resets a client makes a server send, on servers.
      encoderEnforceMaxRstFramesPerWindow(server ? 200 : 0, server ? 30 : 0);
      // The peer's SETTINGS are acknowledged in onSettingsRead, after the router answered the
      // client's preface: a SETTINGS frame the router sends then goes before the ACK.
      autoAckSettingsFrame(false);
      // A peer that does not read its PING and SETTINGS acks (CVE-2019-9512/9515): netty's bound on
      // queued control frames, its default made explicit. Peers that read are bounded by
      // ControlFrameBudget.
      encoderEnforceMaxQueuedControlFrames(Http2CodecUtil.DEFAULT_MAX_QUEUED_CONTROL_FRAMES);
      return this;
    }

    @Override
    protected Builder connection(Http2Connection connection) {
      return super.connection(connection);
    }

    @Override
    protected H2Handler build() {
      return super.build();
    }

    @Override
    protected H2Handler build(
        Http2ConnectionDecoder unused, Http2ConnectionEncoder encoder, Http2Settings initialSettings) {
      // As netty's builder makes its decoder, but for the header blocks' decoder; no inbound frame
      // logger (AnswerWatch looks at written frames only).
      Long max = initialSettings.maxHeaderListSize();
      long maxHeaderListSize = max == null ? Http2CodecUtil.DEFAULT_HEADER_LIST_SIZE : max;
      DefaultHttp2FrameReader reader =
          new DefaultHttp2FrameReader(
              new RepeatedHeaderBlocks(
                  new DefaultHttp2HeadersDecoder(isValidateHeaders(), maxHeaderListSize, -1), isValidateHeaders()),
              decoderEnforceMaxSmallContinuationFrames());
      Http2ConnectionDecoder decoder =
          new DefaultHttp2ConnectionDecoder(
              encoder.connection(), encoder, reader, promisedRequestVerifier(), isAutoAckSettingsFrame(),
              isAutoAckPingFrame(), isValidateHeaders(), isValidateRequiredPseudoHeaders());
      return new Codec(blocks)
          .make(decoder, encoder, initialSettings, decoderEnforceMaxConsecutiveEmptyDataFrames(),
              gracefulShutdownTimeoutMillis());
    }
  }

  /** The second pass of {@link Builder}: the handler from the decoder and encoder it was given. */
  private static final class Codec extends AbstractHttp2ConnectionHandlerBuilder<H2Handler, Codec> {
    private final AnswerBlocks blocks;

    Codec(AnswerBlocks blocks) {
      this.blocks = blocks;
    }

    H2Handler make(
        Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings,
        int maxConsecutiveEmptyDataFrames, long gracefulShutdownTimeoutMillis) {
      decoderEnforceMaxConsecutiveEmptyDataFrames(maxConsecutiveEmptyDataFrames);
      decoderEnforceMaxRstFramesPerWindow(RESETS_RECEIVED_BOUND, RESETS_RECEIVED_BOUND); // see Builder.settings
      initialSettings(settings);
      gracefulShutdownTimeoutMillis(gracefulShutdownTimeoutMillis);
      codec(decoder, encoder);
      return build();
    }

    @Override
    protected H2Handler build(
        Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings initialSettings) {
      return new H2Handler(decoder, encoder, initialSettings, blocks);
    }
  }

  /**
   * netty refuses a stream over its cap before creating it, so the DATA a client sent right behind
   * the refused HEADERS (before it had our SETTINGS) is then a PROTOCOL_ERROR connection error
   * (netty#12065). netty may create up to twice the advertised cap; above the advertised one the
   * stream is refused here, once it exists, and netty ignores what follows on it. netty re-applies
   * our SETTINGS when the client acknowledges them, so this runs again then.
   */
  private void raiseRemoteCap() {
    connection().remote().maxActiveStreams((int) Math.min(Integer.MAX_VALUE, 2L * refuseAbove));
  }

  /**
   * netty answers a frame on a stream it no longer has (DATA, HEADERS) with RST_STREAM
   * STREAM_CLOSED: it cannot tell a stream it reset from one closed otherwise or never opened.
   * Here: on a stream this side reset, the frame was sent before the peer saw the reset and is
   * ignored (RFC 9113 5.1; netty already counted DATA to the connection's window and gave it
   * back). On a server, a client's frame on a stream it skipped is a connection error
   * PROTOCOL_ERROR (5.1.1), and on one it closed itself (its END_STREAM or its reset) one of type
   * STREAM_CLOSED (5.1).
   */
  @Override
  protected void onStreamError(
      ChannelHandlerContext ctx, boolean outbound, Throwable cause, Http2Exception.StreamException e) {
    int id = e.streamId();
    if (outbound) {
      Http2Stream closed = connection().stream(id);
      if (closed == null || closed.state() == Http2Stream.State.CLOSED) {
        // Writes of ours that were queued on a stream that then closed (the peer reset it, say):
        // netty would answer with RST_STREAM(STREAM_CLOSED), counted by the limit on resets
        // sent, to a peer that closed the stream itself (RFC 9113 5.4.2: no RST_STREAM in
        // answer to one). Nothing to tell it.
        return;
      }
    }
    if (!outbound && e.error() == Http2Error.STREAM_CLOSED && connection().stream(id) == null) {
      if (history.weReset(id)) {
        return;
      }
      if (connection().isServer() && connection().remote().isValidStreamId(id) && !history.peerReset(id)) {
        Http2Exception error =
            history.neverOpened(id)
                ? Http2Exception.connectionError(Http2Error.PROTOCOL_ERROR,
                    "stream %d is below stream %d, already opened (RFC 9113 5.1.1)", id, history.lastOpened())
                : Http2Exception.connectionError(Http2Error.STREAM_CLOSED,
                    "a frame on stream %d, which the client closed (RFC 9113 5.1)", id);
        onConnectionError(ctx, false, cause, error);
        return;
      }
    }
    super.onStreamError(ctx, outbound, cause, e);
  }

  /** Every RST_STREAM this side sends (netty's and ours, refusals too) comes here: remembered. */
  @Override
  public io.netty.channel.ChannelFuture resetStream(
      ChannelHandlerContext ctx, int streamId, long errorCode, ChannelPromise promise) {
    history.onReset(streamId);
    return super.resetStream(ctx, streamId, errorCode, promise);
  }

  /** A server's count of control frames (see {@link #MAX_CONTROL_FRAMES}); a client counts none. */
  private void controlFrame(boolean settings, String what) throws Http2Exception {
    if (!connection().isServer()) {
      return;
    }
    // The loop's clock: an embedded channel in a test can hold it still.
    long now = ctx.executor().ticker().nanoTime();
    if (settings) {
      controlFrames.settings(what, now);
    } else {
      controlFrames.other(what, now);
    }
  }

  /**
   * A server's count of early resets (see the class comment). One more than {@link
   * Limits#maxEarlyResets} within the window is a connection error.
   */
  private void earlyReset() throws Http2Exception {
    long now = System.nanoTime();
    if (now - earlyResetWindowStart >= earlyResetWindowNanos) {
      earlyResetWindowStart = now;
      earlyResets = 0;
    }
    if (++earlyResets > maxEarlyResets) {
      throw new Http2Exception(
          Http2Error.ENHANCE_YOUR_CALM,
          "more than " + maxEarlyResets + " streams reset before an answer could arrive within "
              + TimeUnit.NANOSECONDS.toMillis(earlyResetWindowNanos) + " ms (rapid reset)",
          Http2Exception.ShutdownHint.HARD_SHUTDOWN);
    }
  }

  public void addListener(ConnectionListener l) {
    listeners.add(l);
  }

  AnswerBlocks answerBlocks() {
    return answerBlocks;
  }

  SmallWrites smallWrites() {
    return smallWrites;
  }

  public ChannelHandlerContext ctx() {
    return ctx;
  }

  @Override
  public Http2Connection connection() {
    Http2Connection c = connection;
    return c != null ? c : super.connection(); // null only while netty's constructor runs
  }

  /**
   * The connection's {@link ReadBudget} ({@link ReadBudget#of}), kept here after the first call
   * asked for it (the channel attribute is the same object): no attribute lookup per call.
   */
  public ReadBudget readBudget(int maxMessageSize) {
    ReadBudget b = readBudget;
    if (b == null) {
      b = ReadBudget.of(ctx.channel(), maxMessageSize);
      readBudget = b;
    } else {
      b.widen(maxMessageSize);
    }
    return b;
  }

  /** Gives {@code stream} its sink (a client's own streams, when it opens them). */
  public void attach(Http2Stream stream, StreamSink sink) {
    stream.setProperty(sinkKey, sink);
  }

  /**
   * The receive side's flow controller: the one the decoder's {@code flowController()} returns,
   * asked of the connection directly (the decoder asks it through each of its decorators, a cost
   * paid per message when a call gives bytes back).
   */
  private Http2LocalFlowController localFlow() {
    return connection().local().flowController();
  }

  /** Bytes received on {@code stream} and not consumed yet (its share of the receive windows). */
  int unconsumedBytes(Http2Stream stream) {
    return localFlow().unconsumedBytes(stream);
  }

  /** Returns {@code n} consumed bytes of {@code stream} to the flow controllers (window updates). */
  public void consume(Http2Stream stream, int n) {
    if (n <= 0) {
      return;
    }
    try {
      localFlow().consumeBytes(stream, n);
    } catch (Http2Exception e) {
      onError(ctx, false, e);
    }
  }

  /** Opens {@code stream}'s receive window by {@code delta} bytes (a WINDOW_UPDATE). */
  public void growWindow(Http2Stream stream, int delta) {
    try {
      localFlow().incrementWindowSize(stream, delta);
    } catch (Http2Exception e) {
      onError(ctx, true, e);
    }
  }

  /** Flushes pending stream data (as the flow controllers allow) and the channel. */
  public void flushNow() {
    flush(ctx);
  }

  /** Bytes a stream gathers during a loop turn and writes when the connection flushes. */
  public interface BeforeFlush {
    /** Writes what was gathered (through the encoder); the flush that called it follows. */
    void beforeFlush();
  }

  /** What {@link #writeBeforeFlush} registered, written at the next flush, in order. */
  private final ArrayList<BeforeFlush> beforeFlush = new ArrayList<>();
  private long flushes;

  /**
   * Has {@code w} write its gathered bytes just before the connection's next flush (register it
   * once per gathering, and ask for a flush with {@link #flushSoon}). On the event loop only.
   */
  public void writeBeforeFlush(BeforeFlush w) {
    beforeFlush.add(w);
  }

  @Override
  public void flush(ChannelHandlerContext ctx) {
    if (!beforeFlush.isEmpty()) {
      try {
        // In order; one registered meanwhile is written in this pass too.
        for (int i = 0; i < beforeFlush.size(); i++) {
          beforeFlush.get(i).beforeFlush();
        }
      } finally {
        beforeFlush.clear();
      }
    }
    super.flush(ctx);
    flushes++;
  }

  /**
   * How many times the connection has been flushed: what was written before the last flush has
   * gone to the channel (or waits for a flow-control window).
   */
  public long flushes() {
    return flushes;
  }

  /**
   * Flushes once the event loop has run the tasks queued now, so that what the connection's
   * streams write in one turn goes out in one write to the socket; inside a read, the flush at its
   * read-complete does (no task). On the event loop only.
   */
  public void flushSoon() {
    if (!flushSoonScheduled && !reading) {
      flushSoonScheduled = true;
      ctx.executor().execute(flushSoonTask);
    }
  }

  /**
   * The answer on {@code stream} is complete (its END_STREAM written or queued) while the client
   * may still be sending its request: from now on what it sends on the stream is dropped, not
   * handed to the stream's sink, and its bytes go back to the windows; its END_STREAM closes the
   * stream. Not reset: the client's DATA already on its way would meet a closed stream. A client
   * that sends more than a stream window after the answer went out is asked to stop with
   * RST_STREAM(NO_ERROR) (RFC 9113 8.1). Nothing to do once the client's side is closed.
   */
  public void discardRequestRest(Http2Stream stream) {
    if (stream.state().remoteSideOpen() && stream.getProperty(discardKey) == null) {
      stream.setProperty(discardKey, new int[1]);
    }
  }

  /** DATA on a stream whose request is being dropped ({@link #discardRequestRest}). */
  private void discard(Http2Stream stream, int[] dropped, int bytes, boolean endStream) {
    if (endStream || stream.isResetSent()) {
      return;
    }
    dropped[0] = (int) Math.min(Integer.MAX_VALUE, (long) dropped[0] + bytes);
    if (dropped[0] > localFlow().initialWindowSize()
        && stream.state() == Http2Stream.State.HALF_CLOSED_LOCAL) {
      resetStream(ctx, stream.id(), Http2Error.NO_ERROR.code(), ctx.newPromise());
    }
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
    this.ctx = ctx;
    ctx.pipeline().addBefore(ctx.name(), null, smallWrites);
    super.handlerAdded(ctx);
    growConnectionWindow();
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    super.channelActive(ctx);
    growConnectionWindow();
  }

  /** Once the preface is out: opens the connection's receive window to its configured size. */
  private void growConnectionWindow() {
    if (connectionWindowIncrement > 0 && ctx.channel().isActive()) { // the preface went out in super
      int delta = connectionWindowIncrement;
      connectionWindowIncrement = 0;
      try {
        localFlow().incrementWindowSize(connection().connectionStream(), delta);
      } catch (Http2Exception e) {
        onError(ctx, true, e);
      }
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    // Listeners first: the engine learns of the close once, not from each stream closed below.
    try {
      for (ConnectionListener l : listeners.toArray(new ConnectionListener[0])) {
        l.onChannelClosed();
      }
    } finally {
      try {
        super.channelInactive(ctx);
      } finally {
        beforeFlush.clear(); // their calls ended with their streams and let go of what they held
      }
    }
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) throws Exception {
    try {
      super.handlerRemoved0(ctx);
    } finally {
      // Taken out with this handler from a live channel (what it gathered goes on); a closed
      // channel's pipeline takes every handler out itself.
      if (ctx.channel().isRegistered() && ctx.pipeline().context(smallWrites) != null) {
        ctx.pipeline().remove(smallWrites);
      }
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    reading = true;
    super.channelRead(ctx, msg);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
    firstOpenedThisRead = Integer.MAX_VALUE;
    try {
      for (int i = 0; i < listeners.size(); i++) {
        listeners.get(i).onReadComplete();
      }
      super.channelReadComplete(ctx); // flushes what the read's streams wrote
    } finally {
      reading = false;
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    boolean writable = ctx.channel().isWritable();
    for (int i = 0; i < listeners.size(); i++) {
      listeners.get(i).onChannelWritabilityChanged(writable);
    }
    super.channelWritabilityChanged(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
    if (Http2CodecUtil.getEmbeddedHttp2Exception(cause) != null) {
      super.exceptionCaught(ctx, cause); // a stream or connection error: netty answers it
      return;
    }
    // I/O errors (a reset by the peer, a TLS failure): the connection is over.
    if (logger.isDebugEnabled()) {
      logger.debug("HTTP/2 connection {} failed: {}", ctx.channel(), cause.toString());
    }
    ctx.close();
  }

  @Override
  protected void onConnectionError(
      ChannelHandlerContext ctx, boolean outbound, Throwable cause, Http2Exception http2Ex) {
    if (logger.isDebugEnabled()) {
      logger.debug("HTTP/2 connection error on {}: {}", ctx.channel(), cause.toString());
    }
    super.onConnectionError(ctx, outbound, cause, http2Ex);
  }

  // ---- Http2FrameListener -----------------------------------------------------------------------

  @Override
  public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
    Http2Stream stream = connection().stream(streamId);
    if (stream == null) {
      return data.readableBytes() + padding;
    }
    int[] dropped = stream.getProperty(discardKey);
    if (dropped != null) {
      discard(stream, dropped, data.readableBytes() + padding, endOfStream);
      return data.readableBytes() + padding;
    }
    StreamSink sink = stream.getProperty(sinkKey);
    if (sink == null) {
      return data.readableBytes() + padding;
    }
    return sink.onData(stream, data, padding, endOfStream);
  }

  @Override
  public void onHeadersRead(
      ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean endOfStream)
      throws Http2Exception {
    Http2Stream stream = connection().stream(streamId);
    if (stream == null) {
      return;
    }
    if (stream.getProperty(discardKey) != null) {
      return; // the trailers of a request answered already
    }
    StreamSink sink = stream.getProperty(sinkKey);
    if (sink == null) {
      if (!connection().isServer() || router == null || !connection().remote().isValidStreamId(streamId)) {
        return;
      }
      stream.setProperty(sinkKey, NO_SINK); // its trailers are not a request of their own
      if (connection().numActiveStreams() > refuseAbove) {
        encoder().writeRstStream(ctx, streamId, Http2Error.REFUSED_STREAM.code(), ctx.newPromise());
        return;
      }
      sink = router.route(this, stream, headers, endOfStream);
      if (sink == null) {
        return;
      }
      stream.setProperty(sinkKey, sink);
    }
    sink.onHeaders(stream, headers, endOfStream);
  }

  @Override
  public void onHeadersRead(
      ChannelHandlerContext ctx,
      int streamId,
      Http2Headers headers,
      int streamDependency,
      short weight,
      boolean exclusive,
      int padding,
      boolean endOfStream)
      throws Http2Exception {
    onHeadersRead(ctx, streamId, headers, padding, endOfStream);
  }

  @Override
  public void onPriorityRead(
      ChannelHandlerContext ctx, int streamId, int streamDependency, short weight, boolean exclusive)
      throws Http2Exception {
    controlFrame(false, "PRIORITY");
  }

  @Override
  public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) throws Http2Exception {
    Http2Stream stream = connection().stream(streamId);
    if (stream != null) {
      // Frames the peer sent after its RST_STREAM are a stream error (RFC 9113 5.1), not the
      // connection error that frames after its END_STREAM are.
      history.onPeerReset(streamId);
    }
    StreamSink sink = stream == null ? null : stream.getProperty(sinkKey);
    if (stream != null && connection().isServer() && !stream.isResetSent()
        && connection().remote().isValidStreamId(streamId)
        && ((!stream.isHeadersSent() && (sink == null || !sink.answerHeld())) || streamId >= firstOpenedThisRead)) {
      earlyReset();
    }
    if (sink != null) {
      sink.onReset(stream, errorCode);
    }
  }

  @Override
  public void onSettingsAckRead(ChannelHandlerContext ctx) throws Http2Exception {
    controlFrame(true, "SETTINGS ack");
    if (connection().isServer()) {
      raiseRemoteCap();
    }
  }

  @Override
  public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) throws Http2Exception {
    controlFrame(true, "SETTINGS");
    if (!settingsSeen) {
      settingsSeen = true;
      if (router != null) {
        router.onPreface(this);
      }
    }
    // The ACK applies the settings (see Builder.settings): after what the router sent, before the
    // listeners, which read them applied.
    encoder().writeSettingsAck(ctx, ctx.newPromise());
    for (ConnectionListener l : listeners.toArray(new ConnectionListener[0])) {
      l.onSettings(settings);
    }
  }

  @Override
  public void onPingRead(ChannelHandlerContext ctx, long data) throws Http2Exception {
    controlFrame(false, "PING");
    for (int i = 0; i < listeners.size(); i++) {
      listeners.get(i).onPing(data);
    }
  }

  @Override
  public void onPingAckRead(ChannelHandlerContext ctx, long data) throws Http2Exception {
    controlFrame(false, "PING ack");
    for (int i = 0; i < listeners.size(); i++) {
      listeners.get(i).onPingAck(data);
    }
  }

  @Override
  public void onPushPromiseRead(
      ChannelHandlerContext ctx, int streamId, int promisedStreamId, Http2Headers headers, int padding)
      throws Http2Exception {
    // Push is disabled in our SETTINGS; netty's decoder refuses a push promise before this.
    throw Http2Exception.connectionError(Http2Error.PROTOCOL_ERROR, "push promise not enabled");
  }

  @Override
  public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
    for (ConnectionListener l : listeners.toArray(new ConnectionListener[0])) {
      l.onGoAway(lastStreamId, errorCode, debugData);
    }
  }

  @Override
  public void onWindowUpdateRead(ChannelHandlerContext ctx, int streamId, int windowSizeIncrement)
      throws Http2Exception {
    controlFrame(false, "WINDOW_UPDATE");
  }

  @Override
  public void onUnknownFrame(
      ChannelHandlerContext ctx, byte frameType, int streamId, Http2Flags flags, ByteBuf payload)
      throws Http2Exception {
    controlFrame(false, "unknown frame");
  }

  /** Sends GOAWAY with {@code debug} (released here) and keeps the connection open. */
  public void goAway(long errorCode, ByteBuf debug) {
    int last = connection().remote().lastStreamCreated();
    goAway(ctx, last, errorCode, debug, ctx.newPromise());
    flush(ctx);
  }

  /** A promise for a write of this connection. */
  public ChannelPromise newPromise() {
    return ctx.newPromise();
  }
}
