package io.sluice.rpc;

import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import java.util.Objects;

/**
 * Describes one RPC method: its service and name, its {@link MethodKind}, its options from {@code
 * (sluice.method)}, and how its messages are parsed. Generated code declares one constant per
 * method. Immutable.
 *
 * <p>Safe to share between threads. Holds no buffers: its parsers turn bytes into protobuf
 * messages, which hold none either.
 *
 * @param <Req> the request message type
 * @param <Resp> the response message type
 */
public final class MethodDescriptor<Req extends MessageLite, Resp extends MessageLite> {
  private final String service;
  private final String method;
  private final MethodKind kind;
  private final boolean idempotent;
  private final int rank;
  private final Parser<Req> requestParser;
  private final Parser<Resp> responseParser;

  private MethodDescriptor(Builder<Req, Resp> b) {
    this.service = CallMetadata.checkName("service", b.service);
    this.method = CallMetadata.checkName("method", b.method);
    this.kind = Objects.requireNonNull(b.kind, "kind");
    this.idempotent = b.idempotent;
    this.rank = b.rank;
    this.requestParser = Objects.requireNonNull(b.requestParser, "requestParser");
    this.responseParser = Objects.requireNonNull(b.responseParser, "responseParser");
  }

  public static <Req extends MessageLite, Resp extends MessageLite> Builder<Req, Resp> builder() {
    return new Builder<>();
  }

  /** The fully qualified proto service name, e.g. {@code demo.Greeter}. */
  public String service() {
    return service;
  }

  /** The proto method name, e.g. {@code SayHello}. */
  public String method() {
    return method;
  }

  /** {@code service/method}, as in gRPC's {@code :path} without the leading slash. */
  public String fullName() {
    return service + "/" + method;
  }

  public MethodKind kind() {
    return kind;
  }

  /** Declared {@code (sluice.method).idempotent}. */
  public boolean idempotent() {
    return idempotent;
  }

  /** Declared {@code (sluice.method).rank}; 0 by default. */
  public int rank() {
    return rank;
  }

  public Parser<Req> requestParser() {
    return requestParser;
  }

  public Parser<Resp> responseParser() {
    return responseParser;
  }

  @Override
  public String toString() {
    return fullName() + " (" + kind + (idempotent ? ", idempotent" : "") + ")";
  }

  /** Builds a {@link MethodDescriptor}. */
  public static final class Builder<Req extends MessageLite, Resp extends MessageLite> {
    private String service;
    private String method;
    private MethodKind kind;
    private boolean idempotent;
    private int rank;
    private Parser<Req> requestParser;
    private Parser<Resp> responseParser;

    private Builder() {}

    public Builder<Req, Resp> service(String service) {
      this.service = service;
      return this;
    }

    public Builder<Req, Resp> method(String method) {
      this.method = method;
      return this;
    }

    public Builder<Req, Resp> kind(MethodKind kind) {
      this.kind = kind;
      return this;
    }

    public Builder<Req, Resp> idempotent(boolean idempotent) {
      this.idempotent = idempotent;
      return this;
    }

    public Builder<Req, Resp> rank(int rank) {
      this.rank = rank;
      return this;
    }

    public Builder<Req, Resp> requestParser(Parser<Req> requestParser) {
      this.requestParser = requestParser;
      return this;
    }

    public Builder<Req, Resp> responseParser(Parser<Resp> responseParser) {
      this.responseParser = responseParser;
      return this;
    }

    public MethodDescriptor<Req, Resp> build() {
      return new MethodDescriptor<>(this);
    }
  }
}
