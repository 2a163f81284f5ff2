package io.sluice.core;

import io.sluice.Message;
import java.util.Objects;

/**
 * What a client puts in its SETUP frame besides the connection options: MIME types (opaque ASCII,
 * at most 255 bytes each) and the setup payload, whose ownership passes to the connector.
 *
 * <p><b>Threads.</b> Immutable; make it on any thread. <b>Buffers.</b> The connect call it is given
 * to sends the payload in SETUP and releases it, also when connecting fails; do not use or release
 * the payload after handing the setup over, and hand each payload to one connect only.
 */
public final class ClientSetup {
  /** rsocket-java's default MIME type. */
  public static final String DEFAULT_MIME_TYPE = "application/binary";

  private final String metadataMimeType;
  private final String dataMimeType;
  private final Message payload;
  private final Resumption resumption;

  private ClientSetup(
      String metadataMimeType, String dataMimeType, Message payload, Resumption resumption) {
    this.metadataMimeType = checkMime(metadataMimeType);
    this.dataMimeType = checkMime(dataMimeType);
    this.payload = payload;
    this.resumption = resumption;
  }

  public static ClientSetup defaults() {
    return new ClientSetup(DEFAULT_MIME_TYPE, DEFAULT_MIME_TYPE, null, null);
  }

  /** @param payload the SETUP payload, or null for none; ownership passes to the connector */
  public static ClientSetup of(String metadataMimeType, String dataMimeType, Message payload) {
    return new ClientSetup(metadataMimeType, dataMimeType, payload, null);
  }

  public String metadataMimeType() {
    return metadataMimeType;
  }

  public String dataMimeType() {
    return dataMimeType;
  }

  /**
   * This setup with session resumption: SETUP carries the R flag and a fresh token (128 random
   * bits from a {@link java.security.SecureRandom}, one per connect), and a lost transport is
   * reconnected and resumed as {@link Resumption} says. See docs/guide/resumption.md.
   */
  public ClientSetup resumable(Resumption resumption) {
    return new ClientSetup(
        metadataMimeType, dataMimeType, payload, Objects.requireNonNull(resumption, "resumption"));
  }

  /** The resumption asked for, or null. */
  public Resumption resumption() {
    return resumption;
  }

  /** The SETUP payload, or null. */
  public Message payload() {
    return payload;
  }

  private static String checkMime(String mime) {
    Objects.requireNonNull(mime, "MIME type");
    for (int i = 0; i < mime.length(); i++) {
      if (mime.charAt(i) > 0x7F) {
        throw new IllegalArgumentException("MIME type must be ASCII: " + mime);
      }
    }
    if (mime.length() > 255) {
      throw new IllegalArgumentException("MIME type longer than 255 bytes: " + mime);
    }
    return mime;
  }
}
