package io.sluice.fuzz;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.exceptions.SluiceException;
import io.sluice.internal.SluiceConnection;
import io.sluice.test.FrameBuilder;
import io.sluice.transport.FrameTooLargeException;
import io.sluice.transport.netty.internal.NettyDuplexTransport;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.LogRecord;

/**
 * Runs one fuzz input through the real inbound path and checks the outcome.
 *
 * <p><b>Path.</b> The bytes go into a netty {@link EmbeddedChannel} whose pipeline ends in the
 * real {@link NettyDuplexTransport} (the TCP transport's u24 length-prefix splitter and max frame
 * size check), which hands each frame to a real {@link SluiceConnection} (frame validation and
 * the protocol engine), server or client side, with an {@link EchoResponder} that answers
 * everything. The embedded event loop runs on the calling thread; its clock is frozen, so timers
 * fire only when the input asks for it and a run is deterministic.
 *
 * <p><b>Input format.</b> {@code input[0]} is the configuration byte, {@code input[1]} the read
 * size, the rest are the bytes the peer sends:
 *
 * <ul>
 *   <li>bits 0-1 of the configuration: 0 a server fed raw bytes (the input must bring its own
 *       SETUP), 1 a server that first gets a valid SETUP (so the fuzzer works on an established
 *       connection), 2 the same with a SETUP that asks for leases, 3 a client (the input plays the
 *       server);
 *   <li>bit 2 ({@link #OPT_LOCAL_REQUESTS}): the fuzzed side also starts requests towards the
 *       peer ({@link LocalRequests}), so the input reaches the requester paths;
 *   <li>bit 3 ({@link #OPT_MTU}): MTU 64 (answers are fragmented), otherwise no fragmentation;
 *   <li>bit 4 ({@link #OPT_CLIENT_LEASE}): a client asks for leases;
 *   <li>bit 5 ({@link #OPT_ADVANCE_TIME}): after the input, the clock moves 1.5 s, firing the
 *       setup timeout, keepalive, lease and drain timers;
 *   <li>bit 6 ({@link #OPT_GRACEFUL}): the connection is first closed gracefully (CONNECTION_CLOSE
 *       and draining), then disposed;
 *   <li>{@code input[1]}: 0 delivers the bytes in one read, n &gt; 0 in reads of n bytes (each with
 *       its read-complete), which exercises the splitter's partial frames.
 * </ul>
 *
 * <p><b>Checks</b> after the connection is closed and the loop is idle: no exception escaped (from
 * the pipeline, the loop's tasks or the engine's catch-all, which logs a warning and sends
 * "internal error"); the connection closed, only ever with a protocol error as its cause; the
 * responder saw the close and every responder stream got a terminal signal; every buffer
 * allocated during the run was released; and what the engine sent obeys the rules in {@link
 * WireCheck}.
 */
final class InboundHarness {
  static final int MODE_SERVER_RAW = 0;
  static final int MODE_SERVER_SETUP = 1;
  static final int MODE_SERVER_SETUP_LEASE = 2;
  static final int MODE_CLIENT = 3;
  static final int OPT_LOCAL_REQUESTS = 0x04;
  static final int OPT_MTU = 0x08;
  static final int OPT_CLIENT_LEASE = 0x10;
  static final int OPT_ADVANCE_TIME = 0x20;
  static final int OPT_GRACEFUL = 0x40;

  /** {@code -Dsluice.fuzz.verbose=true}: print what each input made the engine send. */
  static boolean verbose() {
    return Boolean.getBoolean("sluice.fuzz.verbose");
  }

  /** Rounds of "run what is queued" after which a loop that still has work counts as runaway. */
  static final int MAX_DRIVE_ROUNDS = 64;

  static final int MAX_FRAME_SIZE = 2048;
  static final int MAX_REASSEMBLED_SIZE = 600;
  static final int MAX_ACTIVE_STREAMS = 4;
  static final int MAX_QUEUED_OUTBOUND_BYTES = 1024;
  static final int LEASE_TTL_MILLIS = 1000;
  static final int LEASE_REQUESTS = 2;

