package io.sluice.flavor.tck;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The suite's view of one flavor's client API. */
interface Client {
  /** Completes once sent. */
  CompletableFuture<Void> fireAndForget(String data);

  /** A started request-response. */
  Call requestResponse(String data);

  /** A request-stream; demand only through {@link Probe#request(long)}. */
  Probe requestStream(String data);

  /**
   * A request-channel sending {@code outbound}, then completing if {@code complete}, else leaving
   * its half open until the responder cancels it ({@link Probe#outboundCanceled}).
   */
  Probe requestChannel(List<String> outbound, boolean complete);

  /** A request-response in flight. */
  interface Call {
    /** The response data, or the error. */
    CompletableFuture<String> result();

    /** Cancels the request through the flavor's own API. */
    void cancel();

    /** A call whose response is {@code result} and which {@code cancel} cancels. */
    static Call of(CompletableFuture<String> result, Runnable cancel) {
      return new Call() {
        @Override
        public CompletableFuture<String> result() {
          return result;
        }

        @Override
        public void cancel() {
          cancel.run();
        }
      };
    }
  }
}
