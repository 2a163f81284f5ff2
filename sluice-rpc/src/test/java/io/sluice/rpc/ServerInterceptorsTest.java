package io.sluice.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.MessageLite;
import com.google.protobuf.StringValue;
import com.google.protobuf.WrappersProto;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ServerInterceptors} and {@link ForwardingServerCall} on calls made by hand (a {@link
 * RecordingServerCall}): the order interceptors run in, refusing a call, adding headers and
 * trailers, every method kind, and the errors of bad arguments. The same over RSocket and gRPC is
 * in sluice-rpc-reactor's InterceptorsOverRsocketTest and sluice-grpc-interop's tests.
 */
class ServerInterceptorsTest {
  private static final String SERVICE = "demo.Greeter";

  private static MethodDescriptor<StringValue, StringValue> method(String name, MethodKind kind) {
    return MethodDescriptor.<StringValue, StringValue>builder()
        .service(SERVICE)
        .method(name)
        .kind(kind)
        .requestParser(StringValue.parser())
        .responseParser(StringValue.parser())
        .build();
  }

  private static final MethodDescriptor<StringValue, StringValue> SAY = method("Say", MethodKind.UNARY);

  /** A handler that notes it ran, asks for one request and answers it with its text reversed. */
  private static final class Echo implements ServerCallHandler<StringValue, StringValue> {
    final List<String> trace;
    int started;

    Echo(List<String> trace) {
      this.trace = trace;
    }

    @Override
    public ServerCall.Listener<StringValue> startCall(ServerCall<StringValue, StringValue> call) {
      started++;
      trace.add("handler");
      call.request(1);
      return new ServerCall.Listener<>() {
        @Override
        public void onMessage(StringValue message) {
          call.sendMessage(StringValue.of(new StringBuilder(message.getValue()).reverse().toString()));
        }

        @Override
        public void onHalfClose() {
          call.close(Status.OK);
        }

        @Override
        public void onCancel() {}

        @Override
        public void onReady(long n) {}
      };
    }
  }

  /** Notes its name in {@code trace}, then starts the rest of the chain. */
  private static ServerInterceptor tracing(String name, List<String> trace) {
    return new ServerInterceptor() {
      @Override
      public <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> interceptCall(
          ServerCall<Req, Resp> call, ServerCallHandler<Req, Resp> next) {
        trace.add(name);
        return next.startCall(call);
      }

      @Override
      public String toString() {
        return name;
      }
    };
  }

  @SuppressWarnings("unchecked")
  private static ServerCallHandler<StringValue, StringValue> handlerOf(ServiceDefinition d, String method) {
    return (ServerCallHandler<StringValue, StringValue>) d.method(method).handler();
  }

  @Test
  void theLastInterceptorListedRunsFirstAndNestingAgrees() {
    List<String> trace = new ArrayList<>();
    ServiceDefinition s = ServiceDefinition.builder(SERVICE).add(SAY, new Echo(trace)).build();

    ServiceDefinition flat =
        ServerInterceptors.intercept(s, tracing("a", trace), tracing("b", trace), tracing("c", trace));
    handlerOf(flat, "Say").startCall(new RecordingServerCall<>(SAY, Headers.EMPTY));
    assertThat(trace).containsExactly("c", "b", "a", "handler");

    trace.clear();
    ServiceDefinition nested =
        ServerInterceptors.intercept(
            ServerInterceptors.intercept(s, List.of(tracing("a", trace), tracing("b", trace))),
            tracing("c", trace));
    handlerOf(nested, "Say").startCall(new RecordingServerCall<>(SAY, Headers.EMPTY));
    assertThat(trace).containsExactly("c", "b", "a", "handler");
  }

  /** Refuses calls without an {@code authorization} header: the handler never runs. */
  private static final ServerInterceptor AUTH =
      new ServerInterceptor() {
        @Override
        public <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> interceptCall(
            ServerCall<Req, Resp> call, ServerCallHandler<Req, Resp> next) {
          if (!"Bearer t0k3n".equals(call.metadata().headers().get("authorization"))) {
            return ServerInterceptors.reject(call, Status.of(Status.Code.UNAUTHENTICATED, "no valid token"));
          }
          return next.startCall(call);
        }
      };

