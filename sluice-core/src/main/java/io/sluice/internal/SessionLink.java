package io.sluice.internal;

import io.netty.buffer.ByteBuf;
import io.sluice.exceptions.ConnectionErrorException;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.DuplexTransport.Framing;
import io.sluice.transport.FramePrefix;
import io.sluice.transport.FrameReceiver;

/**
 * One real transport under a {@link ResumableSession}, and the receiver of its frames: passes
 * them to the session while it is the session's current, live transport, and tells the session
 * when it closes. Confined to the session's event loop.
 */
final class SessionLink implements FrameReceiver {
  private final ResumableSession s;
  final DuplexTransport phys;
  final Framing framing;
  final FramePrefix prefix;
  boolean awaitingResumeOk;
  boolean dead;

  SessionLink(ResumableSession s, DuplexTransport phys) {
    this.s = s;
    this.phys = phys;
    this.framing = phys.framing();
    this.prefix = framing == Framing.TRANSPORT_PREFIXED ? phys.framePrefix() : null;
  }

  private boolean current() {
    return this == s.link && !dead && !s.closed;
  }

  @Override
  public int maxFrameSize() {
    return s.core.maxFrameSize();
  }

  @Override
  public int maxQueuedOutboundBytes() {
    return s.core.maxQueuedOutboundBytes();
  }

  @Override
  public void onFrame(ByteBuf frame) {
    if (!current()) {
      return;
    }
    if (awaitingResumeOk) {
      s.handshake.onResumeAnswer(this, frame);
    } else if (s.attached) {
      s.inbound(frame);
    }
  }

  @Override
  public void onReadComplete() {
    if (current() && s.attached) {
      s.maybeAck();
      s.core.onReadComplete();
      if (s.needsFlush && s.attached && current()) {
        s.flushOutBatch(s.link);
        phys.flush();
        s.needsFlush = false;
      }
    }
  }

  @Override
  public void onWritabilityChanged(boolean writable) {
    if (current() && s.attached) {
      s.updateWritability();
    }
  }

  @Override
  public void onTransportError(Throwable cause) {
    if (current()) {
      // The bytes of this transport can no longer be trusted; another one may resume.
      phys.close();
    }
  }

  @Override
  public void onClosed() {
    if (dead) {
      if (s.closing && this == s.link) {
        s.finish();
      }
      return;
    }
    dead = true;
    if (this == s.link) {
      s.handshake.linkLost(this, new ConnectionErrorException("the transport closed"));
    }
  }
}
