package io.sluice.transport.grpc;

import com.google.protobuf.BytesValue;
import com.google.protobuf.ByteString;
import com.google.protobuf.StringValue;
import io.sluice.rpc.Headers;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A Sluice service written against the raw call model (no flavor, no codegen), served by the tests
 * to grpc-java clients. Messages are protobuf well-known types.
 *
 * <ul>
 *   <li>{@code Unary(StringValue) -> StringValue}: echoes; {@code "status:CODE:message"} ends the
 *       call with that status, {@code "throw"} throws from the handler; echoes {@code x-echo-initial} as a response header and {@code
 *       x-echo-trailing-bin} as a trailer.
 *   <li>{@code Bytes(BytesValue) -> BytesValue}: echoes (large messages).
 *   <li>{@code Hang(StringValue) -> StringValue}: never answers; completes {@link #hangCancelled} when
 *       the call is cancelled (deadline, RST_STREAM).
 *   <li>{@code Count(StringValue "n:size") -> stream BytesValue}: n messages of size bytes, sent
 *       only as onReady allows.
 *   <li>{@code Sum(stream BytesValue) -> StringValue}: the count and total size received.
 *   <li>{@code Chat(stream BytesValue) -> stream BytesValue}: echoes each message.
 *   <li>{@code Sink(stream BytesValue) -> StringValue}: asks for no message at all; records how
 *       many bytes the server was given (never asked for).
 *   <li>{@code ThrowOnCancel(StringValue) -> StringValue}: never answers; its {@code onCancel}
 *       completes {@link #throwOnCancelCalled}, then throws.
 *   <li>{@code ThrowOnReady(StringValue) -> stream BytesValue}: its {@code onReady} throws.
 * </ul>
 */
final class EchoService {
  static final String NAME = "sluice.test.Echo";

  final CompletableFuture<Status> hangCancelled = new CompletableFuture<>();
  final CompletableFuture<Status> chatCancelled = new CompletableFuture<>();
  final CompletableFuture<Status> sinkCancelled = new CompletableFuture<>();
  final CompletableFuture<Void> sinkStarted = new CompletableFuture<>();
  /** Flood: how many of its 1 MiB responses it sent before the call was closed; -1 until then. */
  final CompletableFuture<Integer> floodSent = new CompletableFuture<>();

  final CompletableFuture<Status> floodCancelled = new CompletableFuture<>();

  final CompletableFuture<Void> throwOnCancelCalled = new CompletableFuture<>();

  /** Messages the handlers of Count sent. */
  final AtomicLong countSent = new AtomicLong();

  static <Req extends com.google.protobuf.MessageLite, Resp extends com.google.protobuf.MessageLite>
      MethodDescriptor<Req, Resp> method(
          String name, MethodKind kind, com.google.protobuf.Parser<Req> req, com.google.protobuf.Parser<Resp> resp) {
    return MethodDescriptor.<Req, Resp>builder()
        .service(NAME)
        .method(name)
        .kind(kind)
        .requestParser(req)
        .responseParser(resp)
        .build();
  }

  ServiceRegistry registry() {
    ServiceDefinition def =
        ServiceDefinition.builder(NAME)
            .add(method("Unary", MethodKind.UNARY, StringValue.parser(), StringValue.parser()), this::unary)
            .add(method("Bytes", MethodKind.UNARY, BytesValue.parser(), BytesValue.parser()), this::bytes)
            .add(method("Hang", MethodKind.UNARY, StringValue.parser(), StringValue.parser()), this::hang)
            .add(method("Count", MethodKind.SERVER_STREAMING, StringValue.parser(), BytesValue.parser()), this::count)
            .add(method("Sum", MethodKind.CLIENT_STREAMING, BytesValue.parser(), StringValue.parser()), this::sum)
            .add(method("Chat", MethodKind.BIDI_STREAMING, BytesValue.parser(), BytesValue.parser()), this::chat)
            .add(method("Sink", MethodKind.CLIENT_STREAMING, BytesValue.parser(), StringValue.parser()), this::sink)
            .add(method("Flood", MethodKind.SERVER_STREAMING, StringValue.parser(), BytesValue.parser()), this::flood)
            .add(method("ThrowOnCancel", MethodKind.UNARY, StringValue.parser(), StringValue.parser()), this::throwOnCancel)
            .add(method("ThrowOnReady", MethodKind.SERVER_STREAMING, StringValue.parser(), BytesValue.parser()), this::throwOnReady)
            .build();
    return ServiceRegistry.builder().add(def).build();
  }

  /** A listener with no-op defaults. */
  abstract static class Adapter<Req> implements ServerCall.Listener<Req> {
    @Override
    public void onMessage(Req message) {}

    @Override
    public void onHalfClose() {}

    @Override
    public void onCancel() {}

    @Override
    public void onReady(long n) {}
  }

  private ServerCall.Listener<StringValue> unary(ServerCall<StringValue, StringValue> call) {
    call.request(1);
    return new Adapter<>() {
      @Override
      public void onMessage(StringValue req) {
        Headers in = call.metadata().headers();
        String initial = in.get("x-echo-initial");
        if (initial != null) {
          call.sendHeaders(Headers.of("x-echo-initial", initial));
        }
        Headers trailers = Headers.EMPTY;
        byte[] trailing = in.isEmpty() ? null : in.getBinary("x-echo-trailing-bin");
        if (trailing != null) {
          trailers = Headers.builder().addBinary("x-echo-trailing-bin", trailing).build();
        }
        String v = req.getValue();
        if (v.equals("throw")) {
          throw new IllegalStateException("boom");
        }
        if (v.startsWith("status:")) {
          int colon = v.indexOf(':', 7);
          Status.Code code = Status.Code.fromValue(Integer.parseInt(v.substring(7, colon)));
          call.close(Status.of(code, v.substring(colon + 1)), trailers);
          return;
        }
        call.sendMessage(req);
        call.close(Status.OK, trailers);
      }
    };
  }

  private ServerCall.Listener<BytesValue> bytes(ServerCall<BytesValue, BytesValue> call) {
    call.request(1);
    return new Adapter<>() {
      @Override
      public void onMessage(BytesValue req) {
        call.sendMessage(req);
        call.close(Status.OK);
      }
    };
  }

  private ServerCall.Listener<StringValue> hang(ServerCall<StringValue, StringValue> call) {
    call.request(1);
    return new Adapter<>() {
      @Override
      public void onCancel() {
        hangCancelled.complete(Status.of(Status.Code.CANCELLED, call.isClosed() ? "closed" : "open"));
      }
    };
  }

  private ServerCall.Listener<StringValue> count(ServerCall<StringValue, BytesValue> call) {
    call.request(1);
    return new Adapter<>() {
      long credit;
      int left = -1;
      ByteString payload;

      @Override
      public void onMessage(StringValue req) {
        String[] parts = req.getValue().split(":");
        left = Integer.parseInt(parts[0]);
        payload = ByteString.copyFrom(new byte[Integer.parseInt(parts[1])]);
        pump();
      }

      @Override
      public void onReady(long n) {
        credit += n;
        pump();
      }

      private void pump() {
        while (left > 0 && credit > 0) {
          left--;
          credit--;
          countSent.incrementAndGet();
          call.sendMessage(BytesValue.newBuilder().setValue(payload).build());
        }
        if (left == 0) {
          left = -1;
          call.close(Status.OK);
        }
      }
    };
  }

  private ServerCall.Listener<BytesValue> sum(ServerCall<BytesValue, StringValue> call) {
    call.request(1);
    return new Adapter<>() {
      int count;
      long bytes;

      @Override
      public void onMessage(BytesValue m) {
        count++;
        bytes += m.getValue().size();
        call.request(1);
      }

      @Override
      public void onHalfClose() {
        call.sendMessage(StringValue.of(count + ":" + bytes));
        call.close(Status.OK);
      }
    };
  }

  private ServerCall.Listener<BytesValue> chat(ServerCall<BytesValue, BytesValue> call) {
    call.request(1);
    return new Adapter<>() {
      @Override
      public void onMessage(BytesValue m) {
        call.sendMessage(m);
        call.request(1);
      }

      @Override
      public void onHalfClose() {
        call.close(Status.OK);
      }

      @Override
      public void onCancel() {
        chatCancelled.complete(Status.of(Status.Code.CANCELLED, "chat"));
      }
    };
  }

  /** Ignores onReady: sends up to 200 responses of 1 MiB at once, while the call is open. */
  private ServerCall.Listener<StringValue> flood(ServerCall<StringValue, BytesValue> call) {
    call.request(1);
    return new Adapter<>() {
      @Override
      public void onMessage(StringValue req) {
        BytesValue big = BytesValue.of(ByteString.copyFrom(new byte[1 << 20]));
        int i = 0;
        while (i < 200 && !call.isClosed()) {
          call.sendMessage(big);
          i++;
        }
        floodSent.complete(i);
      }

      @Override
      public void onCancel() {
        floodCancelled.complete(Status.of(Status.Code.CANCELLED, "flood"));
      }
    };
  }

  private ServerCall.Listener<StringValue> throwOnCancel(ServerCall<StringValue, StringValue> call) {
    call.request(1);
    return new Adapter<>() {
      @Override
      public void onCancel() {
        throwOnCancelCalled.complete(null);
        throw new IllegalStateException("onCancel failed");
      }
    };
  }

  private ServerCall.Listener<StringValue> throwOnReady(ServerCall<StringValue, BytesValue> call) {
    call.request(1);
    return new Adapter<>() {
      @Override
      public void onReady(long n) {
        throw new IllegalStateException("onReady failed");
      }
    };
  }

  private ServerCall.Listener<BytesValue> sink(ServerCall<BytesValue, StringValue> call) {
    sinkStarted.complete(null);
    return new Adapter<>() {
      @Override
      public void onCancel() {
        sinkCancelled.complete(Status.of(Status.Code.CANCELLED, "sink"));
      }
    };
  }
}