  /** The SETUP a server gets before the input in modes 1 and 2 (length-prefixed). */
  static byte[] setupPrefix(boolean lease) {
    return FrameBuilder.lengthPrefixed(
        FrameBuilder.setup().keepAlive(1_000).lifetime(5_000).lease(lease).data("fuzz").toBytes());
  }

  private static final byte[] SETUP = setupPrefix(false);
  private static final byte[] SETUP_LEASE = setupPrefix(true);

  static ConnectionOptions options(int config) {
    return ConnectionOptions.builder()
        .keepAlive(Duration.ofMillis(1_000), Duration.ofMillis(5_000))
        .mtu((config & OPT_MTU) != 0 ? ConnectionOptions.MIN_MTU : 0)
        .maxFrameSize(MAX_FRAME_SIZE)
        .maxReassembledSize(MAX_REASSEMBLED_SIZE)
        .maxActiveStreams(MAX_ACTIVE_STREAMS)
        .maxQueuedOutboundBytes(MAX_QUEUED_OUTBOUND_BYTES)
        .setupTimeout(Duration.ofMillis(1_000))
        .drainTimeout(Duration.ofMillis(1_000))
        .outboundWindow(4)
        .lease((config & 3) == MODE_CLIENT && (config & OPT_CLIENT_LEASE) != 0)
        .leaseGrant(LEASE_TTL_MILLIS, LEASE_REQUESTS)
        .build();
  }

  private final byte[] input;
  private final int config;
  private final int readSize;
  private final int mode;
  private final boolean client;
  private final TrackingAllocator alloc;
  private final EmbeddedChannel channel;
  private final WireCheck wire;
  private final List<String> failures = new ArrayList<>();
  private Throwable firstCause;

  private SluiceConnection conn;
  private EchoResponder responder;
  private boolean accepted;

  private final Function<ByteBufAllocator, EchoResponder> responders;

  private InboundHarness(
      byte[] input,
      boolean recordAllocationSites,
      Function<ByteBufAllocator, EchoResponder> responders) {
    this.responders = responders;
    this.input = input;
    this.config = input.length > 0 ? input[0] & 0xFF : 0;
    this.readSize = input.length > 1 ? input[1] & 0xFF : 0;
    this.mode = config & 3;
    this.client = mode == MODE_CLIENT;
    this.alloc = new TrackingAllocator(recordAllocationSites);
    this.wire = new WireCheck(client);
    this.channel = new SocketLikeChannel(wire);
  }

  /**
   * Runs {@code input} and throws an {@link AssertionError} describing every check that failed.
   *
   * @param recordAllocationSites remember where each buffer was allocated (slower; for reports)
   */
  static void run(byte[] input, boolean recordAllocationSites) {
    run(input, recordAllocationSites, EchoResponder::new);
  }

  /** Same, with another responder (the harness's self-test plants bugs in one). */
  static void run(
      byte[] input,
      boolean recordAllocationSites,
      Function<ByteBufAllocator, EchoResponder> responders) {
    Watchdog.begin(input);
    try {
      new InboundHarness(input, recordAllocationSites, responders).runAndCheck();
    } finally {
      Watchdog.end();
    }
  }

  private void runAndCheck() {
    LogCapture.take(); // whatever an earlier input left behind is not this one's
    CheckedHandle.take();
    try {
      exercise();
    } catch (Throwable t) {
      fail("an exception escaped to the caller: " + t, t);
    }
    try {
      shutDown();
    } catch (Throwable t) {
      fail("an exception escaped while closing: " + t, t);
    }
    check();
    if (!failures.isEmpty()) {
      alloc.releaseAll();
      StringBuilder s = new StringBuilder();
      s.append(failures.size()).append(failures.size() == 1 ? " check failed" : " checks failed");
      s.append(" for input ").append(HexFormat.of().formatHex(input));
      for (String f : failures) {
        s.append(System.lineSeparator()).append(" - ").append(f);
      }
      throw new AssertionError(s.toString(), firstCause);
    }
  }

  private void fail(String what, Throwable cause) {
    failures.add(what);
    if (firstCause == null && cause != null) {
      firstCause = cause;
    }
  }

  // ---- the run ---------------------------------------------------------------------------------