  @Test
  void anInterceptorRefusesACallBeforeTheHandlerRuns() {
    Echo echo = new Echo(new ArrayList<>());
    ServiceDefinition s =
        ServerInterceptors.intercept(ServiceDefinition.builder(SERVICE).add(SAY, echo).build(), AUTH);

    RecordingServerCall<StringValue, StringValue> refused = new RecordingServerCall<>(SAY, Headers.EMPTY);
    ServerCall.Listener<StringValue> l = handlerOf(s, "Say").startCall(refused);
    assertThat(echo.started).as("handler started").isZero();
    assertThat(refused.status.code()).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(refused.status.description()).isEqualTo("no valid token");
    assertThat(refused.events).as("nothing requested, nothing sent").containsExactly("close(UNAUTHENTICATED)");
    // Signals still to come are ignored.
    l.onMessage(StringValue.of("x"));
    l.onHalfClose();
    l.onReady(1);
    l.onCancel();
    assertThat(refused.events).containsExactly("close(UNAUTHENTICATED)");

    RecordingServerCall<StringValue, StringValue> allowed =
        new RecordingServerCall<>(SAY, Headers.of("authorization", "Bearer t0k3n"));
    ServerCall.Listener<StringValue> ok = handlerOf(s, "Say").startCall(allowed);
    ok.onMessage(StringValue.of("abc"));
    ok.onHalfClose();
    assertThat(echo.started).isOne();
    assertThat(allowed.sent).containsExactly(StringValue.of("cba"));
    assertThat(allowed.status).isEqualTo(Status.OK);
  }

  @Test
  void rejectWithTrailersEndsTheCallWithThem() {
    RecordingServerCall<StringValue, StringValue> call = new RecordingServerCall<>(SAY, Headers.EMPTY);
    Headers why = Headers.of("why", "quota");
    ServerInterceptors.reject(call, Status.of(Status.Code.RESOURCE_EXHAUSTED, "over quota"), why);
    assertThat(call.events).containsExactly("close(RESOURCE_EXHAUSTED, trailers)");
    assertThat(call.trailers).isEqualTo(why);
  }

  /** Sends a header as the call starts and adds a trailer to however it ends. */
  static final class AddsMetadata implements ServerInterceptor {
    @Override
    public <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> interceptCall(
        ServerCall<Req, Resp> call, ServerCallHandler<Req, Resp> next) {
      call.sendHeaders(Headers.of("server-id", "s1"));
      return next.startCall(
          new ForwardingServerCall<>(call) {
            @Override
            public void close(Status status) {
              close(status, Headers.EMPTY);
            }

            @Override
            public void close(Status status, Headers trailers) {
              super.close(status, trailers.toBuilder().add("ended", status.code().name()).build());
            }
          });
    }
  }

  @Test
  void anInterceptorAddsAHeaderAndATrailer() {
    ServiceDefinition s =
        ServerInterceptors.intercept(
            ServiceDefinition.builder(SERVICE).add(SAY, new Echo(new ArrayList<>())).build(), new AddsMetadata());
    RecordingServerCall<StringValue, StringValue> call = new RecordingServerCall<>(SAY, Headers.EMPTY);
    ServerCall.Listener<StringValue> l = handlerOf(s, "Say").startCall(call);
    l.onMessage(StringValue.of("hi"));
    l.onHalfClose();
    assertThat(call.events).containsExactly("sendHeaders", "request(1)", "sendMessage", "close(OK, trailers)");
    assertThat(call.headers).isEqualTo(Headers.of("server-id", "s1"));
    assertThat(call.trailers).isEqualTo(Headers.of("ended", "OK"));
  }

