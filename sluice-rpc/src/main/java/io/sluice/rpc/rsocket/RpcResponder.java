package io.sluice.rpc.rsocket;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.FastThreadLocal;
import io.sluice.Acceptor;
import io.sluice.Message;
import io.sluice.Responder;
import io.sluice.StreamHandle;
import io.sluice.StreamListener;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.CallObservation;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.ServerMethodDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The RPC dispatcher for RSocket: a {@link Responder} that serves every service of a {@link
 * ServiceRegistry} on one connection. Per call it decodes the call metadata of the first frame,
 * finds the method, checks the interaction and the idempotent flag, arms the deadline, and drives
 * the method's flavor-neutral {@link io.sluice.rpc.ServerCallHandler} through a {@link
 * io.sluice.rpc.ServerCall}.
 *
 * <p>Errors end the call with ERROR[APPLICATION_ERROR] carrying the status ({@link RpcErrors}):
 * UNIMPLEMENTED for an unknown service or method or the wrong interaction, INVALID_ARGUMENT for bad
 * call metadata, FAILED_PRECONDITION for an idempotent-flagged call to a method not declared
 * idempotent, DEADLINE_EXCEEDED when the deadline passes (the handler is then cancelled).
 *
 * <p>One instance may serve any number of connections; it holds no per-connection state.
 *
 * <pre>{@code
 * Connections.serve(TcpServerTransport.create("127.0.0.1", 7878), ConnectionOptions.defaults(),
 *     RpcResponder.acceptor(ServiceRegistry.builder().add(new ReactorGreeterServer(impl)).build()));
 * }</pre>
 *
 * <p><b>Threads.</b> The core calls its {@link Responder} methods on the connection's event loop;
 * it decodes the call metadata and starts the method's handler there. Its caches may be used by
 * many connections' loops at once.
 *
 * <p><b>Buffers.</b> It owns each call's first message (as every {@link Responder} does): a refused
 * call's message is released at once, an accepted one once its request is parsed, or when the call
 * ends first. Each response is encoded into a new buffer that is handed to the stream's {@link
 * StreamHandle}, which owns it from then on.
 */
public final class RpcResponder implements Responder {

  /** Default cap on the encoded call metadata of one call (like gRPC's 8 KiB header list). */
  public static final int DEFAULT_MAX_CALL_METADATA_BYTES = 8192;

  private final ServiceRegistry registry;
  private final RpcInstrumentation instrumentation;
  private final int maxCallMetadataBytes;

  /**
   * Recently resolved call metadata without deadline and headers (the same bytes call after call
   * for a client's method), by the hash of its bytes: such calls skip decoding the names and the
   * registry lookup. Direct-mapped and bounded, so hostile metadata only evicts entries.
   */
  private static final int RESOLVED_CACHE_SIZE = 64;

  private final AtomicReferenceArray<Resolved> resolved = new AtomicReferenceArray<>(RESOLVED_CACHE_SIZE);

  /** Metadata longer than this is always decoded (names of up to ~120 characters fit). */
  private static final int RESOLVED_MAX_BYTES = 256;

  /** Per-thread room for the metadata bytes of the call being started. */
  private static final FastThreadLocal<byte[]> SCRATCH =
      new FastThreadLocal<byte[]>() {
        @Override
        protected byte[] initialValue() {
          return new byte[RESOLVED_MAX_BYTES];
        }
      };

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** A hash of the first {@code length} bytes, eight at a time. */
  private static int hash(byte[] bytes, int length) {
    long h = length;
    int i = 0;
    for (; i + 8 <= length; i += 8) {
      h = h * 0x9E3779B97F4A7C15L + (long) LONGS.get(bytes, i);
    }
    for (; i < length; i++) {
      h = h * 31 + bytes[i];
    }
    return (int) (h ^ (h >>> 32));
  }

  private static final class Resolved {
    final int hash;
    final byte[] bytes; // a copy of the encoded call metadata
    final CallMetadata metadata;
    final ServerMethodDefinition<?, ?> def;

    Resolved(int hash, byte[] bytes, CallMetadata metadata, ServerMethodDefinition<?, ?> def) {
      this.hash = hash;
      this.bytes = bytes;
      this.metadata = metadata;
      this.def = def;
    }
  }

  public RpcResponder(ServiceRegistry registry) {
    this(registry, RpcInstrumentation.NONE);
  }

  public RpcResponder(ServiceRegistry registry, RpcInstrumentation instrumentation) {
    this(registry, instrumentation, DEFAULT_MAX_CALL_METADATA_BYTES);
  }

