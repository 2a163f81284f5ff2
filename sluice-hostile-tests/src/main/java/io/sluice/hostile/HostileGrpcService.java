package io.sluice.hostile;

import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import com.google.protobuf.StringValue;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What {@link HostileServerMain} serves to gRPC callers: a Sluice service written against the raw
 * call model (no codegen), its messages protobuf well-known types.
 *
 * <ul>
 *   <li>{@code Unary(StringValue) -> StringValue}: answers {@code echo:<value>}.
 *   <li>{@code Size(BytesValue) -> StringValue}: answers the size of the bytes received (what
 *       gzip bombs and oversize messages are sent to).
 *   <li>{@code Count(StringValue) -> stream BytesValue}: {@code "K"} sends K 64-byte messages,
 *       anything else sends them without end; only as many as {@code onReady} allows.
 *   <li>{@code Sink(stream BytesValue) -> StringValue}: takes messages one at a time and answers
 *       how many came, at the caller's half-close.
 * </ul>
 *
 * <p>Counts its calls that have started and not ended ({@link #liveCalls}): the server's {@code
 * streams} statistic; and the messages its Count calls sent ({@link #countSent}): its {@code
 * countSent}.
 */
final class HostileGrpcService {
  static final String NAME = "sluice.hostile.Hostile";
  private static final ByteString ITEM = ByteString.copyFrom(new byte[64]);

  private final AtomicInteger live = new AtomicInteger();
  private final AtomicLong countSent = new AtomicLong();

  int liveCalls() {
    return live.get();
  }

  /** Messages the Count calls have sent, all of them, since the server started. */
  long countSent() {
    return countSent.get();
  }

  ServiceRegistry registry() {
    ServiceDefinition def =
        ServiceDefinition.builder(NAME)
            .add(method("Unary", MethodKind.UNARY, StringValue.parser(), StringValue.parser()), this::unary)
            .add(method("Size", MethodKind.UNARY, BytesValue.parser(), StringValue.parser()), this::size)
            .add(method("Count", MethodKind.SERVER_STREAMING, StringValue.parser(), BytesValue.parser()), this::count)
            .add(method("Sink", MethodKind.CLIENT_STREAMING, BytesValue.parser(), StringValue.parser()), this::sink)
            .build();
    return ServiceRegistry.builder().add(def).build();
  }

  private static <Req extends MessageLite, Resp extends MessageLite> MethodDescriptor<Req, Resp> method(
      String name, MethodKind kind, Parser<Req> req, Parser<Resp> resp) {
    return MethodDescriptor.<Req, Resp>builder()
        .service(NAME)
        .method(name)
        .kind(kind)
        .requestParser(req)
        .responseParser(resp)
        .build();
  }

  private ServerCall.Listener<StringValue> unary(ServerCall<StringValue, StringValue> call) {
    call.request(1);
    return new Counted<>() {
      @Override
      public void onMessage(StringValue req) {
        call.sendMessage(StringValue.of("echo:" + req.getValue()));
        close(call, Status.OK);
      }
    };
  }

  private ServerCall.Listener<BytesValue> size(ServerCall<BytesValue, StringValue> call) {
    call.request(1);
    return new Counted<>() {
      @Override
      public void onMessage(BytesValue req) {
        call.sendMessage(StringValue.of(Integer.toString(req.getValue().size())));
        close(call, Status.OK);
      }
    };
  }

  private ServerCall.Listener<StringValue> count(ServerCall<StringValue, BytesValue> call) {
    call.request(1);
    return new Counted<>() {
      long total = -1;
      long sent;
      long credit;

      @Override
      public void onMessage(StringValue req) {
        String v = req.getValue();
        total = v.chars().allMatch(Character::isDigit) && !v.isEmpty() ? Long.parseLong(v) : Long.MAX_VALUE;
        send();
      }

      @Override
      public void onReady(long n) {
        credit += n;
        send();
      }

      private void send() {
        while (total >= 0 && credit > 0 && sent < total && !call.isClosed()) {
          credit--;
          sent++;
          countSent.incrementAndGet();
          call.sendMessage(BytesValue.of(ITEM));
        }
        if (sent == total) {
          sent++; // once
          close(call, Status.OK);
        }
      }
    };
  }

  private ServerCall.Listener<BytesValue> sink(ServerCall<BytesValue, StringValue> call) {
    call.request(1);
    return new Counted<>() {
      int received;

      @Override
      public void onMessage(BytesValue message) {
        received++;
        call.request(1);
      }

      @Override
      public void onHalfClose() {
        call.sendMessage(StringValue.of(Integer.toString(received)));
        close(call, Status.OK);
      }
    };
  }

  /** A listener counted among the live calls until it closes its call or is cancelled. */
  private abstract class Counted<Req> implements ServerCall.Listener<Req> {
    private boolean ended;

    Counted() {
      live.incrementAndGet();
    }

    void close(ServerCall<?, ?> call, Status status) {
      end();
      call.close(status);
    }

    private void end() {
      if (!ended) {
        ended = true;
        live.decrementAndGet();
      }
    }

    @Override
    public void onMessage(Req message) {}

    @Override
    public void onHalfClose() {}

    @Override
    public void onCancel() {
      end();
    }

    @Override
    public void onReady(long n) {}
  }
}
