package io.sluice.core;

/**
 * What one connection has done so far: frames and bytes each way by frame type, ERROR frames by
 * code, streams by interaction and outcome, and the limits of docs/limits.md that refused or cut
 * something. Every value comes from a closed set, so a peer cannot make more of them.
 *
 * <p><b>Threads.</b> The engine writes the counts on the connection's event loop in plain fields
 * (no atomics, no allocation per frame); a reader on another thread sees each count as it was a
 * moment ago (a plain read of a long: never torn on a 64-bit JVM, maybe a little stale), which is
 * what a metrics scrape needs. After {@link ConnectionObserver#closed} the counts are final.
 */
public interface ConnectionStats {

  /** The interactions, as the streams meter names them. */
  enum Interaction {
    FIRE_AND_FORGET("fire_and_forget"),
    REQUEST_RESPONSE("request_response"),
    REQUEST_STREAM("request_stream"),
    REQUEST_CHANNEL("request_channel");

    private final String tag;

    Interaction(String tag) {
      this.tag = tag;
    }

    /** The tag value (lower snake case). */
    public String tag() {
      return tag;
    }
  }

  /** How a stream ended. */
  enum Outcome {
    /** Both halves completed (a fire-and-forget: handed to the responder or sent). */
    COMPLETE("complete"),
    /** An ERROR either way, or a rule of the protocol broken on the stream. */
    ERROR("error"),
    /** Canceled, by either side. */
    CANCELED("canceled"),
    /** Refused before a handler saw it (REJECTED: no lease, too many streams, draining). */
    REJECTED("rejected"),
    /** The connection closed under it. */
    CONNECTION_CLOSED("connection_closed");

    private final String tag;

    Outcome(String tag) {
      this.tag = tag;
    }

    public String tag() {
      return tag;
    }
  }

  /**
   * The bounds of docs/limits.md that the engine enforces per connection; the tag value is the
   * option's name (or the rule's, for the few that have no option).
   */
  enum Limit {
    SETUP_TIMEOUT("setupTimeout", true),
    MAX_FRAME_SIZE("maxFrameSize", true),
    MAX_ACTIVE_STREAMS("maxActiveStreams", false),
    MAX_REASSEMBLED_SIZE("maxReassembledSize", false),
    MAX_FRAGMENTS_PER_MESSAGE("maxFragmentsPerMessage", false),
    EMPTY_FRAGMENT("emptyFragment", false),
    MAX_REASSEMBLY_BYTES("maxReassemblyBytes", true),
    REQUEST_N_CREDIT("requestNCredit", false),
    MAX_KEEPALIVES_PER_SECOND("maxKeepAlivesPerSecond", true),
    MAX_KEEPALIVE_DATA_SIZE("maxKeepAliveDataSize", true),
    KEEPALIVE_ECHOES_PENDING("keepAliveEchoesPending", false),
    KEEPALIVE_MAX_LIFETIME("keepAliveMaxLifetime", true),
    MAX_PEER_KEEPALIVE_LIFETIME("maxPeerKeepAliveLifetime", false),
    MIN_PEER_KEEPALIVE_INTERVAL("minPeerKeepAliveInterval", false),
    MAX_METADATA_PUSHES_PER_SECOND("maxMetadataPushesPerSecond", true),
    MAX_METADATA_PUSH_SIZE("maxMetadataPushSize", true),
    MAX_REQUEST_N_PER_SECOND("maxRequestNPerSecond", true),
    MAX_CANCELS_PER_SECOND("maxCancelsPerSecond", true),
    MAX_STREAM_ERRORS_PER_SECOND("maxStreamErrorsPerSecond", true),
    MAX_IGNORED_FRAMES_PER_SECOND("maxIgnoredFramesPerSecond", true),
    WRITE_STALL_TIMEOUT("writeStallTimeout", true),
    OUTBOUND_METADATA_PUSH_SIZE("outboundMetadataPushSize", false),
    OUTBOUND_ERROR_SIZE("outboundErrorSize", false);

    private final String tag;
    private final boolean closes;

    Limit(String tag, boolean closes) {
      this.tag = tag;
      this.closes = closes;
    }

    public String tag() {
      return tag;
    }

    /** Breaking it closes the connection (else it refuses or cuts one stream or frame). */
    public boolean closes() {
      return closes;
    }
  }

  /** Why a connection closed. */
  enum CloseCause {
    /** The peer was silent for longer than the keepalive lifetime. */
    KEEPALIVE_TIMEOUT("keepalive_timeout"),
    /** The peer broke a limit that closes the connection ({@link #closeLimit()} says which). */
    LIMIT("limit"),
    /** The peer broke the protocol (a malformed frame, a bad stream id, a bad SETUP). */
    PROTOCOL_ERROR("protocol_error"),
    /** The peer sent a connection ERROR. */
    PEER_ERROR("peer_error"),
    /** The peer sent CONNECTION_CLOSE and the connection drained. */
    PEER_CLOSE("peer_close"),
    /** This side closed it ({@code close()}). */
    LOCAL_CLOSE("local_close"),
    /** A server's drain ({@code SluiceServer.stop}, {@code drain}). */
    DRAIN("drain"),
    /** The transport went away, failed, or the connection was disposed. */
    TRANSPORT("transport");

    private final String tag;

    CloseCause(String tag) {
      this.tag = tag;
    }

    public String tag() {
      return tag;
    }
  }

  /** Frame types counted apart: index {@code i} is frame type {@code i} for 0..14, and 15 is EXT. */
  int FRAME_TYPES = 16;

  /** The frame type name of a counted type index (as {@link #frames} takes it). */
  static String frameTypeName(int index) {
    return FrameTypeNames.NAMES[index];
  }

  /**
   * The ERROR codes counted apart, by index: the ten of the spec, and last "application-defined"
   * (0x301..0xFFFFFFFE), so a peer cannot make more values.
   */
  int ERROR_CODES = 11;

  /** The tag value of an error code index: the spec's name, e.g. {@code APPLICATION_ERROR}. */
  static String errorCodeName(int index) {
    return FrameTypeNames.ERRORS[index];
  }

  /** The index {@link #errors} takes for an RSocket error code. */
  static int errorCodeIndex(int code) {
    return FrameTypeNames.errorIndex(code);
  }

  /** The transport's name ({@code tcp}, {@code unix}, {@code local}, {@code websocket} ...). */
  String transport();

  /** True on the side that sent SETUP. */
  boolean client();

  /** Frames of one type index received ({@code inbound}) or sent. */
  long frames(boolean inbound, int typeIndex);

  /** Frame bytes received or sent (the RSocket frames, without the transport's framing). */
  long bytes(boolean inbound);

  /** ERROR frames of one code index received or sent. */
  long errors(boolean inbound, int codeIndex);

  /** Streams started of an interaction (both directions: as requester and as responder). */
  long streamsStarted(Interaction interaction);

  /** Streams ended of an interaction with an outcome. */
  long streamsEnded(Interaction interaction, Outcome outcome);

  /** Times a limit refused or cut something. */
  long limitHits(Limit limit);

  /** Why the connection closed, or null while it is open. */
  CloseCause closeCause();

  /** The limit that closed the connection when {@link #closeCause()} is LIMIT, else null. */
  Limit closeLimit();
}
