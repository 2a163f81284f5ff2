package io.sluice.grpcstub;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The automatic inbound window: sized in bytes like gRPC's, granted in messages like RSocket. */
class InboundWindowTest {

  /** Delivers {@code count} messages of {@code size} bytes; returns the credit granted meanwhile. */
  private static long deliver(InboundWindow w, int count, int size) {
    long granted = 0;
    for (int i = 0; i < count; i++) {
      long n = w.delivered(size);
      assertThat(n).isNotNegative();
      granted += n;
    }
    return granted;
  }

  @Test
  void startsWithTheDocumentedCredit() {
    InboundWindow w = new InboundWindow();
    assertThat(w.initial()).isEqualTo(GrpcRequester.WINDOW);
    assertThat(w.window()).isEqualTo(GrpcRequester.WINDOW);
  }

  @Test
  void nothingIsGrantedBeforeHalfTheWindowIsUsed() {
    InboundWindow w = new InboundWindow();
    assertThat(deliver(w, GrpcRequester.WINDOW / 2 - 1, 8)).isZero();
  }

  @Test
  void smallMessagesGrowTheWindowToAboutAMebibyteInFlight() {
    InboundWindow w = new InboundWindow();
    deliver(w, GrpcRequester.WINDOW / 2 - 1, 8);
    long n = w.delivered(8);
    long expected = InboundWindow.BYTES / (8 + InboundWindow.FRAME_OVERHEAD);
    assertThat(w.window()).isEqualTo(expected);
    // Half the initial window is still outstanding: the grant fills up to the new window.
    assertThat(n).isEqualTo(expected - GrpcRequester.WINDOW / 2);
  }

  @Test
  void emptyMessagesAreCappedAtTheLargestWindow() {
    InboundWindow w = new InboundWindow();
    deliver(w, GrpcRequester.WINDOW / 2, 0);
    assertThat(w.window()).isEqualTo(InboundWindow.MAX);
  }

  @Test
  void largeMessagesKeepTheSmallestWindow() {
    InboundWindow w = new InboundWindow();
    long granted = deliver(w, GrpcRequester.WINDOW, 4 << 20);
    assertThat(w.window()).isEqualTo(InboundWindow.MIN);
    // Granted credit is never taken back: nothing more until the outstanding credit is below half
    // the new window, then only what fills it.
    long outstanding = granted; // the initial WINDOW was all delivered
    assertThat(outstanding).isBetween((long) InboundWindow.MIN / 2, (long) InboundWindow.MIN);
  }

  @Test
  void theOutstandingCreditNeverExceedsTheWindowAndNeverRunsOut() {
    InboundWindow w = new InboundWindow();
    long outstanding = w.initial();
    int[] sizes = {8, 8, 1000, 100_000, 8, 0, 64 << 10, 3};
    for (int round = 0; round < 200_000; round++) {
      int size = sizes[(round / 5000) % sizes.length];
      outstanding--;
      assertThat(outstanding).as("the peer always has credit left").isPositive();
      long n = w.delivered(size);
      outstanding += n;
      if (n > 0) {
        assertThat(outstanding).isEqualTo(w.window());
      }
      assertThat(outstanding).isLessThanOrEqualTo(InboundWindow.MAX);
    }
  }
}
