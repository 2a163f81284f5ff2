package io.sluice.transport.grpc.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufOutputStream;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * A message encoding of {@code grpc-encoding}: {@link #IDENTITY} or {@link #GZIP}. gzip output is
 * inflated a chunk at a time and stops at the caller's limit, so a small compressed message that
 * expands hugely (a "gzip bomb") costs at most the limit plus one chunk.
 *
 * <p>Stateless: safe from any thread. <b>Buffers.</b> {@link #compress} and {@link #decompress}
 * leave their input to the caller and return a new buffer the caller owns.
 */
public enum GrpcEncoding {
  IDENTITY("identity"),
  GZIP("gzip");

  /** The {@code grpc-accept-encoding} value of a peer that takes both. */
  public static final String ACCEPT = "gzip";

  private static final int CHUNK = 8192;

  private final String wireName;

  GrpcEncoding(String wireName) {
    this.wireName = wireName;
  }

  /** The name in {@code grpc-encoding}. */
  public String wireName() {
    return wireName;
  }

  /**
   * The encoding named {@code name} (case-sensitive, as gRPC's names are); null or empty gives
   * {@link #IDENTITY}; an unknown name gives null.
   */
  public static GrpcEncoding of(CharSequence name) {
    if (name == null || name.length() == 0 || "identity".contentEquals(name)) {
      return IDENTITY;
    }
    return "gzip".contentEquals(name) ? GZIP : null;
  }

  /** True when a {@code grpc-accept-encoding} list (comma separated) names this encoding. */
  public boolean acceptedBy(CharSequence acceptEncoding) {
    if (this == IDENTITY) {
      return true;
    }
    if (acceptEncoding == null) {
      return false;
    }
    for (String s : acceptEncoding.toString().split(",", 16)) {
      if (s.trim().equals(wireName)) {
        return true;
      }
    }
    return false;
  }

  /** {@code data} (left alone) compressed into a new buffer. */
  public ByteBuf compress(ByteBufAllocator alloc, ByteBuf data) {
    if (this == IDENTITY) {
      return data.retainedDuplicate();
    }
    ByteBuf out = alloc.heapBuffer(Math.max(64, data.readableBytes() / 2 + 32));
    try (OutputStream gz = new GZIPOutputStream(new ByteBufOutputStream(out), CHUNK)) {
      data.getBytes(data.readerIndex(), gz, data.readableBytes());
    } catch (IOException | RuntimeException e) {
      out.release();
      throw new StatusException(Status.of(Status.Code.INTERNAL, "cannot gzip a message: " + e), e);
    }
    return out;
  }

  /**
   * {@code data} (left alone) decompressed into a new buffer of at most {@code maxBytes}.
   *
   * @throws StatusException RESOURCE_EXHAUSTED when the output would exceed {@code maxBytes} (it
   *     stops there), INTERNAL when {@code data} is not valid for this encoding
   */
  public ByteBuf decompress(ByteBufAllocator alloc, ByteBuf data, int maxBytes) {
    if (this == IDENTITY) {
      if (data.readableBytes() > maxBytes) {
        throw tooLarge(maxBytes);
      }
      return data.retainedDuplicate();
    }
    ByteBuf out = alloc.heapBuffer(Math.min(maxBytes, Math.max(64, data.readableBytes() * 2)));
    try (InputStream in = new GZIPInputStream(new ByteBufInputStream(data.duplicate()), CHUNK)) {
      byte[] chunk = new byte[CHUNK];
      int read;
      while ((read = in.read(chunk)) > 0) {
        if (out.readableBytes() + read > maxBytes) {
          throw tooLarge(maxBytes);
        }
        out.writeBytes(chunk, 0, read);
      }
      return out;
    } catch (IOException e) {
      out.release();
      throw new StatusException(
          Status.of(Status.Code.INTERNAL, "cannot decompress a gzip message: " + e.getMessage()), e);
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }

  private static StatusException tooLarge(int maxBytes) {
    return new StatusException(
        Status.of(
            Status.Code.RESOURCE_EXHAUSTED,
            "decompressed message larger than the limit of " + maxBytes + " bytes"));
  }
}
