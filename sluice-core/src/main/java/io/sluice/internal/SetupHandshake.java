package io.sluice.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.Acceptor;
import io.sluice.ErrorCode;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.SetupInfo;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.exceptions.RejectedSetupException;
import io.sluice.exceptions.SluiceException;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.Frames;
import io.sluice.internal.frame.Setup;
import java.util.concurrent.TimeUnit;

/**
 * The SETUP exchange. A client writes its SETUP first thing; a server waits for it (at most
 * {@link ConnectionOptions#setupTimeout()}), checks it, asks the acceptor for a responder, and
 * starts keepalive checks and leasing as the client asked, within the server's bounds. Confined to
 * the connection's event loop.
 */
final class SetupHandshake {
  private final SluiceConnection conn;
  private final Acceptor acceptor;
  private ScheduledFuture<?> timeoutTask;

  SetupHandshake(SluiceConnection conn, Acceptor acceptor) {
    this.conn = conn;
    this.acceptor = acceptor;
  }

  /** Client: writes SETUP (not flushed) and releases the setup payload. */
  void writeClientSetup(ClientSetup setup) {
    ConnectionOptions options = conn.options;
    Message payload = setup.payload();
    if (conn.streams.counters != null) {
      conn.streams.counters.open();
    }
    ByteBuf token =
        conn.transport instanceof ResumableSession
            ? Unpooled.wrappedBuffer(((ResumableSession) conn.transport).token)
            : null;
    try {
      ByteBuf metadata = payload != null && payload.hasMetadata() ? payload.metadata() : null;
      ByteBuf data = payload != null ? payload.data() : Unpooled.EMPTY_BUFFER;
      int size =
          Setup.MIN_SIZE
              + setup.metadataMimeType().length()
              + setup.dataMimeType().length()
              + (token != null ? 2 + token.readableBytes() : 0)
              + Frames.payloadSize(metadata, data);
      ByteBuf out = conn.out.beginFrame(FrameType.SETUP, size);
      Setup.write(
          out,
          options.lease(),
          (int) options.keepAliveInterval().toMillis(),
          (int) options.keepAliveMaxLifetime().toMillis(),
          token,
          setup.metadataMimeType(),
          setup.dataMimeType(),
          metadata,
          data);
      conn.out.endFrame(out);
    } finally {
      if (payload != null) {
        payload.release();
      }
    }
  }

  /** Server: a client that sends no SETUP within the setup timeout is cut off. */
  void startTimeout() {
    long timeout = conn.options.setupTimeout().toMillis();
    if (conn.streams.counters != null) {
      conn.streams.counters.open();
    }
    timeoutTask =
        conn.loop.schedule(
            () -> {
              if (conn.state == SluiceConnection.AWAITING_SETUP) {
                conn.in.limitHit(io.sluice.core.ConnectionStats.Limit.SETUP_TIMEOUT);
                conn.connectionError(
                    ErrorCode.INVALID_SETUP, "no SETUP within " + timeout + " ms", null);
              }
            },
            timeout,
            TimeUnit.MILLISECONDS);
  }

  void cancelTimeout() {
    SluiceConnection.cancel(timeoutTask);
  }

  /** Refuses the SETUP with {@code code} and closes, counted as a protocol error. */
  private void refuseSetup(int code, String message, Throwable cause) {
    conn.in.closing(io.sluice.core.ConnectionStats.CloseCause.PROTOCOL_ERROR);
    conn.connectionError(code, message, cause);
  }