  private void exercise() {
    channel.freezeTime();
    channel.config().setAllocator(alloc);
    NettyDuplexTransport transport = new NettyDuplexTransport(channel);
    channel.pipeline().addLast(transport);
    ConnectionOptions options = options(config);
    boolean localRequests = (config & OPT_LOCAL_REQUESTS) != 0;

    if (client) {
      conn =
          SluiceConnection.client(
              transport,
              options,
              ClientSetup.defaults(),
              requester -> {
                responder = responders.apply(alloc);
                return responder;
              });
      if (localRequests) {
        // At once, or at the server's first LEASE when leasing.
        SluiceConnection c = conn;
        c.ready().thenRun(() -> LocalRequests.start(c, alloc));
      }
    } else {
      conn =
          SluiceConnection.server(
              transport,
              options,
              (setup, requester) -> {
                setup.payload().data().readableBytes(); // owned by the core: read, not released
                accepted = true;
                if (localRequests) {
                  if (setup.leaseRequested()) {
                    // Requests may go once the client granted a LEASE.
                    ((SluiceConnection) requester)
                        .ready()
                        .thenRun(() -> LocalRequests.start(requester, alloc));
                  } else {
                    // After the SETUP is handled (requests are refused until it is).
                    channel.eventLoop().execute(() -> LocalRequests.start(requester, alloc));
                  }
                }
                responder = responders.apply(alloc);
                return responder;
              });
    }
    drive();

    if (mode == MODE_SERVER_SETUP || mode == MODE_SERVER_SETUP_LEASE) {
      byte[] setup = mode == MODE_SERVER_SETUP ? SETUP : SETUP_LEASE;
      feed(setup, 0, setup.length);
    }
    int from = Math.min(2, input.length);
    int step = readSize == 0 ? Integer.MAX_VALUE : readSize;
    for (int off = from; off < input.length && channel.isOpen(); ) {
      int n = Math.min(step, input.length - off);
      feed(input, off, n);
      off += n;
    }

    if ((config & OPT_ADVANCE_TIME) != 0 && channel.isOpen()) {
      channel.advanceTimeBy(1_500, TimeUnit.MILLISECONDS);
      drive();
    }
    if ((config & OPT_GRACEFUL) != 0 && channel.isOpen()) {
      conn.close();
      drive();
      channel.advanceTimeBy(1_100, TimeUnit.MILLISECONDS); // the drain timeout
      drive();
    }
  }

  /**
   * An embedded channel that, like a socket, takes what is flushed at once: the bytes go to the
   * {@link WireCheck} and the buffer is released during the flush. (A plain EmbeddedChannel keeps
   * flushed buffers alive in a queue, which would hide an engine that writes into a buffer after
   * handing it to the transport.)
   */
  private static final class SocketLikeChannel extends EmbeddedChannel {
    private final WireCheck wire;

    SocketLikeChannel(WireCheck wire) {
      this.wire = wire;
    }

