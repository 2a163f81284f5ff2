package io.sluice.rpc.reactor;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.BytesValue;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.ClientCall;
import io.sluice.rpc.Headers;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.Status;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The innermost ClientCall of an intercepted reactor call, before and after its start. */
class RequesterCallTest {
  private static final MethodDescriptor<BytesValue, BytesValue> UNARY =
      MethodDescriptor.<BytesValue, BytesValue>builder()
          .service("test.Raw")
          .method("Unary")
          .kind(MethodKind.UNARY)
          .requestParser(BytesValue.parser())
          .responseParser(BytesValue.parser())
          .build();

  /**
   * A subscriber that cancels inside onSubscribe cancels the call before it starts: the cancel
   * must not throw (Reactive Streams §3.15), nothing is sent (no requester is even needed), and the
   * listener hears of the end once, when the call starts (a tracing interceptor ends its span).
   */
  @Test
  void aCallCancelledBeforeItStartsIsClosedOnceWhenItStarts() {
    RequesterCall<BytesValue, BytesValue> call = new RequesterCall<>(null, UNARY, CallOptions.DEFAULT);
    call.cancel("cancelled in onSubscribe", null);
    List<Status> closes = new CopyOnWriteArrayList<>();
    call.start(
        new ClientCall.Listener<BytesValue>() {
          @Override
          public void onClose(Status status, Headers trailers) {
            closes.add(status);
          }
        },
        Headers.EMPTY);
    call.sendMessage(BytesValue.getDefaultInstance());
    call.halfClose();
    call.cancel("again", null);
    assertThat(closes).hasSize(1);
    assertThat(closes.get(0).code()).isEqualTo(Status.Code.CANCELLED);
    assertThat(closes.get(0).description()).isEqualTo("cancelled in onSubscribe");
  }
}
