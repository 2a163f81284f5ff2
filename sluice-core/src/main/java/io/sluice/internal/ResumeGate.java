package io.sluice.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.sluice.Acceptor;
import io.sluice.ErrorCode;
import io.sluice.core.ConnectionOptions;
import io.sluice.internal.ResumeSessions.Refusal;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.FrameValidator;
import io.sluice.internal.frame.Frames;
import io.sluice.internal.frame.Setup;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FramePrefix;
import io.sluice.transport.FrameReceiver;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The first frame of a connection to a server that offers resumption decides what serves it: a
 * SETUP with the R flag makes a new {@link ResumableSession} (registered in the server's {@link
 * ResumeSessions}) under a new engine; a RESUME is checked (rate bound, token, then positions on
 * the session's own loop) and hands the transport to the session it names; anything else gets a
 * plain engine, as on a server without resumption. Confined to the accepted transport's loop.
 */
public final class ResumeGate implements FrameReceiver {
  private static final InternalLogger logger = InternalLoggerFactory.getInstance(ResumeGate.class);
  /** Longest resume token accepted (rsocket-java sends 16 bytes, Sluice 16). */
  static final int MAX_TOKEN_LENGTH = 256;

  private final DuplexTransport phys;
  private final ConnectionOptions options;
  private final Acceptor acceptor;
  private final ResumeSessions sessions;
  private final Consumer<SluiceConnection> onConnection;
  private final Adopted adopted = new Adopted();
  private FrameReceiver delegate;
  private boolean decided;
  private boolean closed;
  private ScheduledFuture<?> timeout;

  private ResumeGate(
      DuplexTransport phys,
      ConnectionOptions options,
      Acceptor acceptor,
      ResumeSessions sessions,
      Consumer<SluiceConnection> onConnection) {
    this.phys = phys;
    this.options = options;
    this.acceptor = acceptor;
    this.sessions = sessions;
    this.onConnection = onConnection;
  }

  /** Serves one accepted connection; call on its event loop. */
  public static void serve(
      DuplexTransport phys,
      ConnectionOptions options,
      Acceptor acceptor,
      ResumeSessions sessions,
      Consumer<SluiceConnection> onConnection) {
    ResumeGate g = new ResumeGate(phys, options, acceptor, sessions, onConnection);
    phys.start(g);
    if (!g.closed) {
      long ms = options.setupTimeout().toMillis();
      g.timeout =
          phys.executor()
              .schedule(
                  () -> {
                    if (!g.decided) {
                      g.decided = true;
                      g.refuse(ErrorCode.INVALID_SETUP, "no SETUP or RESUME within " + ms + " ms");
                    }
                  },
                  ms,
                  TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public int maxFrameSize() {
    return options.maxFrameSize();
  }

  @Override
  public int maxQueuedOutboundBytes() {
    return options.maxQueuedOutboundBytes();
  }

  @Override
  public void onFrame(ByteBuf frame) {
    if (delegate != null) {
      delegate.onFrame(frame);
      return;
    }
    if (decided) {
      // A client sends nothing after RESUME until RESUME_OK: this one breaks the protocol.
      phys.close();
      return;
    }
    decided = true;
    SluiceConnection.cancel(timeout);
    int size = frame.readableBytes();
    int type = size >= Frames.HEADER_SIZE ? Frames.type(frame) : -1;
    boolean stream0 = size >= Frames.HEADER_SIZE && Frames.streamId(frame) == 0;
    if (stream0 && type == FrameType.RESUME) {
      onResume(frame);
    } else if (stream0
        && type == FrameType.SETUP
        && FrameValidator.validate(frame) == null
        && Setup.resumeRequested(frame)) {
      onResumableSetup(frame);
    } else {
      plain(frame);
    }
  }

  private void plain(ByteBuf first) {
    SluiceConnection c;
    try {
      c = SluiceConnection.server(adopted, options, acceptor);
    } catch (RuntimeException e) {
      logger.warn("cannot serve a connection over {}; closing it", phys, e);
      phys.close();
      return;
    }
    onConnection.accept(c);
    if (delegate != null) {
      delegate.onFrame(first);
    }
  }

  private void onResumableSetup(ByteBuf setup) {
    ByteBuf t = Setup.resumeToken(setup);
    if (t.readableBytes() == 0 || t.readableBytes() > MAX_TOKEN_LENGTH) {
      refuse(
          ErrorCode.INVALID_SETUP,
          "resume token of " + t.readableBytes() + " bytes (1 to " + MAX_TOKEN_LENGTH + " accepted)");
      return;
    }
    byte[] token = ByteBufUtil.getBytes(t);
    ServerOwner owner = new ServerOwner();
    ResumableSession s =
        ResumableSession.server(adopted, sessions.config, token, sessions.budget, owner);
    owner.session = s;
    SocketAddress remote = phys.remoteAddress();
    Refusal why = sessions.maySetUp(remote) ? sessions.register(s) : Refusal.FULL;
    if (why != null) {
      s.store.release();
      if (why == Refusal.TOKEN_IN_USE) {
        sessions.failedSetup(remote);
      }
      // One answer for every reason: a guesser must not learn that a token is in use.
      refuse(ErrorCode.REJECTED_SETUP, NO_SESSION);
      return;
    }
    SluiceConnection c;
    try {
      c = SluiceConnection.server(s, options, acceptor);
    } catch (RuntimeException e) {
      sessions.remove(s);
      logger.warn("cannot serve a connection over {}; closing it", phys, e);
      phys.close();
      return;
    }
    onConnection.accept(c);
    if (delegate != null) {
      delegate.onFrame(setup);
    }
  }

  /**
   * The one refusal of a resumable SETUP, whatever the reason: the server holds its most sessions,
   * its store budget has no room for one more, too many refused SETUPs came from this address, or
   * (never said) the token is in use.
   */
  static final String NO_SESSION =
      "the server takes no more resumable sessions now (Resumption.maxSessions,"
          + " maxTotalStoreBytes); try again later or connect without resumption";

  /**
   * The refusal of a RESUME while failed attempts are over their bound: a Sluice client takes it as
   * a lost connection and tries again (with backoff, until its session timeout), not as the end.
   */
  static final String TRY_AGAIN = "too many failed RESUME attempts; try again later";

  private void onResume(ByteBuf frame) {
    SocketAddress remote = phys.remoteAddress();
    if (!sessions.mayTry(remote)) {
      // Not a failed lookup: counting it would keep the bound reached for as long as one peer
      // floods, and refuse every honest client's resume meanwhile.
      refuse(ErrorCode.REJECTED_RESUME, TRY_AGAIN);
      return;
    }
    String bad = FrameValidator.validate(frame);
    if (bad != null || Frames.resumeMajor(frame) != Frames.MAJOR_VERSION) {
      sessions.failed(remote);
      refuse(
          ErrorCode.REJECTED_RESUME,
          bad != null ? bad : "unsupported version " + Frames.resumeMajor(frame));
      return;
    }
    if (sessions.isStopping()) {
      refuse(ErrorCode.REJECTED_RESUME, "the server is stopping");
      return;
    }
    byte[] token = ByteBufUtil.getBytes(Frames.resumeToken(frame));
    ResumableSession s = sessions.find(token);
    if (s == null) {
      sessions.failed(remote);
      refuse(ErrorCode.REJECTED_RESUME, "no session for this resume token");
      return;
    }
    long serverPos = Frames.resumeLastReceivedServerPosition(frame);
    long clientPos = Frames.resumeFirstAvailableClientPosition(frame);
    EventExecutor here = phys.executor();
    DuplexTransport forSession = s.loop == here ? adopted : new LoopBridge(adopted, s.loop);
    s.loop.execute(
        () -> {
          String refusal = s.resume(forSession, serverPos, clientPos);
          if (refusal != null) {
            sessions.failed(remote);
            here.execute(() -> refuse(ErrorCode.REJECTED_RESUME, refusal));
          }
        });
  }

  /** Answers ERROR[code] on stream 0 and closes. */
  private void refuse(int code, String message) {
    if (closed) {
      return;
    }
    ByteBuf err = phys.alloc().buffer(Frames.HEADER_SIZE + Frames.errorSize(message));
    Frames.writeError(err, 0, code, message);
    ResumeFrames.writeSingle(phys, err);
    phys.close();
  }

  @Override
  public void onReadComplete() {
    if (delegate != null) {
      delegate.onReadComplete();
    }
  }

  @Override
  public void onWritabilityChanged(boolean writable) {
    if (delegate != null) {
      delegate.onWritabilityChanged(writable);
    }
  }

  @Override
  public void onTransportError(Throwable cause) {
    if (delegate != null) {
      delegate.onTransportError(cause);
    } else {
      phys.close();
    }
  }

  @Override
  public void onClosed() {
    if (closed) {
      return;
    }
    closed = true;
    SluiceConnection.cancel(timeout);
    if (delegate != null) {
      delegate.onClosed();
    }
  }

  /** Takes a server's session out of the store when it ends. */
  private final class ServerOwner implements ResumableSession.Owner {
    ResumableSession session;

    @Override
    public void closed() {
      sessions.remove(session);
    }
  }

  /** The accepted transport, already started by the gate, as the engine or a session uses it. */
  private final class Adopted implements DuplexTransport {
    @Override
    public Framing framing() {
      return phys.framing();
    }

    @Override
    public FramePrefix framePrefix() {
      return phys.framePrefix();
    }

    @Override
    public EventExecutor executor() {
      return phys.executor();
    }

    @Override
    public ByteBufAllocator alloc() {
      return phys.alloc();
    }

    @Override
    public void start(FrameReceiver receiver) {
      delegate = receiver;
      if (closed) {
        receiver.onClosed();
      }
    }

    @Override
    public void write(ByteBuf buf) {
      phys.write(buf);
    }

    @Override
    public void flush() {
      phys.flush();
    }

    @Override
    public boolean isWritable() {
      return phys.isWritable();
    }

    @Override
    public long outboundProgress() {
      return phys.outboundProgress();
    }

    @Override
    public long unsentBytes() {
      return phys.unsentBytes();
    }

    @Override
    public void setReadEnabled(boolean enabled) {
      phys.setReadEnabled(enabled);
    }

    @Override
    public void close() {
      phys.close();
    }

    @Override
    public SocketAddress remoteAddress() {
      return phys.remoteAddress();
    }

    @Override
    public String name() {
      return phys.name();
    }

    @Override
    public boolean supportsResumption() {
      return phys.supportsResumption();
    }
  }
}
