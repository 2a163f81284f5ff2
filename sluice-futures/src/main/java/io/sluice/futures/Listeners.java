package io.sluice.futures;

import io.sluice.Message;
import io.sluice.StreamListener;
import java.util.concurrent.CompletionStage;

/** Stream listeners for request-response responders. */
final class Listeners {
  private Listeners() {}


  /** Cancels the handler's stage when the requester cancels (if the stage can be canceled). */
  static final class CancelStage implements StreamListener {
    private final CompletionStage<?> stage;

    CancelStage(CompletionStage<?> stage) {
      this.stage = stage;
    }

    @Override
    public void onNext(Message message) {
      message.release();
    }

    @Override
    public void onComplete() {}

    @Override
    public void onError(Throwable cause) {
      cancel();
    }

    @Override
    public void onCancel() {
      cancel();
    }

    private void cancel() {
      try {
        stage.toCompletableFuture().cancel(false);
      } catch (UnsupportedOperationException e) {
        // a stage without a future view cannot be canceled; its answer is released when it comes
      }
    }
  }
}