  /** Echoes a request header {@code echo} as a response header and trailer; a fixed trailer too. */
  private static final ServerInterceptor RESPONSE_METADATA =
      ServerInterceptors.responseMetadata(
          call -> {
            String v = call.headers().get("echo");
            return v == null ? Headers.EMPTY : Headers.of("echo", v);
          },
          (call, status) -> {
            String v = call.headers().get("echo");
            return v == null ? Headers.EMPTY : Headers.of("echo", v, "ended", status.code().name());
          });

  @Test
  void responseMetadataSendsItsHeadersAtTheStartAndItsTrailersAheadOfTheHandlers() {
    ServerCallHandler<StringValue, StringValue> closingWithTrailers =
        call -> {
          call.request(1);
          return new ServerCall.Listener<>() {
            @Override
            public void onMessage(StringValue message) {
              call.close(Status.of(Status.Code.ABORTED, "no"), Headers.of("handler", "h"));
            }

            @Override
            public void onHalfClose() {}

            @Override
            public void onCancel() {}

            @Override
            public void onReady(long n) {}
          };
        };
    ServiceDefinition s =
        ServerInterceptors.intercept(
            ServiceDefinition.builder(SERVICE).add(SAY, closingWithTrailers).build(), RESPONSE_METADATA);
    RecordingServerCall<StringValue, StringValue> call = new RecordingServerCall<>(SAY, Headers.of("echo", "e1"));
    handlerOf(s, "Say").startCall(call).onMessage(StringValue.of("hi"));
    assertThat(call.events).containsExactly("sendHeaders", "request(1)", "close(ABORTED, trailers)");
    assertThat(call.headers).isEqualTo(Headers.of("echo", "e1"));
    assertThat(call.trailers).isEqualTo(Headers.of("echo", "e1", "ended", "ABORTED", "handler", "h"));

    RecordingServerCall<StringValue, StringValue> plain = new RecordingServerCall<>(SAY, Headers.EMPTY);
    handlerOf(s, "Say").startCall(plain).onMessage(StringValue.of("hi"));
    assertThat(plain.events).as("nothing added").containsExactly("request(1)", "close(ABORTED, trailers)");
    assertThat(plain.trailers).isEqualTo(Headers.of("handler", "h"));
  }

  @Test
  void responseMetadataAddsItsTrailersToAPlainClose() {
    ServiceDefinition s =
        ServerInterceptors.intercept(
            ServiceDefinition.builder(SERVICE).add(SAY, new Echo(new ArrayList<>())).build(), RESPONSE_METADATA);
    RecordingServerCall<StringValue, StringValue> call = new RecordingServerCall<>(SAY, Headers.of("echo", "e2"));
    ServerCall.Listener<StringValue> l = handlerOf(s, "Say").startCall(call);
    l.onMessage(StringValue.of("hi"));
    l.onHalfClose();
    assertThat(call.events).containsExactly("sendHeaders", "request(1)", "sendMessage", "close(OK, trailers)");
    assertThat(call.trailers).isEqualTo(Headers.of("echo", "e2", "ended", "OK"));

    RecordingServerCall<StringValue, StringValue> plain = new RecordingServerCall<>(SAY, Headers.EMPTY);
    l = handlerOf(s, "Say").startCall(plain);
    l.onMessage(StringValue.of("hi"));
    l.onHalfClose();
    assertThat(plain.events).as("a plain close stays plain").containsExactly("request(1)", "sendMessage", "close(OK)");
  }

  private static FileDescriptor greeterFile() throws Exception {
    ServiceDescriptorProto.Builder svc = ServiceDescriptorProto.newBuilder().setName("Greeter");
    String[] names = {"Say", "Watch", "Collect", "Chat"};
    boolean[][] streams = {{false, false}, {false, true}, {true, false}, {true, true}};
    for (int i = 0; i < names.length; i++) {
      svc.addMethod(
          MethodDescriptorProto.newBuilder()
              .setName(names[i])
              .setInputType(".google.protobuf.StringValue")
              .setOutputType(".google.protobuf.StringValue")
              .setClientStreaming(streams[i][0])
              .setServerStreaming(streams[i][1]));
    }
    FileDescriptorProto p =
        FileDescriptorProto.newBuilder()
            .setName("greeter.proto")
            .setPackage("demo")
            .addDependency("google/protobuf/wrappers.proto")
            .addService(svc)
            .build();
    return FileDescriptor.buildFrom(p, new FileDescriptor[] {WrappersProto.getDescriptor()});
  }

