package io.sluice.benchmarks.balancer;

import io.sluice.Message;
import io.sluice.StreamListener;
import io.sluice.benchmarks.harness.BalancerChild;
import io.sluice.benchmarks.harness.BalancerStrategy;

/** Reads a server's id from a request-response's answer and tells the harness how the call ended. */
final class IdListener implements StreamListener {
  private final BalancerStrategy.Done done;
  private int serverId = -1;

  IdListener(BalancerStrategy.Done done) {
    this.done = done;
  }

  @Override
  public void onNext(Message message) {
    try {
      if (message.data().readableBytes() == BalancerChild.ID_BYTES) {
        serverId = message.data().getInt(message.data().readerIndex());
      }
    } finally {
      message.release();
    }
  }

  @Override
  public void onComplete() {
    if (serverId < 0) {
      done.fail(new IllegalStateException("an answer without a server id"));
    } else {
      done.complete(serverId);
    }
  }

  @Override
  public void onError(Throwable cause) {
    done.fail(cause);
  }

  @Override
  public void onCancel() {
    done.fail(new IllegalStateException("canceled"));
  }
}
