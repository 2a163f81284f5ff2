package io.sluice.metadata;

/**
 * The well-known MIME types of the RSocket "Well-known MIME Types" extension, which composite
 * metadata (and the data/accept MIME type extensions) can send as a 7-bit id instead of a string.
 * The table is the one rsocket-java 1.1.5 uses; ids it leaves out are reserved, and readers report
 * them by number ({@link CompositeMetadata.Reader#wellKnownId()}).
 *
 * <p>Immutable constants: usable from any thread. Holds no buffers.
 */
public enum WellKnownMimeType {
  APPLICATION_AVRO("application/avro", 0x00),
  APPLICATION_CBOR("application/cbor", 0x01),
  APPLICATION_GRAPHQL("application/graphql", 0x02),
  APPLICATION_GZIP("application/gzip", 0x03),
  APPLICATION_JAVASCRIPT("application/javascript", 0x04),
  APPLICATION_JSON("application/json", 0x05),
  APPLICATION_OCTET_STREAM("application/octet-stream", 0x06),
  APPLICATION_PDF("application/pdf", 0x07),
  APPLICATION_THRIFT("application/vnd.apache.thrift.binary", 0x08),
  APPLICATION_PROTOBUF("application/vnd.google.protobuf", 0x09),
  APPLICATION_XML("application/xml", 0x0A),
  APPLICATION_ZIP("application/zip", 0x0B),
  AUDIO_AAC("audio/aac", 0x0C),
  AUDIO_MP3("audio/mp3", 0x0D),
  AUDIO_MP4("audio/mp4", 0x0E),
  AUDIO_MPEG3("audio/mpeg3", 0x0F),
  AUDIO_MPEG("audio/mpeg", 0x10),
  AUDIO_OGG("audio/ogg", 0x11),
  AUDIO_OPUS("audio/opus", 0x12),
  AUDIO_VORBIS("audio/vorbis", 0x13),
  IMAGE_BMP("image/bmp", 0x14),
  IMAGE_GIF("image/gif", 0x15),
  IMAGE_HEIC_SEQUENCE("image/heic-sequence", 0x16),
  IMAGE_HEIC("image/heic", 0x17),
  IMAGE_HEIF_SEQUENCE("image/heif-sequence", 0x18),
  IMAGE_HEIF("image/heif", 0x19),
  IMAGE_JPEG("image/jpeg", 0x1A),
  IMAGE_PNG("image/png", 0x1B),
  IMAGE_TIFF("image/tiff", 0x1C),
  MULTIPART_MIXED("multipart/mixed", 0x1D),
  TEXT_CSS("text/css", 0x1E),
  TEXT_CSV("text/csv", 0x1F),
  TEXT_HTML("text/html", 0x20),
  TEXT_PLAIN("text/plain", 0x21),
  TEXT_XML("text/xml", 0x22),
  VIDEO_H264("video/H264", 0x23),
  VIDEO_H265("video/H265", 0x24),
  VIDEO_VP8("video/VP8", 0x25),
  APPLICATION_HESSIAN("application/x-hessian", 0x26),
  APPLICATION_JAVA_OBJECT("application/x-java-object", 0x27),
  APPLICATION_CLOUDEVENTS_JSON("application/cloudevents+json", 0x28),
  MESSAGE_RSOCKET_MIMETYPE("message/x.rsocket.mime-type.v0", 0x7A),
  MESSAGE_RSOCKET_ACCEPT_MIMETYPES("message/x.rsocket.accept-mime-types.v0", 0x7B),
  MESSAGE_RSOCKET_AUTHENTICATION("message/x.rsocket.authentication.v0", 0x7C),
  MESSAGE_RSOCKET_TRACING_ZIPKIN("message/x.rsocket.tracing-zipkin.v0", 0x7D),
  MESSAGE_RSOCKET_ROUTING("message/x.rsocket.routing.v0", 0x7E),
  MESSAGE_RSOCKET_COMPOSITE_METADATA("message/x.rsocket.composite-metadata.v0", 0x7F);

  private static final WellKnownMimeType[] BY_ID = new WellKnownMimeType[128];

  static {
    for (WellKnownMimeType t : values()) {
      BY_ID[t.id] = t;
    }
  }

  private final String mimeType;
  private final int id;

  WellKnownMimeType(String mimeType, int id) {
    this.mimeType = mimeType;
    this.id = id;
  }

  /** The MIME type as a string (US-ASCII). */
  public String mimeType() {
    return mimeType;
  }

  /** The 7-bit id, 0..127. */
  public int id() {
    return id;
  }

  /** The type with this id, or null for an id that is reserved or outside 0..127. */
  public static WellKnownMimeType fromId(int id) {
    return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
  }

  /** The type whose MIME string is exactly {@code mimeType}, or null. */
  public static WellKnownMimeType fromMimeType(CharSequence mimeType) {
    if (mimeType == null) {
      return null;
    }
    for (WellKnownMimeType t : values()) {
      if (t.mimeType.contentEquals(mimeType)) {
        return t;
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return mimeType;
  }
}
