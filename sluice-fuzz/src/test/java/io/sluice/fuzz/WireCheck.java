package io.sluice.fuzz;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.sluice.ErrorCode;
import io.sluice.internal.frame.FrameType;
import io.sluice.internal.frame.FrameValidator;
import io.sluice.internal.frame.Frames;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the engine sent, checked against rules that hold whatever the peer did (the fuzzer is the
 * peer). The bytes are collected as they leave the channel and parsed at the end.
 */
final class WireCheck {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final boolean client;

  WireCheck(boolean client) {
    this.client = client;
  }

  private final List<String> foreign = new ArrayList<>();

  /** The transport was asked to write something other than a ByteBuf. */
  void foreign(Object msg) {
    foreign.add(msg.getClass().getName());
  }

  void add(ByteBuf buf) {
    byte[] b = new byte[buf.readableBytes()];
    buf.getBytes(buf.readerIndex(), b);
    bytes.write(b, 0, b.length);
  }

  /** One outbound frame, decoded just enough for the checks. */
  record Frame(int index, int streamId, int type, int flags, int size, int code, String text) {
    @Override
    public String toString() {
      String s = "#" + index + " " + FrameType.name(type) + "{stream=" + streamId + ", flags=0x"
          + Integer.toHexString(flags) + ", size=" + size;
      if (type == FrameType.ERROR) {
        s += ", code=0x" + Integer.toHexString(code) + ", text=" + text;
      }
      return s + "}";
    }
  }

  /** Parses what was sent and returns every rule it breaks (empty when all hold). */
  List<String> violations(boolean acceptedSetup, byte[] peer, List<Frame> out) {
    List<String> bad = new ArrayList<>();
    List<String> keepAliveEchoes = new ArrayList<>();
    for (String f : foreign) {
      bad.add("the engine wrote a " + f + ", not a ByteBuf");
    }
    ByteBuf all = Unpooled.wrappedBuffer(bytes.toByteArray());
    int index = 0;
    while (all.readableBytes() >= 3) {
      int length = all.getUnsignedMedium(all.readerIndex());
      if (all.readableBytes() < 3 + length) {
        break;
      }
      all.skipBytes(3);
      ByteBuf f = all.readSlice(length);
      String malformed = FrameValidator.validate(f);
      if (malformed != null) {
        bad.add("sent a malformed frame #" + index + ": " + malformed);
        index++;
        continue;
      }
      int type = Frames.type(f);
      int code = type == FrameType.ERROR ? Frames.errorCode(f) : 0;
      String text = type == FrameType.ERROR ? Frames.errorMessage(f) : null;
      out.add(new Frame(index, Frames.streamId(f), type, Frames.flags(f), length, code, text));
      if (type == FrameType.KEEPALIVE && !Frames.hasFlag(f, Frames.FLAG_KEEPALIVE_RESPOND)) {
        keepAliveEchoes.add(ByteBufUtil.hexDump(Frames.keepAliveData(f)));
      }
      if (type == FrameType.REQUEST_STREAM || type == FrameType.REQUEST_CHANNEL) {
        if (Frames.initialRequestN(f) <= 0) {
          bad.add("sent initial request N " + Frames.initialRequestN(f) + " in frame #" + index);
        }
      }
      if (type == FrameType.REQUEST_N && Frames.requestN(f) <= 0) {
        bad.add("sent REQUEST_N " + Frames.requestN(f) + " in frame #" + index);
      }
      index++;
    }
    if (all.isReadable()) {
      bad.add("the output ends with " + all.readableBytes() + " bytes of an incomplete frame");
    }

    boolean sawSetup = false;
    Frame fatal = null;
    for (Frame f : out) {
      if (fatal != null) {
        bad.add("sent " + f + " after the connection-ending " + fatal);
        break;
      }
      boolean connectionScoped = FrameType.isConnectionScoped(f.type());
      if (connectionScoped && f.streamId() != 0) {
        bad.add("sent " + f + " (stream 0 only) on a stream");
      }
      if (!connectionScoped
          && f.type() != FrameType.ERROR
          && f.type() != FrameType.EXT
          && f.streamId() == 0) {
        bad.add("sent " + f + " (a stream frame) on stream 0");
      }
      if (FrameType.isRequest(f.type()) && ((f.streamId() & 1) == 1) != client) {
        bad.add("sent " + f + ", a request on a stream id of the peer's parity");
      }
      if (f.type() == FrameType.PAYLOAD
          && (f.flags() & (Frames.FLAG_NEXT | Frames.FLAG_COMPLETE)) == 0) {
        bad.add("sent " + f + " with neither NEXT nor COMPLETE");
      }
      if (f.type() == FrameType.SETUP) {
        if (!client) {
          bad.add("a server sent " + f);
        } else if (sawSetup || f.index() != 0) {
          bad.add("the client's SETUP is not its first and only frame: " + f);
        }
        sawSetup = true;
      }
      if (f.type() == FrameType.RESUME || f.type() == FrameType.RESUME_OK) {
        bad.add("sent " + f + " though resumption is not supported");
      }
      if (f.type() == FrameType.ERROR) {
        boolean connectionCode = ErrorCode.isConnectionLevel(f.code());
        if (f.streamId() == 0 && !connectionCode) {
          bad.add("sent " + f + ": a stream error code on stream 0");
        }
        if (f.streamId() != 0 && connectionCode) {
          bad.add("sent " + f + ": a connection error code on a stream");
        }
        if (f.code() == ErrorCode.CONNECTION_ERROR && "internal error".equals(f.text())) {
          bad.add("sent " + f + ": an exception escaped inside the engine");
        }
        if (f.streamId() == 0 && f.code() != ErrorCode.CONNECTION_CLOSE) {
          fatal = f;
        }
      }
    }
    peerRules(peer, out, keepAliveEchoes, bad);
    if (client && !sawSetup) {
      bad.add("the client sent no SETUP");
    }
    if (!client && !acceptedSetup) {
      // Before it accepts a SETUP, a server only ever rejects (one ERROR on stream 0).
      for (Frame f : out) {
        if (f.type() != FrameType.ERROR || f.streamId() != 0 || out.size() > 1) {
          bad.add("sent " + f + " without having accepted a SETUP (all sent: " + out + ")");
          break;
        }
      }
    }
    return bad;
  }