  @Test
  void everyMethodOfEveryKindIsInterceptedAndTheServiceKeepsItsNameAndFile() throws Exception {
    List<String> trace = new ArrayList<>();
    List<MethodDescriptor<StringValue, StringValue>> methods =
        List.of(
            SAY,
            method("Watch", MethodKind.SERVER_STREAMING),
            method("Collect", MethodKind.CLIENT_STREAMING),
            method("Chat", MethodKind.BIDI_STREAMING),
            method("Note", MethodKind.FIRE_AND_FORGET));
    FileDescriptor file = greeterFile();
    ServiceDefinition.Builder b = ServiceDefinition.builder(SERVICE).fileDescriptor(file);
    for (MethodDescriptor<StringValue, StringValue> m : methods) {
      b.add(m, new Echo(trace));
    }
    ServiceDefinition s = b.build();
    ServiceDefinition seen =
        ServerInterceptors.intercept(
            s,
            new ServerInterceptor() {
              @Override
              public <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> interceptCall(
                  ServerCall<Req, Resp> call, ServerCallHandler<Req, Resp> next) {
                trace.add(call.method().method() + ":" + call.method().kind());
                return next.startCall(call);
              }
            });

    assertThat(seen.name()).isEqualTo(SERVICE);
    assertThat(seen.fileDescriptor()).isSameAs(file);
    List<Object> seenMethods = new ArrayList<>();
    seen.methods().forEach(d -> seenMethods.add(d.method()));
    assertThat(seenMethods).containsExactlyElementsOf(methods);
    for (MethodDescriptor<StringValue, StringValue> m : methods) {
      handlerOf(seen, m.method()).startCall(new RecordingServerCall<>(m, Headers.EMPTY));
    }
    assertThat(trace)
        .containsExactly(
            "Say:UNARY", "handler",
            "Watch:SERVER_STREAMING", "handler",
            "Collect:CLIENT_STREAMING", "handler",
            "Chat:BIDI_STREAMING", "handler",
            "Note:FIRE_AND_FORGET", "handler");
    // The original is untouched.
    trace.clear();
    handlerOf(s, "Say").startCall(new RecordingServerCall<>(SAY, Headers.EMPTY));
    assertThat(trace).containsExactly("handler");
  }

  @Test
  void nullArgumentsAreRefusedByName() {
    ServiceDefinition s = ServiceDefinition.builder(SERVICE).add(SAY, new Echo(new ArrayList<>())).build();
    ServerInterceptor ok = tracing("a", new ArrayList<>());
    assertThatThrownBy(() -> ServerInterceptors.intercept(null, ok))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("service");
    assertThatThrownBy(() -> ServerInterceptors.intercept(s, (ServerInterceptor[]) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("interceptors");
    assertThatThrownBy(() -> ServerInterceptors.intercept(s, (List<ServerInterceptor>) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("interceptors");
    assertThatThrownBy(() -> ServerInterceptors.intercept(s, ok, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("interceptors[1] is null");
    assertThatThrownBy(() -> new ForwardingServerCall<StringValue, StringValue>(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("delegate");
    assertThatThrownBy(() -> ServerInterceptors.reject(null, Status.OK))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("call");
  }

  @Test
  void noInterceptorsLeaveTheHandlersAlone() {
    Echo echo = new Echo(new ArrayList<>());
    ServiceDefinition s = ServerInterceptors.intercept(ServiceDefinition.builder(SERVICE).add(SAY, echo).build());
    assertThat(s.method("Say").handler()).isSameAs(echo);
  }
}
