package io.sluice.transport.http2.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.AsciiString;
import io.sluice.test.FrameBuilder;
import io.sluice.transport.DuplexTransport;
import io.sluice.transport.FrameReceiver;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * What the stream mapping holds for inbound frames cut across DATA frames, on both sides: the
 * memory grows with the bytes that arrived, never with the length a peer declared; while reads
 * are paused a stream waits once for its window, however many DATA frames came; a buffer
 * released while a frame taken from it was delivered is never touched again. Both sides run
 * on {@link EmbeddedChannel}s, the mapping's with an allocator of its own, so what it allocates is
 * measured alone.
 */
class StreamMappingInboundTest {
  private static final int STREAMS = 256;
  /** The 3 bytes of a u24 length of 1 MiB - 1: a frame declared, never sent. */
  private static final byte[] DECLARED_ONLY = {0x0f, (byte) 0xff, (byte) 0xff};
  private static final int MAX_FRAME = 1 << 20;
  /** Two of the pool's 4 MiB chunks: what the handshake and 256 streams' small buffers may take. */
  private static final long SMALL = 8L << 20;

  // ---- a mapping server, a bare HTTP/2 client -------------------------------------------------

  @Test
  void aServerHoldsWhatArrivedOfAFrameNotWhatItsLengthDeclares() {
    PooledByteBufAllocator alloc = new PooledByteBufAllocator(true);
    try (ServerSide s = new ServerSide(alloc)) {
      long before = alloc.metric().usedDirectMemory();
      for (int i = 0; i < STREAMS; i++) {
        int id = 2 * i + 1;
        s.open(id, "/rsocket/stream");
        s.data(id, Unpooled.wrappedBuffer(DECLARED_ONLY), false);
      }
      s.carry();
      assertThat(s.server.isActive()).isTrue();
      assertThat(s.serverH2.connection().numActiveStreams()).as("streams open").isEqualTo(STREAMS);
      long used = alloc.metric().usedDirectMemory() - before;
      assertThat(used)
          .as("direct memory the server took for %d streams that each sent a 3-byte length of 1 MiB", STREAMS)
          .isLessThan(SMALL);
    }
  }

  @Test
  void aFrameCutIntoManyDataFramesStillArrivesWhole() {
    PooledByteBufAllocator alloc = new PooledByteBufAllocator(true);
    try (ServerSide s = new ServerSide(alloc)) {
      s.open(1, "/rsocket/channel");
      byte[] frame = FrameBuilder.lengthPrefixed(FrameBuilder.requestChannel(1, 8).data("x".repeat(100_000)).toBytes());
      int at = 0;
      for (int size = 1; at < frame.length; size = Math.min(2 * size + 1, 4000)) {
        int n = Math.min(size, frame.length - at);
        s.data(1, Unpooled.wrappedBuffer(frame, at, n), false);
        s.carry();
        at += n;
      }
      assertThat(s.engine.sizes).as("frame sizes the engine got: the implied SETUP, then the request")
          .hasSize(2).last().isEqualTo(frame.length - 3);
    }
  }

  /** A server with a paused engine: DATA that only extends a partial frame must not add entries. */
  @Test
  void whileReadsArePausedEachStreamIsOwedOnce() {
    try (ServerSide s = new ServerSide(ByteBufAllocator.DEFAULT)) {
      s.open(1, "/rsocket/channel");
      s.data(1, Unpooled.wrappedBuffer(FrameBuilder.lengthPrefixed(FrameBuilder.requestChannel(1, 8).data("a").toBytes())), false);
      s.carry();
      s.mapping.setReadEnabled(false);
      s.data(1, Unpooled.wrappedBuffer(new byte[] {0, 0x10, 0}), false); // a 4 KiB frame begins
      for (int i = 0; i < 1000; i++) {
        s.data(1, Unpooled.wrappedBuffer(new byte[] {1}), false);
        s.carry();
      }
      assertThat(((StreamMapping) s.mapping).streamsOwed()).as("entries of streams owed a window").isEqualTo(1);
      s.mapping.setReadEnabled(true);
      assertThat(((StreamMapping) s.mapping).streamsOwed()).isZero();
    }
  }

  /**
   * The engine closes the connection while it takes a frame that came out of a held partial frame
   * (a connection-wide limit broken, say): the partial buffer is released by the close, so nothing
   * may touch it after.
   */
  @Test
  void anEngineThatClosesInsideOnFrameLeavesNoBufferTouchedAfterItsRelease() {
    StrictAllocator alloc = new StrictAllocator();
    try (ServerSide s = new ServerSide(alloc)) {
      s.open(1, "/rsocket/channel");
      s.engine.onRequest = f -> s.mapping.close();
      byte[] frame = FrameBuilder.lengthPrefixed(FrameBuilder.requestChannel(1, 8).data("abc").toBytes());
      s.data(1, Unpooled.wrappedBuffer(frame, 0, 5), false); // held as a partial frame
      s.carry();
      s.data(1, Unpooled.wrappedBuffer(frame, 5, frame.length - 5), false);
      s.carry();
      assertThat(s.engine.closed).as("the engine's close went through").isTrue();
      assertThat(alloc.violations).as("buffer index changes after the buffer was released").isEmpty();
    }
  }