  /**
   * Rules that relate what was sent to what the peer sent. The peer's bytes are parsed here the
   * way the transport splits them, but every frame counts, also those the engine never read (after
   * a close) or rejected: that only loosens the bounds, so a violation is always real.
   *
   * <ul>
   *   <li>Never more messages than credit (spec: "never more PAYLOADs than cumulative credit"):
   *       on each stream id, the PAYLOADs with NEXT that end a message are at most the credit
   *       the peer granted on that id (REQUEST_STREAM/CHANNEL initial N, REQUEST_N, one per
   *       REQUEST_RESPONSE), unless that reached 2^31-1 (unbounded).
   *   <li>A KEEPALIVE without R answers one of the peer's KEEPALIVEs with R, with the same data.
   * </ul>
   */
  private static void peerRules(
      byte[] peer, List<Frame> out, List<String> keepAliveEchoes, List<String> bad) {
    Map<Integer, Long> credit = new HashMap<>();
    List<String> keepAlives = new ArrayList<>();
    ByteBuf in = Unpooled.wrappedBuffer(peer);
    while (in.readableBytes() >= 3) {
      int length = in.readUnsignedMedium();
      if (in.readableBytes() < length) {
        break;
      }
      ByteBuf f = in.readSlice(length);
      if (length < Frames.HEADER_SIZE) {
        continue;
      }
      int id = Frames.streamId(f);
      int type = Frames.type(f);
      long grant = 0;
      if (type == FrameType.REQUEST_RESPONSE) {
        grant = 1;
      } else if ((type == FrameType.REQUEST_STREAM
              || type == FrameType.REQUEST_CHANNEL
              || type == FrameType.REQUEST_N)
          && length >= Frames.HEADER_SIZE + 4) {
        grant = f.getInt(f.readerIndex() + Frames.HEADER_SIZE) & 0x7FFFFFFFL;
      } else if (type == FrameType.KEEPALIVE
          && length >= Frames.HEADER_SIZE + 8
          && Frames.hasFlag(f, Frames.FLAG_KEEPALIVE_RESPOND)) {
        keepAlives.add(ByteBufUtil.hexDump(Frames.keepAliveData(f)));
      }
      if (grant > 0) {
        credit.merge(id, grant, (a, b) -> Math.min(Long.MAX_VALUE / 2, a + b));
      }
    }
    Map<Integer, Long> sent = new HashMap<>();
    for (Frame f : out) {
      if (f.type() == FrameType.REQUEST_CHANNEL && (f.flags() & Frames.FLAG_FOLLOWS) != 0) {
        // Our own channel's first message, fragmented: its last fragment is a PAYLOAD that
        // needs no credit.
        credit.merge(f.streamId(), 1L, Long::sum);
      }
      if (f.type() == FrameType.PAYLOAD
          && (f.flags() & Frames.FLAG_NEXT) != 0
          && (f.flags() & Frames.FLAG_FOLLOWS) == 0) {
        long n = sent.merge(f.streamId(), 1L, Long::sum);
        long granted = credit.getOrDefault(f.streamId(), 0L);
        if (granted < Integer.MAX_VALUE && n > granted) {
          bad.add(
              "sent message "
                  + n
                  + " on stream "
                  + f.streamId()
                  + " (frame #"
                  + f.index()
                  + ") though the peer granted only "
                  + granted);
          break;
        }
      }
    }
    for (String echo : keepAliveEchoes) {
      if (!keepAlives.remove(echo)) {
        bad.add(
            "sent a KEEPALIVE answer with data "
                + (echo.isEmpty() ? "(none)" : echo)
                + " that answers no KEEPALIVE with R from the peer");
        break;
      }
    }
  }
}
