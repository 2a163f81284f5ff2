package io.sluice.internal.frame;

import io.netty.buffer.ByteBuf;

/**
 * First phase of decoding: checks that a frame's fixed fields and declared lengths fit inside it,
 * so the flyweight readers in {@link Frames} and {@link Setup} can run without further checks.
 * Never throws; a malformed frame yields a description of what is wrong, which the engine turns
 * into ERROR[CONNECTION_ERROR] and a close.
 */
public final class FrameValidator {
  private FrameValidator() {}

  /** Returned for a frame type this implementation does not know. */
  public static final String UNKNOWN_TYPE = "unknown frame type";

  /** Returns null if {@code frame} is well formed, otherwise what is wrong with it. */
  public static String validate(ByteBuf frame) {
    int size = frame.readableBytes();
    if (size < Frames.HEADER_SIZE) {
      return "frame of " + size + " bytes is shorter than the 6-byte header";
    }
    int type = Frames.type(frame);
    int flags = Frames.flags(frame);
    switch (type) {
      case FrameType.SETUP:
        return validateSetup(frame, size, flags);
      case FrameType.LEASE:
        return atLeast(size, Frames.HEADER_SIZE + 8, type);
      case FrameType.KEEPALIVE:
        return atLeast(size, Frames.HEADER_SIZE + 8, type);
      case FrameType.REQUEST_RESPONSE:
      case FrameType.REQUEST_FNF:
      case FrameType.PAYLOAD:
        return metadataFits(frame, Frames.HEADER_SIZE, size, flags, type);
      case FrameType.REQUEST_STREAM:
      case FrameType.REQUEST_CHANNEL:
      case FrameType.EXT:
        {
          String bad = atLeast(size, Frames.HEADER_SIZE + 4, type);
          return bad != null ? bad : metadataFits(frame, Frames.HEADER_SIZE + 4, size, flags, type);
        }
      case FrameType.REQUEST_N:
        return atLeast(size, Frames.HEADER_SIZE + 4, type);
      case FrameType.CANCEL:
        return null;
      case FrameType.ERROR:
        return atLeast(size, Frames.HEADER_SIZE + 4, type);
      case FrameType.METADATA_PUSH:
        return null;
      case FrameType.RESUME:
        {
          String bad = atLeast(size, Frames.HEADER_SIZE + 6, type);
          if (bad != null) {
            return bad;
          }
          int tokenLength = frame.getUnsignedShort(frame.readerIndex() + Frames.HEADER_SIZE + 4);
          return atLeast(size, Frames.HEADER_SIZE + 6 + tokenLength + 16, type);
        }
      case FrameType.RESUME_OK:
        return atLeast(size, Frames.HEADER_SIZE + 8, type);
      default:
        return UNKNOWN_TYPE;
    }
  }

  private static String atLeast(int size, int min, int type) {
    return size >= min
        ? null
        : FrameType.name(type) + " frame of " + size + " bytes is shorter than " + min;
  }

  private static String metadataFits(ByteBuf frame, int offset, int size, int flags, int type) {
    if ((flags & Frames.FLAG_METADATA) == 0) {
      return null;
    }
    if (size < offset + Frames.METADATA_LENGTH_SIZE) {
      return FrameType.name(type) + " has the M flag but no room for the metadata length";
    }
    int length = Frames.getU24(frame, frame.readerIndex() + offset);
    if (offset + Frames.METADATA_LENGTH_SIZE + length > size) {
      return FrameType.name(type)
          + " declares "
          + length
          + " bytes of metadata but only "
          + (size - offset - Frames.METADATA_LENGTH_SIZE)
          + " remain";
    }
    return null;
  }

  private static String validateSetup(ByteBuf frame, int size, int flags) {
    String bad = atLeast(size, Setup.MIN_SIZE, FrameType.SETUP);
    if (bad != null) {
      return bad;
    }
    int base = frame.readerIndex();
    int at = Frames.HEADER_SIZE + 12;
    if ((flags & Frames.FLAG_SETUP_RESUME) != 0) {
      if (size < at + 2) {
        return "SETUP has the R flag but no room for the resume token length";
      }
      at += 2 + frame.getUnsignedShort(base + at);
    }
    for (int i = 0; i < 2; i++) {
      if (size < at + 1) {
        return "SETUP ends before its MIME types";
      }
      at += 1 + frame.getUnsignedByte(base + at);
    }
    if (size < at) {
      return "SETUP MIME type runs past the end of the frame";
    }
    return metadataFits(frame, at, size, flags, FrameType.SETUP);
  }
}