  /** A peer's frame shorter than an RSocket header, cut across DATA frames: reset, and nothing touched after release. */
  @Test
  void aMalformedFrameInAHeldPartialIsRefusedWithoutTouchingItAfterRelease() {
    StrictAllocator alloc = new StrictAllocator();
    try (ServerSide s = new ServerSide(alloc)) {
      s.open(1, "/rsocket/channel");
      s.data(1, Unpooled.wrappedBuffer(new byte[] {0, 0}), false); // held: a length not yet whole
      s.carry();
      s.data(1, Unpooled.wrappedBuffer(new byte[] {1, 7, 9, 9}), false); // a 1-byte frame
      s.carry();
      assertThat(s.serverH2.connection().stream(1)).as("the stream, reset").isNull();
      assertThat(alloc.violations).as("buffer index changes after the buffer was released").isEmpty();
    }
  }

  // ---- a mapping client, a bare HTTP/2 server ---------------------------------------------------

  @Test
  void aClientHoldsWhatArrivedOfAFrameNotWhatItsLengthDeclares() {
    PooledByteBufAllocator alloc = new PooledByteBufAllocator(true);
    try (ClientSide c =
        new ClientSide(
            alloc,
            (h, stream) -> {
              h.encoder().writeHeaders(h.ctx(), stream.id(), new DefaultHttp2Headers().status("200"), 0, false, h.newPromise());
              h.encoder().writeData(h.ctx(), stream.id(), Unpooled.wrappedBuffer(DECLARED_ONLY), 0, false, h.newPromise());
              h.flushNow();
            })) {
      long before = alloc.metric().usedDirectMemory();
      ByteBuf batch = Unpooled.buffer();
      for (int i = 0; i < STREAMS; i++) {
        batch.writeBytes(FrameBuilder.lengthPrefixed(FrameBuilder.requestStream(2 * i + 1, 8).data("x").toBytes()));
      }
      c.mapping.write(batch);
      c.mapping.flush();
      c.carry();
      c.carry();
      assertThat(c.answered).as("streams the server answered").isEqualTo(STREAMS);
      assertThat(c.engine.errors).as("errors the engine got").isEmpty();
      long used = alloc.metric().usedDirectMemory() - before;
      assertThat(used)
          .as("direct memory the client took for %d streams whose answers each declared 1 MiB", STREAMS)
          .isLessThan(SMALL);
    }
  }

  // ---- the two sides ----------------------------------------------------------------------------

  /** A mapping server (its channel on {@code alloc}) and a bare netty HTTP/2 client writing frames. */
  static final class ServerSide implements AutoCloseable {
    final EmbeddedChannel server = new EmbeddedChannel();
    final EmbeddedChannel client;
    final H2Handler serverH2;
    final H2Handler clientH2 = H2Handler.build(false, Http2Options.limits(0, 1 << 20, 8192, false), null);
    final Engine engine;
    final DuplexTransport mapping;

    ServerSide(ByteBufAllocator alloc) {
      this(alloc, new Engine());
    }

    ServerSide(ByteBufAllocator alloc, Engine engine) {
      this.engine = engine;
      List<DuplexTransport> connections = new ArrayList<>();
      server.config().setAllocator(alloc);
      serverH2 = H2Handler.build(true, Http2Options.limits(STREAMS, 1 << 20, 8192, false), new ServerStreams(connections::add, true));
      server.pipeline().addLast(serverH2);
      client = new EmbeddedChannel(clientH2);
      carry();
      carry();
      assertThat(connections).hasSize(1);
      mapping = connections.get(0);
      mapping.start(engine);
      carry();
    }

    void open(int id, String path) {
      Http2Headers request =
          new DefaultHttp2Headers()
              .method("POST")
              .scheme("http")
              .authority("test")
              .path(path)
              .set("content-type", "application/rsocket+http2");
      clientH2.encoder().writeHeaders(clientH2.ctx(), id, request, 0, false, clientH2.newPromise());
    }

    void data(int id, ByteBuf data, boolean end) {
      clientH2.encoder().writeData(clientH2.ctx(), id, data, 0, end, clientH2.newPromise());
      clientH2.flushNow();
    }

    /** Opens stream {@code id} with a whole REQUEST_STREAM (unbounded) and carries it to the server. */
    void requestStream(int id) {
      open(id, "/rsocket/stream");
      data(id, Unpooled.wrappedBuffer(FrameBuilder.lengthPrefixed(FrameBuilder.requestStream(id, Integer.MAX_VALUE).data("go").toBytes())), true);
      carry();
    }

    /** Moves what each side flushed to the other, both ways. */
    void carry() {
      clientH2.flushNow();
      StreamMappingInboundTest.carry(client, server);
      StreamMappingInboundTest.carry(server, client);
    }