  /** The first frame a server receives, which must be SETUP: accept or refuse the client. */
  void onSetupFrame(ByteBuf frame) {
    int type = Frames.type(frame);
    if (Frames.streamId(frame) != 0 || (type != FrameType.SETUP && type != FrameType.RESUME)) {
      refuseSetup(
          ErrorCode.INVALID_SETUP,
          "first frame must be SETUP or RESUME on stream 0, got " + Frames.describe(frame),
          null);
      return;
    }
    if (type == FrameType.RESUME) {
      refuseSetup(ErrorCode.REJECTED_RESUME, "resumption is not supported", null);
      return;
    }
    if (Setup.majorVersion(frame) != Frames.MAJOR_VERSION) {
      refuseSetup(
          ErrorCode.UNSUPPORTED_SETUP,
          "unsupported version " + Setup.majorVersion(frame) + "." + Setup.minorVersion(frame),
          null);
      return;
    }
    int keepAlive = Setup.keepAliveInterval(frame);
    int lifetime = Setup.maxLifetime(frame);
    if (keepAlive <= 0 || lifetime <= 0) {
      refuseSetup(
          ErrorCode.INVALID_SETUP,
          "keepalive interval and max lifetime must be positive, got "
              + keepAlive
              + " and "
              + lifetime,
          null);
      return;
    }
    if (Setup.resumeRequested(frame) && !(conn.transport instanceof ResumableSession)) {
      refuseSetup(ErrorCode.REJECTED_SETUP, "resumption is not supported", null);
      return;
    }
    SluiceConnection.cancel(timeoutTask);
    ByteBuf md = Frames.metadata(frame);
    Message payload =
        Message.of(
            md == null ? null : md.retain(), Frames.data(frame).retain());
    SetupView view = new SetupView(frame, payload);
    Responder accepted;
    conn.commands.deferring = true; // requests the acceptor makes start once it has accepted
    try {
      accepted = acceptor.accept(view, conn);
      if (accepted == null) {
        throw new RejectedSetupException("acceptor returned no responder");
      }
    } catch (Throwable t) {
      int code = ErrorCode.REJECTED_SETUP;
      if (t instanceof SluiceException
          && ((SluiceException) t).errorCode() >= ErrorCode.INVALID_SETUP
          && ((SluiceException) t).errorCode() <= ErrorCode.REJECTED_SETUP) {
        code = ((SluiceException) t).errorCode();
      }
      refuseSetup(code, Errors.message(t), null);
      return;
    } finally {
      conn.commands.deferring = false;
      payload.release();
    }
    conn.responder = accepted;
    conn.setState(SluiceConnection.ESTABLISHED);
    // The client chooses, within the server's bounds: a lifetime no longer than the ceiling, and
    // a check period no shorter than the floor (nor longer than the lifetime).
    long lifetimeMillis = Math.min(lifetime, conn.options.maxPeerKeepAliveLifetime().toMillis());
    long checkMillis =
        Math.max(conn.options.minPeerKeepAliveInterval().toMillis(), Math.min(keepAlive, lifetimeMillis));
    if (lifetimeMillis < lifetime) {
      conn.in.limitHit(io.sluice.core.ConnectionStats.Limit.MAX_PEER_KEEPALIVE_LIFETIME);
    }
    if (checkMillis > keepAlive && keepAlive < lifetimeMillis) {
      conn.in.limitHit(io.sluice.core.ConnectionStats.Limit.MIN_PEER_KEEPALIVE_INTERVAL);
    }
    // The server does not send keepalives (rsocket-java#1128), it only checks the client's.
    conn.keepAlive.start(checkMillis, TimeUnit.MILLISECONDS.toNanos(lifetimeMillis), false);
    if (Setup.leaseRequested(frame)) {
      conn.lease.startGrants();
    }
  }

  private static final class SetupView implements SetupInfo {
    private final int major;
    private final int minor;
    private final int keepAlive;
    private final int lifetime;
    private final String metadataMime;
    private final String dataMime;
    private final boolean lease;
    private final Message payload;

    SetupView(ByteBuf frame, Message payload) {
      major = Setup.majorVersion(frame);
      minor = Setup.minorVersion(frame);
      keepAlive = Setup.keepAliveInterval(frame);
      lifetime = Setup.maxLifetime(frame);
      metadataMime = Setup.metadataMimeType(frame);
      dataMime = Setup.dataMimeType(frame);
      lease = Setup.leaseRequested(frame);
      this.payload = payload;
    }

    @Override
    public int majorVersion() {
      return major;
    }

    @Override
    public int minorVersion() {
      return minor;
    }

    @Override
    public int keepAliveIntervalMillis() {
      return keepAlive;
    }

    @Override
    public int keepAliveMaxLifetimeMillis() {
      return lifetime;
    }

    @Override
    public String metadataMimeType() {
      return metadataMime;
    }

    @Override
    public String dataMimeType() {
      return dataMime;
    }

    @Override
    public boolean leaseRequested() {
      return lease;
    }

    @Override
    public Message payload() {
      return payload;
    }
  }
}
