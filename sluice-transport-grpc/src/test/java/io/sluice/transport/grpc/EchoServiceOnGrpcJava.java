package io.sluice.transport.grpc;

import com.google.protobuf.Empty;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import sluice.test.echo.EchoOuterClass.EchoReply;
import sluice.test.echo.EchoOuterClass.EchoRequest;

/**
 * {@code sluice.test.echo.EchoService} (sluice-rpc-compiler's test proto) implemented on grpc-java
 * by hand, for Sluice's generated clients to call: {@code Say} answers the text (or fails with
 * {@code action = fail:<code>:<text>}), {@code Repeat} answers {@code count} replies, {@code Join}
 * joins the texts, {@code Chat} answers each, {@code Note} answers Empty.
 */
final class EchoServiceOnGrpcJava {
  private EchoServiceOnGrpcJava() {}

  static final String SERVICE = "sluice.test.echo.EchoService";

  private static <Q extends com.google.protobuf.Message, R extends com.google.protobuf.Message>
      MethodDescriptor<Q, R> method(String name, MethodDescriptor.MethodType type, Q request, R response) {
    return MethodDescriptor.<Q, R>newBuilder()
        .setType(type)
        .setFullMethodName(SERVICE + "/" + name)
        .setRequestMarshaller(ProtoUtils.marshaller(request))
        .setResponseMarshaller(ProtoUtils.marshaller(response))
        .build();
  }

  static ServerServiceDefinition definition() {
    EchoRequest q = EchoRequest.getDefaultInstance();
    EchoReply r = EchoReply.getDefaultInstance();
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(method("Say", MethodDescriptor.MethodType.UNARY, q, r), ServerCalls.asyncUnaryCall(EchoServiceOnGrpcJava::say))
        .addMethod(
            method("Repeat", MethodDescriptor.MethodType.SERVER_STREAMING, q, r),
            ServerCalls.<EchoRequest, EchoReply>asyncServerStreamingCall(
                (req, out) -> {
                  for (int i = 0; i < req.getCount(); i++) {
                    out.onNext(EchoReply.newBuilder().setText(req.getText()).setIndex(i).build());
                  }
                  out.onCompleted();
                }))
        .addMethod(
            method("Join", MethodDescriptor.MethodType.CLIENT_STREAMING, q, r),
            ServerCalls.<EchoRequest, EchoReply>asyncClientStreamingCall(
                out ->
                    new Collecting(
                        texts -> {
                          out.onNext(EchoReply.newBuilder().setText(String.join(",", texts)).build());
                          out.onCompleted();
                        })))
        .addMethod(
            method("Chat", MethodDescriptor.MethodType.BIDI_STREAMING, q, r),
            ServerCalls.<EchoRequest, EchoReply>asyncBidiStreamingCall(
                out ->
                    new StreamObserver<EchoRequest>() {
                      int i;

                      @Override
                      public void onNext(EchoRequest v) {
                        out.onNext(EchoReply.newBuilder().setText("chat:" + v.getText()).setIndex(i++).build());
                      }

                      @Override
                      public void onError(Throwable t) {}

                      @Override
                      public void onCompleted() {
                        out.onCompleted();
                      }
                    }))
        .addMethod(
            method("Note", MethodDescriptor.MethodType.UNARY, q, Empty.getDefaultInstance()),
            ServerCalls.<EchoRequest, Empty>asyncUnaryCall(
                (req, out) -> {
                  out.onNext(Empty.getDefaultInstance());
                  out.onCompleted();
                }))
        .build();
  }

  private static void say(EchoRequest req, StreamObserver<EchoReply> out) {
    String action = req.getAction();
    if (action.startsWith("fail:")) {
      int colon = action.indexOf(':', 5);
      out.onError(
          Status.fromCodeValue(Integer.parseInt(action.substring(5, colon)))
              .withDescription(action.substring(colon + 1))
              .asRuntimeException());
      return;
    }
    out.onNext(EchoReply.newBuilder().setText(req.getText()).build());
    out.onCompleted();
  }

  /** Collects the texts of a request stream, then hands them over. */
  private static final class Collecting implements StreamObserver<EchoRequest> {
    private final java.util.function.Consumer<java.util.List<String>> done;
    private final java.util.List<String> texts = new java.util.ArrayList<>();

    Collecting(java.util.function.Consumer<java.util.List<String>> done) {
      this.done = done;
    }

    @Override
    public void onNext(EchoRequest v) {
      texts.add(v.getText());
    }

    @Override
    public void onError(Throwable t) {}

    @Override
    public void onCompleted() {
      done.accept(texts);
    }
  }
}
