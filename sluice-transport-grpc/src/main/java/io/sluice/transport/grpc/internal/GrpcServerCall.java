package io.sluice.transport.grpc.internal;

import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.internal.PlatformDependent;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.Headers;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServerMethodDefinition;
import io.sluice.rpc.HandlerFailures;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.rsocket.ProtoMessages;
import io.sluice.transport.http2.internal.H2Answers;
import io.sluice.transport.http2.internal.H2Handler;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One gRPC call on one HTTP/2 stream: the {@link ServerCall} handed to the method's handler and
 * the stream's {@link H2Handler.StreamSink}.
 *
 * <p><b>Flow control.</b> Inbound, DATA goes to a {@link MessageDeframer} and is given back to the
 * HTTP/2 window only as messages are taken for the handler's {@link #request demand}: a handler
 * that asks for nothing leaves the peer with a shut window, never with a growing buffer here.
 * Outbound, the handler is allowed ({@link Listener#onReady}) a batch of responses at a time (as
 * many as fit 1 MiB at the largest size it sent, 1 to 32), and more only once the bytes it sent
 * before have mostly left (their writes completed), so a peer that does not read stops the handler
 * instead of filling memory; a handler that ignores {@code onReady} is failed with
 * RESOURCE_EXHAUSTED once it sends beyond what it was allowed while 64 MiB wait.
 *
 * <p><b>Threads.</b> Stream state lives on the connection's event loop; {@link #request} from
 * other threads hops there. {@link #sendHeaders}, {@link #sendMessage} and {@link #close} keep the
 * order the handler made them in, whatever threads it used: made off the loop, or on it while
 * earlier ones still wait, they join one queue that the loop drains in order (a response is
 * encoded on the calling thread first); made on the loop with nothing waiting, they are written at
 * once (small streamed responses: gathered for the flush, see Buffers). So a close on the loop
 * never overtakes a response another thread sent before it, and headers sent before a close are
 * never dropped by it. An atomic flag makes the call end once: the handler's close, the peer's
 * reset, the deadline, or an error, whichever comes first; what the handler sent before its close
 * still goes out first.
 *
 * <p><b>Buffers.</b> The deframer holds inbound bytes until they are parsed or the call ends;
 * each response is encoded into a new buffer that the HTTP/2 encoder then owns (uncompressed:
 * straight behind its prefix, {@link MessageFramer#encode}), but small streamed ones (below). The
 * response of a unary method, uncompressed, is encoded with room for its DATA frame header and
 * waits here for the call's end: an OK end then writes headers, message and trailers in one go
 * past netty's connection encoder ({@link H2Answers#writeWhole}); any other end, or a stream that
 * cannot take it so, the three through the encoder as before. (Not a client-streaming method's:
 * its caller may wait for the response before it ends its stream.) Streamed responses of up to
 * {@value #GATHER_AT_MOST} bytes made on the loop with no write waiting are encoded one behind
 * another into one buffer of the call (as long as the first at first, up to 8 KiB) and written as
 * one DATA write when the connection flushes ({@link H2Handler#writeBeforeFlush}), or sooner when
 * the buffer is full, before a larger response, and before the trailers: one write, promise and
 * flow-controller entry for many messages.
 *
 * <p>What it shares with the gRPC-Web call (the {@link ServerCall} plumbing, starting the handler,
 * the deadline, counting responses, the end status) is {@link AbstractServerCall}'s.
 */
final class GrpcServerCall<Req extends MessageLite, Resp extends MessageLite>
    extends AbstractServerCall<Req, Resp> implements H2Handler.StreamSink {
  /** Responses up to this size made on the loop are gathered (see Buffers). */
  private static final int GATHER_AT_MOST = 1024;

  private static final int GATHERED_CAPACITY = 8192;

  private final H2Handler handler;
  private final Http2Stream stream;
  private final MessageDeframer deframer;
  private final GrpcEncoding responseEncoding;
  /**
   * The handler's writes waiting for the loop, in the order it made them; the queue is made by the
   * first write that has to wait (an MPSC queue holds a 1,024-slot array: made for every call, it
   * was most of what a call opened and abandoned costs the server).
   */
  private final AtomicReference<Queue<Runnable>> writes = new AtomicReference<>();
  private final AtomicBoolean drainScheduled = new AtomicBoolean();

  // Event-loop state.
  private boolean delivering;
  private boolean inRead;
  private boolean inboundEnded;
  private boolean requested; // the handler asked for requests: the half-close may be delivered
  private boolean halfCloseDelivered;
  private int received;
  private boolean headersSent;
  private boolean finished; // trailers written or the stream gone
  /** A unary call's response, held until the call ends (see Buffers), and its size. */
  private ByteBuf held;
  private int heldBytes;
  /** Small streamed responses of this loop turn, framed, for one DATA write (see Buffers). */
  private ByteBuf gathered;
  private int gatheredBytes;
  private final H2Handler.BeforeFlush writeGathered = this::writeGathered;

  GrpcServerCall(
      H2Handler handler,
      Http2Stream stream,
      ServerMethodDefinition<?, ?> def,
      CallMetadata metadata,
      long timeoutNanos,
      MessageDeframer deframer,
      GrpcEncoding responseEncoding,
      RpcInstrumentation.CallObserver observer,
      long startNanos) {
    super(
        handler.ctx().executor(), def, metadata, timeoutNanos, observer, startNanos,
        ResponseAllowance.Connection.of(handler.ctx().channel()));
    this.handler = handler;
    this.stream = stream;
    this.deframer = deframer;
    this.responseEncoding = responseEncoding;
  }

  // ---- StreamSink: the stream's frames, on the event loop ---------------------------------------

  @Override
  public void onHeaders(Http2Stream stream, Http2Headers headers, boolean endStream) {
    if (listener == null && !ended.get()) {
      start(endStream);
    } else if (endStream) {
      inboundEnded = true; // trailers from the caller: the end of its messages
      deliver();
    }
  }

  private void start(boolean endStream) {
    inboundEnded = endStream;
    startDeadline();
    if (!startHandler()) {
      return;
    }
    // A response now for methods with one; the streaming ones as their writes allow.
    try {
      listener.onReady(allowance.first());
    } catch (RuntimeException e) {
      handlerFailed(e); // this call only: thrown on, it would close the connection
      return;
    }
    deliver();
  }

  @Override
  public int onData(Http2Stream stream, ByteBuf data, int padding, boolean endStream) {
    if (ended.get()) {
      return data.readableBytes() + padding;
    }
    deframer.add(data);
    if (endStream) {
      inboundEnded = true;
    }
    inRead = true;
    try {
      deliver();
    } finally {
      inRead = false;
    }
    return padding;
  }

  @Override
  public void onReset(Http2Stream stream, long errorCode) {
    peerGone(Status.of(Status.Code.CANCELLED, "cancelled by the caller (RST_STREAM " + errorCode + ")"));
  }

  @Override
  public void onClosed(Http2Stream stream) {
    finished = true;
    peerGone(Status.of(Status.Code.CANCELLED, "the caller's stream closed before the call ended"));
    deframer.close();
  }

  // ---- inbound ----------------------------------------------------------------------------------

  /** Hands the handler the messages it asked for; then the half-close once all are out. */
  private void deliver() {
    if (delivering || listener == null) {
      return;
    }
    delivering = true;
    try {
      while (demand > 0 && !ended.get()) {
        ByteBuf bytes;
        try {
          bytes = deframer.next();
        } catch (StatusException e) {
          fail(e.status());
          return;
        }
        if (bytes == null) {
          break;
        }
        if (++received > 1 && !def.method().kind().clientStreams()) {
          bytes.release();
          fail(Status.of(Status.Code.INTERNAL, def.method().fullName() + " takes one request; the caller sent more"));
          return;
        }
        received(bytes.readableBytes());
        Req req;
        try {
          req = ProtoMessages.parse(def.method().requestParser(), bytes);
        } catch (StatusException e) {
          fail(e.status());
          return;
        } finally {
          bytes.release();
        }
        if (demand != Long.MAX_VALUE) {
          demand--;
        }
        try {
          listener.onMessage(req);
        } catch (RuntimeException e) {
          handlerFailed(e);
          return;
        }
      }
      giveBackWindow();
      // The half-close waits for the handler's first request(n): a handler that subscribes to an
      // empty request stream later (the blocking flavor's does) would otherwise miss it.
      if (inboundEnded && requested && !halfCloseDelivered && !ended.get() && deframer.buffered() == 0) {
        if (deframer.isMidMessage()) {
          fail(Status.of(Status.Code.INTERNAL, "the caller's stream ended in the middle of a message"));
          return;
        }
        if (received == 0 && !def.method().kind().clientStreams()) {
          fail(Status.of(Status.Code.INTERNAL, def.method().fullName() + " takes one request; the caller sent none"));
          return;
        }
        halfCloseDelivered = true;
        try {
          listener.onHalfClose();
        } catch (RuntimeException e) {
          handlerFailed(e);
        }
      }
    } finally {
      delivering = false;
    }
  }

  private void giveBackWindow() {
    int n = deframer.takeConsumed();
    if (n > 0 && !finished) {
      handler.consume(stream, n);
      if (!inRead) {
        handler.flushNow(); // outside a read nothing else flushes the WINDOW_UPDATE
      }
    }
  }

  // ---- ServerCall -------------------------------------------------------------------------------

  @Override
  protected void demanded() {
    requested = true;
    deliver();
  }

  @Override
  public void sendHeaders(Headers headers) {
    if (ended.get()) {
      return;
    }
    inOrder(
        () -> {
          if (!headersSent && held == null && !finished) { // late: a held response owes its own headers
            writeHeaders(headers);
            scheduleFlush();
          }
        });
  }

  private void writeHeaders(Headers md) {
    headersSent = true;
    handler.encoder()
        .writeHeaders(handler.ctx(), stream.id(), GrpcResponses.responseHeaders(responseEncoding, md), 0, false, handler.newPromise());
  }

  @Override
  public void sendMessage(Resp message) {
    if (ended.get()) {
      return;
    }
    if (responseEncoding == GrpcEncoding.IDENTITY && !holdsItsResponse() && loop.inEventLoop() && noWritesWait()) {
      int size = message.getSerializedSize();
      if (size <= GATHER_AT_MOST) {
        gather(message, size);
        return;
      }
    }
    ByteBuf framed;
    try {
      ByteBufAllocator alloc = handler.ctx().alloc();
      if (responseEncoding != GrpcEncoding.IDENTITY) {
        framed = MessageFramer.frame(alloc, ProtoMessages.encode(alloc, message), responseEncoding);
      } else if (holdsItsResponse()) { // room for the answer's frame headers and header blocks
        framed = MessageFramer.encode(alloc, message, H2Answers.HEAD_ROOM, H2Answers.TAIL_ROOM);
      } else {
        framed = MessageFramer.encode(alloc, message);
      }
    } catch (StatusException e) {
      close(e.status());
      return;
    }
    inOrder(() -> writeMessage(framed));
  }

  /**
   * Runs {@code write} on the loop after every write the handler made before it: at once when on
   * the loop with none waiting, else queued behind them.
   */
  private void inOrder(Runnable write) {
    Queue<Runnable> q = writes.get();
    if (loop.inEventLoop() && (q == null || q.isEmpty())) {
      write.run();
      return;
    }
    if (q == null) {
      Queue<Runnable> made = PlatformDependent.newMpscQueue();
      q = writes.compareAndSet(null, made) ? made : writes.get();
    }
    q.add(write);
    if (loop.inEventLoop()) {
      drainWrites();
    } else if (drainScheduled.compareAndSet(false, true)) {
      loop.execute(
          () -> {
            drainScheduled.set(false);
            drainWrites();
          });
    }
  }

  private boolean noWritesWait() {
    Queue<Runnable> q = writes.get();
    return q == null || q.isEmpty();
  }

  /**
   * A small response made on the loop with no write waiting: encoded behind the ones made before it
   * in this loop turn, all written as one DATA write when the connection flushes (see Buffers).
   */
  private void gather(Resp message, int size) {
    if (finished) {
      return;
    }
    int bytes = MessageFramer.PREFIX + size;
    // Counted and allowed first: a refusal ends the call, which writes what was gathered before.
    if (!countResponse(bytes)) {
      return;
    }
    if (!headersSent) {
      writeHeaders(null);
    }
    if (!take(bytes)) {
      return;
    }
    if (gathered != null && gathered.maxWritableBytes() < bytes) {
      writeGathered();
    }
    if (gathered == null) {
      // As long as this response (one a turn holds no more than it did alone), grown as more come.
      gathered = handler.ctx().alloc().buffer(bytes, GATHERED_CAPACITY);
      handler.writeBeforeFlush(writeGathered);
    }
    try {
      MessageFramer.encodeInto(gathered, message, size);
    } catch (StatusException e) {
      written(bytes); // taken, never to be written
      close(e.status());
      return;
    }
    gatheredBytes += bytes;
    scheduleFlush();
  }

  /** Writes the responses {@link #gather gathered} so far as one DATA write. */
  private void writeGathered() {
    ByteBuf b = gathered;
    if (b == null) {
      return;
    }
    gathered = null;
    int bytes = gatheredBytes;
    gatheredBytes = 0;
    if (finished || bytes == 0) {
      b.release();
      written(bytes);
      return;
    }
    writeData(b, bytes, handler.newPromise());
  }

  private void drainWrites() {
    Queue<Runnable> q = writes.get();
    Runnable w;
    while (q != null && (w = q.poll()) != null) {
      w.run();
    }
  }

  private void writeMessage(ByteBuf framed) {
    if (finished) {
      framed.release();
      return;
    }
    writeGathered(); // the responses made before this one go first
    if (!countResponse(framed)) {
      return;
    }
    boolean hold = !headersSent && holdsItsResponse();
    if (!headersSent && !hold) {
      writeHeaders(null);
    }
    int bytes = take(framed);
    if (bytes < 0) {
      return;
    }
    if (hold) {
      held = framed;
      heldBytes = bytes;
      return;
    }
    writeData(framed, bytes, handler.newPromise());
    scheduleFlush();
  }

  /**
   * The response is held until the call ends (see Buffers): uncompressed, of a unary method only.
   * Its caller has sent everything and waits for the end; a client-streaming caller may wait for
   * the response before it ends its stream, which a held response would deadlock.
   */
  private boolean holdsItsResponse() {
    return responseEncoding == GrpcEncoding.IDENTITY && def.method().kind() == MethodKind.UNARY;
  }

  /** A response's DATA through the encoder; {@code p} completes when it is written. */
  private void writeData(ByteBuf framed, int bytes, ChannelPromise p) {
    p.addListener(f -> written(bytes));
    handler.encoder().writeData(handler.ctx(), stream.id(), framed, 0, false, p);
  }

  private void scheduleFlush() {
    handler.flushSoon(); // one flush per loop turn for the whole connection
  }

  @Override
  protected void finishInOrder(Status status, Headers trailers) {
    inOrder(() -> finish(status, trailers));
  }

  /** The handler or the transport ended the call: trailers out (after any queued responses). */
  @Override
  protected void finish(Status status, Headers trailers) {
    Status end = endStatus(status);
    if (!finished) {
      writeGathered(); // before the trailers
      finished = true;
      // A caller that may still be sending has the rest of its request dropped after the
      // trailers (writeLast), the stream not reset: a reset would make its DATA already on the
      // way meet a closed stream. A caller that does not stream has nothing more to send once its
      // one message is in, only END_STREAM (grpc-java sometimes sends it in a DATA frame of its own).
      boolean peerDone = inboundEnded || (received > 0 && !def.method().kind().clientStreams());
      ByteBuf response = held;
      held = null;
      if (response != null) {
        ChannelPromise p = handler.newPromise();
        if (GrpcResponses.trailers(end, trailers) == GrpcResponses.OK_TRAILERS
            && H2Answers.writeWhole(handler, stream, GrpcResponses.OK_HEADERS, response, GrpcResponses.OK_TRAILERS, p)) {
          int bytes = heldBytes;
          p.addListener(f -> written(bytes));
          if (!peerDone) {
            handler.discardRequestRest(stream);
          }
          scheduleFlush();
          wrapUp(end);
          return;
        }
        writeHeaders(null);
        writeData(response, heldBytes, p);
      }
      Http2Headers t =
          headersSent
              ? GrpcResponses.trailers(end, trailers)
              : GrpcResponses.trailersOnlyHeaders(end, trailers);
      GrpcResponses.writeLast(handler, stream, t, peerDone);
      scheduleFlush(); // one flush per loop turn, not one per call
    }
    wrapUp(end);
  }

  /** A listener callback threw: the call ends UNKNOWN, as a handler's own failure would. */
  private void handlerFailed(RuntimeException e) {
    fail(HandlerFailures.status(def.method(), e));
  }

  @Override
  public boolean answerHeld() {
    return held != null;
  }

  @Override
  protected void cleanUp() {
    finished = true;
    writeGathered(); // released: the call ended without its trailers
    deframer.close();
    ByteBuf response = held;
    if (response != null) { // the call ended without its trailers (a reset, a lost connection)
      held = null;
      response.release();
      written(heldBytes);
    }
  }
}