  /**
   * @param maxCallMetadataBytes calls whose call metadata is larger are refused with
   *     RESOURCE_EXHAUSTED before it is decoded
   */
  public RpcResponder(
      ServiceRegistry registry, RpcInstrumentation instrumentation, int maxCallMetadataBytes) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.instrumentation = Objects.requireNonNull(instrumentation, "instrumentation");
    if (maxCallMetadataBytes < 4) {
      throw new IllegalArgumentException("maxCallMetadataBytes must be at least 4, got " + maxCallMetadataBytes);
    }
    this.maxCallMetadataBytes = maxCallMetadataBytes;
  }

  /** An acceptor that serves {@code registry} on every connection. */
  public static Acceptor acceptor(ServiceRegistry registry) {
    return acceptor(registry, RpcInstrumentation.NONE);
  }

  /** An acceptor that serves {@code registry} on every connection, observed by {@code instrumentation}. */
  public static Acceptor acceptor(ServiceRegistry registry, RpcInstrumentation instrumentation) {
    RpcResponder responder = new RpcResponder(registry, instrumentation);
    return (setup, requester) -> responder;
  }

  /** The interaction a call arrived with. */
  enum Interaction {
    FIRE_AND_FORGET("fire-and-forget"),
    RESPONSE("request-response"),
    STREAM("request-stream"),
    CHANNEL("request-channel");

    final String wireName;

    Interaction(String wireName) {
      this.wireName = wireName;
    }

    static Interaction of(MethodKind kind) {
      switch (kind) {
        case UNARY:
          return RESPONSE;
        case SERVER_STREAMING:
          return STREAM;
        case FIRE_AND_FORGET:
          return FIRE_AND_FORGET;
        default:
          return CHANNEL;
      }
    }
  }

  @Override
  public void fireAndForget(Message request) {
    start(request, null, Interaction.FIRE_AND_FORGET, true);
  }

  @Override
  public StreamListener requestResponse(Message request, StreamHandle response) {
    return start(request, response, Interaction.RESPONSE, true);
  }

  @Override
  public StreamListener requestStream(Message request, StreamHandle stream) {
    return start(request, stream, Interaction.STREAM, true);
  }

  @Override
  public StreamListener requestChannel(Message first, boolean inboundComplete, StreamHandle channel) {
    return start(first, channel, Interaction.CHANNEL, inboundComplete);
  }

  private StreamListener start(
      Message request, StreamHandle handle, Interaction interaction, boolean inboundComplete) {
    // The clock is read only for an instrumentation that will be told the latency.
    long startNanos = CallObservation.startNanos(instrumentation);
    CallMetadata md;
    ServerMethodDefinition<?, ?> def;
    try {
      if (!request.hasMetadata()) {
        throw StatusException.of(
            Status.Code.INVALID_ARGUMENT, "the first frame of an RPC call carries no call metadata");
      }
      ByteBuf mdBytes = request.metadata();
      int size = mdBytes.readableBytes();
      if (size > maxCallMetadataBytes) {
        throw StatusException.of(
            Status.Code.RESOURCE_EXHAUSTED,
            "call metadata of " + size + " bytes exceeds the limit of " + maxCallMetadataBytes);
      }
      Resolved r = null;
      int hash = 0;
      byte[] key = null;
      if (size <= RESOLVED_MAX_BYTES) {
        // One bulk copy, then array work: per-byte reads of a derived buffer check the
        // reference count of the buffer under it on every access.
        key = SCRATCH.get();
        mdBytes.getBytes(mdBytes.readerIndex(), key, 0, size);
        hash = hash(key, size);
        r = resolved.get(hash & (RESOLVED_CACHE_SIZE - 1));
        if (r != null
            && (r.hash != hash
                || r.bytes.length != size
                || !Arrays.equals(r.bytes, 0, size, key, 0, size))) {
          r = null;
        }
      }
      if (r != null) {
        md = r.metadata;
        def = r.def;
      } else {
        md = CallMetadataCodec.decode(mdBytes);
        def = registry.lookup(md.service(), md.method());
        if (key != null && def != null && !md.hasTimeout() && md.headers().isEmpty()) {
          resolved.lazySet(
              hash & (RESOLVED_CACHE_SIZE - 1),
              new Resolved(hash, Arrays.copyOf(key, size), md, def));
        }
      }
    } catch (StatusException e) {
      request.release();
      fail(handle, e.status());
      return StreamListener.DISCARDING;
    }
    RpcInstrumentation.CallObserver observer =
        CallObservation.start(instrumentation, md, def == null ? null : def.method());
    Status refusal = null;
    if (def == null) {
      refusal =
          registry.service(md.service()) == null
              ? Status.of(Status.Code.UNIMPLEMENTED, "unknown service " + md.service())
              : Status.of(Status.Code.UNIMPLEMENTED, "unknown method " + md.service() + "/" + md.method());
    } else if (Interaction.of(def.method().kind()) != interaction) {
      refusal =
          Status.of(
              Status.Code.UNIMPLEMENTED,
              def.method().fullName() + " is " + def.method().kind() + " and is called with "
                  + Interaction.of(def.method().kind()).wireName + ", not " + interaction.wireName);
    } else if (md.idempotent() && !def.method().idempotent()) {
      refusal =
          Status.of(
              Status.Code.FAILED_PRECONDITION,
              "call flagged idempotent but " + def.method().fullName() + " is not declared idempotent");
    } else if (md.hasTimeout() && md.timeoutMillis() == 0) {
      refusal = Status.of(Status.Code.DEADLINE_EXCEEDED, "deadline already passed on arrival");
    }
    if (refusal != null) {
      request.release();
      fail(handle, refusal);
      end(observer, refusal, startNanos);
      return StreamListener.DISCARDING;
    }
    Message first = request;
    if (CallMetadataCodec.noMessage(request.metadata())) {
      // No request message in this frame: the handler sees the requests that follow, if any.
      if (interaction != Interaction.CHANNEL || request.data().isReadable()) {
        Status bad =
            Status.of(
                Status.Code.INVALID_ARGUMENT,
                interaction != Interaction.CHANNEL
                    ? "the no-message flag is only valid on request-channel, not " + interaction.wireName
                    : "a frame flagged no-message carries " + request.data().readableBytes() + " bytes of data");
        request.release();
        fail(handle, bad);
        end(observer, bad, startNanos);
        return StreamListener.DISCARDING;
      }
      request.release();
      first = null;
    }
    RsocketServerCall<?, ?> call =
        new RsocketServerCall<>(
            def, md, handle, observer, startNanos, interaction, first, inboundComplete);
    call.start();
    return call;
  }

  private static void fail(StreamHandle handle, Status status) {
    if (handle != null) {
      handle.error(RpcErrors.toWire(status));
    }
  }

  static void end(RpcInstrumentation.CallObserver observer, Status status, long startNanos) {
    CallObservation.end(observer, status, startNanos);
  }
}
