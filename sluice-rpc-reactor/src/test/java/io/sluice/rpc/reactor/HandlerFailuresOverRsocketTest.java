package io.sluice.rpc.reactor;

import static io.sluice.rpc.reactor.fixture.RpcTcp.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.BytesValue;
import com.google.protobuf.ByteString;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServerInterceptors;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.reactor.fixture.RpcTcp;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import sluice.test.echo.EchoOuterClass.EchoRequest;
import sluice.test.echo.ReactorEchoServiceClient;
import sluice.test.echo.ReactorEchoServiceServer;

/**
 * A handler, or a listener of the raw call model, that fails with an exception carrying no status
 * ends its call UNKNOWN over RSocket, and the exception's text stays on the server; a service
 * behind {@link ServerInterceptors#exposeErrorMessages()} sends the text.
 */
class HandlerFailuresOverRsocketTest {
  private static final String SECRET = "password authentication failed for user svc@10.0.0.3";
  private static final MethodDescriptor<BytesValue, BytesValue> LISTENER_THROWS = raw("ListenerThrows");
  private static final MethodDescriptor<BytesValue, BytesValue> START_THROWS = raw("StartThrows");

  private static RpcTcp tcp;
  private static ReactorRequester plain;
  private static ReactorRequester exposing;

  private static MethodDescriptor<BytesValue, BytesValue> raw(String name) {
    return MethodDescriptor.<BytesValue, BytesValue>builder()
        .service("test.Failing")
        .method(name)
        .kind(MethodKind.UNARY)
        .requestParser(BytesValue.parser())
        .responseParser(BytesValue.parser())
        .build();
  }

  /** Methods of the raw call model: one whose listener throws, one whose start throws. */
  private static ServiceDefinition failing() {
    return ServiceDefinition.builder("test.Failing")
        .add(
            LISTENER_THROWS,
            (ServerCall<BytesValue, BytesValue> call) -> {
              call.request(1);
              return new ServerCall.Listener<BytesValue>() {
                @Override
                public void onMessage(BytesValue message) {
                  throw new IllegalStateException(SECRET);
                }

                @Override
                public void onHalfClose() {}

                @Override
                public void onCancel() {}

                @Override
                public void onReady(long n) {}
              };
            })
        .add(
            START_THROWS,
            (ServerCall<BytesValue, BytesValue> call) -> {
              throw new IllegalArgumentException(SECRET);
            })
        .build();
  }

  @BeforeAll
  static void start() throws Exception {
    tcp = new RpcTcp();
    plain =
        tcp.connect(
            tcp.serve(
                ServiceRegistry.builder()
                    .add(new ReactorEchoServiceServer(new EchoImpl()))
                    .add(failing())
                    .build()));
    exposing =
        tcp.connect(
            tcp.serve(
                ServiceRegistry.builder()
                    .add(ServerInterceptors.intercept(
                        new ReactorEchoServiceServer(new EchoImpl()), ServerInterceptors.exposeErrorMessages()))
                    .add(ServerInterceptors.intercept(failing(), ServerInterceptors.exposeErrorMessages()))
                    .build()));
  }

  @AfterAll
  static void stop() throws Exception {
    tcp.close();
  }

  private static Status statusOf(Supplier<?> call) {
    Throwable[] seen = new Throwable[1];
    assertThatThrownBy(call::get).satisfies(t -> seen[0] = t).isInstanceOf(StatusException.class);
    return ((StatusException) seen[0]).status();
  }

  private static Status say(ReactorRequester r, String action) {
    ReactorEchoServiceClient c = new ReactorEchoServiceClient(r);
    return statusOf(() -> c.say(EchoRequest.newBuilder().setText("x").setAction(action).build()).block(WAIT));
  }

  private static Status raw(ReactorRequester r, MethodDescriptor<BytesValue, BytesValue> m) {
    BytesValue req = BytesValue.of(ByteString.copyFromUtf8("x"));
    return statusOf(() -> ReactorClientCalls.unary(r, m, CallOptions.DEFAULT, req).block(WAIT));
  }

  @Test
  void theCallerGetsUnknownWithoutTheExceptionsText() {
    for (Status s :
        new Status[] {
          say(plain, "throw"), say(plain, "error:" + SECRET), raw(plain, LISTENER_THROWS), raw(plain, START_THROWS)
        }) {
      assertThat(s.code()).isEqualTo(Status.Code.UNKNOWN);
      assertThat(s.description()).doesNotContain("password").doesNotContain("handler threw").isEmpty();
    }
  }

  @Test
  void aStatusTheHandlerChoseIsSentAsItIs() {
    Status s = say(plain, "fail:5:no such user svc");
    assertThat(s).isEqualTo(Status.of(Status.Code.NOT_FOUND, "no such user svc"));
  }

  @Test
  void aServiceThatOptsInSendsTheText() {
    assertThat(say(exposing, "throw")).isEqualTo(Status.of(Status.Code.UNKNOWN, "handler threw"));
    assertThat(say(exposing, "error:" + SECRET)).isEqualTo(Status.of(Status.Code.UNKNOWN, SECRET));
    assertThat(raw(exposing, LISTENER_THROWS)).isEqualTo(Status.of(Status.Code.UNKNOWN, SECRET));
    assertThat(raw(exposing, START_THROWS)).isEqualTo(Status.of(Status.Code.UNKNOWN, SECRET));
    assertThat(say(exposing, "fail:5:no such user svc")).isEqualTo(Status.of(Status.Code.NOT_FOUND, "no such user svc"));
  }
}
