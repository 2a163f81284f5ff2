package io.sluice.metadata;

/**
 * Metadata bytes do not follow the extension's layout: a length runs past the end of the buffer, a
 * field is cut short, and so on. The message names the extension, the entry and the byte offset.
 *
 * <p>Thrown on the thread that decodes. Holds no buffers: the offending bytes are described in the
 * message text, never kept.
 */
public final class MalformedMetadataException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public MalformedMetadataException(String message) {
    super(message);
  }
}
