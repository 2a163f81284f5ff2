package io.sluice.test;

import static io.sluice.test.FrameBuilder.FLAG_METADATA;
import static io.sluice.test.FrameBuilder.FLAG_RESPOND;
import static io.sluice.test.FrameBuilder.TYPE_KEEPALIVE;
import static io.sluice.test.FrameBuilder.TYPE_LEASE;
import static io.sluice.test.FrameBuilder.TYPE_METADATA_PUSH;
import static io.sluice.test.FrameBuilder.TYPE_RESUME;
import static io.sluice.test.FrameBuilder.bytes;
import static io.sluice.test.FrameBuilder.u16;
import static io.sluice.test.FrameBuilder.u32;
import static io.sluice.test.FrameBuilder.u64;
import static io.sluice.test.FrameBuilder.utf8;

import io.netty.buffer.ByteBuf;
import io.sluice.test.FrameBuilder.Builder;
import io.sluice.test.FrameBuilder.PayloadBearing;

/**
 * The builders of {@link FrameBuilder}'s connection frames on stream 0 besides SETUP: LEASE,
 * KEEPALIVE, METADATA_PUSH and RESUME (RESUME_OK has no body beyond a position: {@link
 * FrameBuilder#resumeOk}). Made by {@link FrameBuilder}'s entry points ({@link
 * FrameBuilder#lease}, {@link FrameBuilder#keepAlive}, {@link FrameBuilder#metadataPush}, {@link
 * FrameBuilder#resume}); the same rules and escape hatches as every {@link Builder}.
 */
public final class ConnectionFrameBuilders {
  private ConnectionFrameBuilders() {}

  /** LEASE (type 0x02): u31 TTL, u31 number of requests, metadata without a length field. */
  public static final class LeaseBuilder extends PayloadBearing<LeaseBuilder> {
    private final int ttl;
    private final int requests;

    LeaseBuilder(int ttl, int requests) {
      super(TYPE_LEASE, 0);
      this.ttl = ttl;
      this.requests = requests;
    }

    @Override
    boolean metadataLengthField() {
      return false;
    }

    @Override
    int naturalFlags() {
      return metadataFlag();
    }

    @Override
    void writeBody(ByteBuf out) {
      u32(out, ttl);
      u32(out, requests);
      writeMetadataAndData(out);
    }
  }

  /** KEEPALIVE (type 0x03): R flag, u63 last received position, data. */
  public static final class KeepAliveBuilder extends Builder<KeepAliveBuilder> {
    private final boolean respond;
    private final long position;
    private byte[] data = new byte[0];

    KeepAliveBuilder(boolean respond, long position) {
      super(TYPE_KEEPALIVE, 0);
      this.respond = respond;
      this.position = position;
    }

    public KeepAliveBuilder data(byte[] data) {
      this.data = data == null ? new byte[0] : data.clone();
      return this;
    }

    public KeepAliveBuilder data(String data) {
      return data(utf8(data));
    }

    @Override
    int naturalFlags() {
      return respond ? FLAG_RESPOND : 0;
    }

    @Override
    void writeBody(ByteBuf out) {
      u64(out, position);
      bytes(out, data);
    }
  }

  /** METADATA_PUSH (type 0x0C): M flag always, metadata is the rest of the frame. */
  public static final class MetadataPushBuilder extends PayloadBearing<MetadataPushBuilder> {
    MetadataPushBuilder(byte[] metadata) {
      super(TYPE_METADATA_PUSH, 0);
      metadata(metadata == null ? new byte[0] : metadata);
    }

    @Override
    boolean metadataLengthField() {
      return false;
    }

    @Override
    int naturalFlags() {
      return FLAG_METADATA;
    }

    @Override
    void writeBody(ByteBuf out) {
      writeMetadataAndData(out);
    }
  }

  /** RESUME (type 0x0D). */
  public static final class ResumeBuilder extends Builder<ResumeBuilder> {
    private int major = 1;
    private int minor = 0;
    private final byte[] token;
    private final long lastReceivedServerPosition;
    private final long firstAvailableClientPosition;
    private Integer declaredTokenLength;

    ResumeBuilder(byte[] token, long lastReceivedServer, long firstAvailableClient) {
      super(TYPE_RESUME, 0);
      this.token = token.clone();
      this.lastReceivedServerPosition = lastReceivedServer;
      this.firstAvailableClientPosition = firstAvailableClient;
    }

    public ResumeBuilder version(int major, int minor) {
      this.major = major;
      this.minor = minor;
      return this;
    }

    /** Writes {@code length} as the u16 token length instead of the real one. */
    public ResumeBuilder declaredTokenLength(int length) {
      this.declaredTokenLength = length;
      return this;
    }

    @Override
    int naturalFlags() {
      return 0;
    }

    @Override
    void writeBody(ByteBuf out) {
      u16(out, major);
      u16(out, minor);
      u16(out, declaredTokenLength != null ? declaredTokenLength : token.length);
      bytes(out, token);
      u64(out, lastReceivedServerPosition);
      u64(out, firstAvailableClientPosition);
    }
  }
}