    @Override
    protected void handleOutboundMessage(Object msg) {
      try {
        if (msg instanceof ByteBuf) {
          wire.add((ByteBuf) msg);
        } else {
          wire.foreign(msg);
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }
  }

  /** One read of {@code n} bytes of {@code bytes} from {@code off}, then the loop runs. */
  private void feed(byte[] bytes, int off, int n) {
    if (!channel.isOpen()) {
      return;
    }
    ByteBuf read = alloc.buffer(n);
    read.writeBytes(bytes, off, n);
    channel.writeInbound(read);
    drive();
  }

  /** Runs the loop until it has nothing left to do now, collecting what was written. */
  private void drive() {
    for (int round = 0; round < MAX_DRIVE_ROUNDS; round++) {
      channel.runPendingTasks();
      collectOutbound();
      if (!channel.hasPendingTasks()) {
        return;
      }
    }
    throw new AssertionError(
        "the event loop still had work after " + MAX_DRIVE_ROUNDS + " rounds (runaway loop)");
  }

  private void collectOutbound() {
    // SocketLikeChannel consumes writes as they are flushed; nothing should be left queued.
    Object o;
    while ((o = channel.readOutbound()) != null) {
      ReferenceCountUtil.release(o);
      fail("a write was left in the embedded channel's outbound queue", null);
    }
  }

  private void shutDown() {
    try {
      if (conn != null) {
        conn.dispose();
        drive();
      }
    } finally {
      channel.close();
      drive();
      collectOutbound();
      try {
        channel.checkException();
      } catch (Throwable t) {
        fail("the channel recorded an exception: " + t, t);
      }
      channel.finishAndReleaseAll();
    }
  }

  // ---- the checks ------------------------------------------------------------------------------

  private void check() {
    for (Throwable t : CheckedHandle.take()) {
      fail(
          "the engine threw at the application (a StreamHandle or Requester call): "
              + t
              + System.lineSeparator()
              + stack(t),
          t);
    }
    for (LogRecord r : LogCapture.take()) {
      fail(
          "the engine logged "
              + r.getLevel()
              + " from "
              + r.getLoggerName()
              + ": "
              + java.text.MessageFormat.format(
                  String.valueOf(r.getMessage()), r.getParameters() == null ? new Object[0] : r.getParameters())
              + (r.getThrown() != null ? System.lineSeparator() + stack(r.getThrown()) : ""),
          r.getThrown());
    }
    if (conn != null) {
      if (!conn.onClose().isDone()) {
        fail("the connection is not closed after dispose() and the channel's close", null);
      } else {
        Throwable cause = conn.onClose().handle((v, e) -> e).getNow(null);
        if (cause instanceof CompletionException && cause.getCause() != null) {
          cause = cause.getCause();
        }
        for (Throwable t = cause; t != null; t = t.getCause()) {
          if (!(t instanceof SluiceException) && !(t instanceof FrameTooLargeException)) {
            fail(
                "the connection closed because of an unexpected exception: "
                    + t
                    + System.lineSeparator()
                    + stack(t),
                t);
            break;
          }
          if (t.getCause() == t) {
            break;
          }
        }
      }
      if (conn.activeStreams() != 0) {
        fail(conn.activeStreams() + " streams are still registered after the close", null);
      }
    }
    if (responder != null) {
      if (!responder.closed()) {
        fail("Responder.onClose was not called", null);
      }
      for (String h : responder.holding()) {
        fail("a responder stream never got a terminal signal: " + h, null);
      }
    }
    List<WireCheck.Frame> sent = new ArrayList<>();
    byte[] peer = Arrays.copyOfRange(input, Math.min(2, input.length), input.length);
    if (mode == MODE_SERVER_SETUP || mode == MODE_SERVER_SETUP_LEASE) {
      byte[] setup = mode == MODE_SERVER_SETUP ? SETUP : SETUP_LEASE;
      byte[] all = Arrays.copyOf(setup, setup.length + peer.length);
      System.arraycopy(peer, 0, all, setup.length, peer.length);
      peer = all;
    }
    for (String v : wire.violations(accepted, peer, sent)) {
      fail(v + " (sent: " + abbreviate(sent) + ")", null);
    }
    if (verbose()) {
      System.out.println(
          "sluice-fuzz: input "
              + HexFormat.of().formatHex(input)
              + System.lineSeparator()
              + "  config=0x"
              + Integer.toHexString(config)
              + " readSize="
              + readSize
              + " accepted="
              + accepted
              + " closeCause="
              + (conn == null ? null : conn.onClose().handle((v, e) -> e).getNow(null))
              + System.lineSeparator()
              + "  sent "
              + sent);
    }
    List<String> leaks = alloc.unreleased();
    if (!leaks.isEmpty()) {
      StringBuilder s = new StringBuilder();
      s.append(leaks.size())
          .append(" of ")
          .append(alloc.allocations())
          .append(" buffers allocated during the run were not released:");
      for (String l : leaks) {
        s.append(System.lineSeparator()).append("   ").append(l);
      }
      fail(s.toString(), null);
    }
  }

  private static String abbreviate(List<WireCheck.Frame> sent) {
    if (sent.size() <= 12) {
      return sent.toString();
    }
    return sent.subList(0, 6) + " ... " + sent.subList(sent.size() - 6, sent.size());
  }

  private static String stack(Throwable t) {
    StringWriter w = new StringWriter();
    t.printStackTrace(new PrintWriter(w));
    return w.toString();
  }
}
