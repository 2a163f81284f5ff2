package io.sluice.rpc.rsocket;

import io.netty.buffer.ByteBuf;
import io.sluice.Message;

/**
 * What a lease policy or a load balancer reads of an RPC request before it is handled: its
 * priority rank and its idempotent flag, straight from the call metadata ({@link
 * CallMetadataCodec}) of the request's first message, without decoding the rest and without
 * allocating. Stateless and thread-safe.
 *
 * <p><b>Buffers.</b> The message is only read: its indexes, reference count and ownership are left
 * alone.
 */
public final class RpcRequests {
  private static final int KNOWN_FLAGS =
      CallMetadataCodec.FLAG_IDEMPOTENT
          | CallMetadataCodec.FLAG_DEADLINE
          | CallMetadataCodec.FLAG_HEADERS
          | CallMetadataCodec.FLAG_RANK
          | CallMetadataCodec.FLAG_NO_MESSAGE
          | CallMetadataCodec.FLAG_RESPONSE_METADATA;

  private RpcRequests() {}

  /**
   * The call's priority rank (the {@code rank} method option; 0 is the highest priority, larger
   * numbers are shed first under load), or 0 when the message is not an RPC call or carries no
   * rank.
   */
  public static int rank(Message request) {
    ByteBuf md = callMetadata(request);
    if (md == null) {
      return 0;
    }
    int flags = md.getUnsignedByte(md.readerIndex() + 1);
    if ((flags & CallMetadataCodec.FLAG_RANK) == 0) {
      return 0;
    }
    int at = afterNames(md);
    if (at < 0) {
      return 0;
    }
    if ((flags & CallMetadataCodec.FLAG_DEADLINE) != 0) {
      at += 4;
    }
    return at + 4 <= md.writerIndex() ? md.getInt(at) : 0;
  }

  /**
   * True if the caller flagged the call idempotent (safe to retry elsewhere; a server refuses the
   * flag on a method not declared idempotent); false when the message is not an RPC call.
   */
  public static boolean idempotent(Message request) {
    ByteBuf md = callMetadata(request);
    return md != null
        && (md.getUnsignedByte(md.readerIndex() + 1) & CallMetadataCodec.FLAG_IDEMPOTENT) != 0
        && afterNames(md) > 0;
  }

  /** The request's metadata if it starts like call metadata (version and flags), else null. */
  private static ByteBuf callMetadata(Message request) {
    if (request == null || !request.hasMetadata()) {
      return null;
    }
    ByteBuf md = request.metadata();
    int i = md.readerIndex();
    if (md.writerIndex() - i < 4
        || md.getUnsignedByte(i) != CallMetadataCodec.VERSION
        || (md.getUnsignedByte(i + 1) & ~KNOWN_FLAGS) != 0) {
      return null;
    }
    return md;
  }

  /** The index just past the service and method names, or -1 if they do not fit. */
  private static int afterNames(ByteBuf md) {
    int end = md.writerIndex();
    int at = md.readerIndex() + 2;
    int service = md.getUnsignedByte(at);
    at += 1 + service;
    if (service == 0 || at >= end) {
      return -1;
    }
    int method = md.getUnsignedByte(at);
    at += 1 + method;
    return method == 0 || at > end ? -1 : at;
  }
}