    @Override
    public void close() {
      client.finishAndReleaseAll();
      server.finishAndReleaseAll();
    }
  }

  /** Answers a client's new stream through the server's handler. */
  interface Answer {
    void answer(H2Handler server, Http2Stream stream);
  }

  /** A mapping client (its channel on {@code alloc}) and a bare HTTP/2 server that answers each stream. */
  static final class ClientSide implements AutoCloseable {
    final EmbeddedChannel client = new EmbeddedChannel();
    final EmbeddedChannel server;
    final Engine engine = new Engine();
    final StreamMapping mapping;
    final H2Handler clientH2 = H2Handler.build(false, Http2Options.limits(0, 1 << 20, 8192, false), null);
    int answered;

    ClientSide(ByteBufAllocator alloc, Answer answer) {
      H2Handler.Router router =
          (h, stream, headers, endStream) -> {
            answered++;
            answer.answer(h, stream);
            return H2Handler.NO_SINK;
          };
      server = new EmbeddedChannel(H2Handler.build(true, Http2Options.limits(STREAMS, 1 << 20, 8192, false), router));
      client.config().setAllocator(alloc);
      client.pipeline().addLast(clientH2);
      mapping =
          StreamMapping.client(
              clientH2,
              new StreamMapping.ClientRequest(
                  AsciiString.of("http"), AsciiString.of("test"), (type, metadata) -> MappingWire.pathOf(type)),
              null);
      carry();
      carry();
      mapping.start(engine);
      carry();
    }

    void carry() {
      StreamMappingInboundTest.carry(client, server);
      StreamMappingInboundTest.carry(server, client);
    }

    @Override
    public void close() {
      client.finishAndReleaseAll();
      server.finishAndReleaseAll();
    }
  }

  /** Moves what {@code from} flushed into {@code to} as one read. */
  static void carry(EmbeddedChannel from, EmbeddedChannel to) {
    List<Object> out = new ArrayList<>();
    for (Object o; (o = from.readOutbound()) != null; ) {
      out.add(o);
    }
    if (!out.isEmpty()) {
      to.writeInbound(out.toArray());
    }
  }

  /** An engine that records the frames it gets; {@link #onRequest} runs on each request frame. */
  static final class Engine implements FrameReceiver {
    final List<Integer> sizes = new ArrayList<>();
    /** The type of each frame, with its stream id: {@code type << 24 | id} (ids below 2^24 here). */
    final List<Integer> types = new ArrayList<>();
    final List<String> errors = new ArrayList<>();
    /** Each writability the transport reported, in order. */
    final List<Boolean> writability = new ArrayList<>();
    Consumer<ByteBuf> onRequest = f -> {};
    int maxQueuedOutboundBytes = 4 << 20;
    boolean closed;

    @Override
    public int maxFrameSize() {
      return MAX_FRAME;
    }

    @Override
    public int maxQueuedOutboundBytes() {
      return maxQueuedOutboundBytes;
    }

    @Override
    public void onFrame(ByteBuf frame) {
      sizes.add(frame.readableBytes());
      int type = frame.getUnsignedShort(frame.readerIndex() + 4) >>> 10;
      types.add(type << 24 | frame.getInt(frame.readerIndex()));
      if (type == FrameBuilder.TYPE_ERROR) {
        errors.add(frame.toString(frame.readerIndex() + 10, frame.readableBytes() - 10, java.nio.charset.StandardCharsets.UTF_8));
      }
      if (type >= FrameBuilder.TYPE_REQUEST_RESPONSE && type <= FrameBuilder.TYPE_REQUEST_CHANNEL) {
        onRequest.accept(frame);
      }
    }

    @Override
    public void onReadComplete() {}

    @Override
    public void onWritabilityChanged(boolean writable) {
      writability.add(writable);
    }

    @Override
    public void onTransportError(Throwable cause) {
      throw new AssertionError("transport error", cause);
    }

    @Override
    public void onClosed() {
      closed = true;
    }
  }

  /**
   * Heap buffers that record every change of their indexes made after their release (netty checks
   * reads and writes of released buffers, not index changes).
   */
  static final class StrictAllocator extends AbstractByteBufAllocator {
    final List<Throwable> violations = new ArrayList<>();

    StrictAllocator() {
      super(false);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
      return new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity) {
        private void check() {
          if (refCnt() == 0) {
            violations.add(new IllegalStateException("an index of a released buffer changed"));
          }
        }

        @Override
        public ByteBuf setIndex(int readerIndex, int writerIndex) {
          check();
          return super.setIndex(readerIndex, writerIndex);
        }

        @Override
        public ByteBuf readerIndex(int readerIndex) {
          check();
          return super.readerIndex(readerIndex);
        }

        @Override
        public ByteBuf writerIndex(int writerIndex) {
          check();
          return super.writerIndex(writerIndex);
        }
      };
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
      return newHeapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
      return false;
    }
  }
}
