package io.sluice.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import java.net.SocketAddress;

/**
 * One established connection as the protocol core sees it: a duplex pipe of RSocket frames bound to
 * one event loop. Implemented by each transport (TCP, local, websocket, HTTP/2, ...).
 *
 * <p><b>Threads.</b> Every method except {@link #executor()} and {@link #alloc()} is called on
 * {@link #executor()} only; every {@link FrameReceiver} callback is made on it too.
 *
 * <p><b>Framing.</b> {@link Framing#LENGTH_PREFIXED} transports are byte streams: the core hands
 * them buffers holding one or more frames, each preceded by its u24 length, encoded back to back so
 * that many small frames go out in one write. {@link Framing#TRANSPORT_PREFIXED} transports are
 * the same with the transport's own {@link #framePrefix()} in place of the u24 length (websocket:
 * each frame behind its WebSocket header). {@link Framing#FRAME_PER_WRITE} transports preserve
 * message boundaries (local: the buffer itself crosses; websocket with per-message compression):
 * each {@link #write} is exactly one frame without prefix. (The HTTP/2 stream mapping is
 * length-prefixed: it cuts the batches at frame boundaries and sends each frame, u24 included, on
 * the HTTP/2 stream its stream id names.)
 */
public interface DuplexTransport {

  /** How frames are delimited on this transport. */
  enum Framing {
    /**
     * A byte stream of frames, each behind its u24 length. A write is one buffer of whole frames
     * (a batch the core filled and gave away), except that a frame with a large payload may end
     * its batch with only its head (length, header, metadata length); its metadata and data then
     * follow as their own writes, without copying.
     */
    LENGTH_PREFIXED,
    /**
     * As {@link #LENGTH_PREFIXED}, with the transport's {@link #framePrefix()} in front of each
     * frame instead of the u24 length. A written buffer that begins with a prefix is a batch the
     * core filled: from {@link #write} on it is the transport's, which may change its bytes in
     * place. A written buffer that begins inside a frame is payload of a large frame (the
     * application's buffer, possibly shared): read it, never change it.
     */
    TRANSPORT_PREFIXED,
    /** One frame per write, without prefix: a buffer of its own (or a composite) per frame. */
    FRAME_PER_WRITE
  }

  Framing framing();

  /**
   * What precedes each frame on a {@link Framing#TRANSPORT_PREFIXED} transport; asked once, when
   * the connection is made. Such a transport must return an instance; others are not asked (the
   * default returns null).
   */
  default FramePrefix framePrefix() {
    return null;
  }

  /** The event loop this connection is confined to. */
  EventExecutor executor();

  ByteBufAllocator alloc();

  /**
   * Starts delivering inbound frames to {@code receiver}. Called once, on the loop. A transport
   * that is already closed reports {@link FrameReceiver#onClosed()} from inside this call.
   */
  void start(FrameReceiver receiver);

  /** Queues {@code buf} for writing without flushing; takes ownership. */
  void write(ByteBuf buf);

  /** Flushes queued writes to the peer. */
  void flush();

  /** False while the queued outbound bytes are above the transport's high water mark. */
  boolean isWritable();

  /**
   * Bytes of output the socket has taken so far (written minus still queued), or -1 if the
   * transport cannot tell. The core uses it to tell a slow reader (the number grows now and then)
   * from a peer that reads nothing at all (the write-stall timeout).
   */
  default long outboundProgress() {
    return -1;
  }

  /**
   * Bytes written and flushed that the socket has not taken yet, or -1 if the transport cannot
   * tell. The core flushes part-way through a read batch only while this is 0: the peer is then
   * waiting for what we have, not still behind on what we sent.
   */
  default long unsentBytes() {
    return -1;
  }

  /** Pauses or resumes reading from the peer (back-pressure when we cannot write). */
  void setReadEnabled(boolean enabled);

  /** Closes the connection; idempotent. {@link FrameReceiver#onClosed} follows. */
  void close();

  /**
   * A short name of the kind of transport ({@code tcp}, {@code unix}, {@code local}, {@code
   * websocket}, {@code http2} ...), the {@code transport} tag of the metrics. One of a few fixed
   * values per implementation, never derived from what a peer sends.
   */
  default String name() {
    return "other";
  }

  /**
   * Can a resumable session (RESUME, docs/guide/resumption.md) run over this transport? A
   * transport that is not one byte pipe per connection (the HTTP/2 stream mapping: an HTTP/2
   * stream per RSocket stream, its setup implied) cannot carry RESUME and says false; a client
   * that asks for resumption over it is refused at connect.
   */
  default boolean supportsResumption() {
    return true;
  }

  /** The peer's address, for logs; may be null. */
  SocketAddress remoteAddress();
}
