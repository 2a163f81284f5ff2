package io.sluice.transport.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The response allowance every server call of the gRPC server (gRPC, gRPC-Web, JSON) uses. */
class ResponseAllowanceTest {
  @Test
  void aUnaryMethodIsAllowedOneResponseAndNeverMore() {
    ResponseAllowance a = new ResponseAllowance(false);
    assertThat(a.first()).isEqualTo(1);
    assertThat(a.take(100)).isTrue();
    a.written(100);
    assertThat(a.more()).isZero();
  }

  @Test
  void aStreamStartsWithAFewThenGetsABatchSizedByTheLargestResponseOnceWritesComplete() {
    ResponseAllowance a = new ResponseAllowance(true);
    assertThat(a.first()).isEqualTo(ResponseAllowance.FIRST_BATCH);
    for (int i = 0; i < ResponseAllowance.FIRST_BATCH; i++) {
      assertThat(a.take(64 << 10)).isTrue();
    }
    assertThat(a.more()).as("256 KiB of the 1 MiB mark still waits: 16 of 64 KiB fit, minus nothing left").isEqualTo(16);
    for (int i = 0; i < ResponseAllowance.FIRST_BATCH; i++) {
      a.written(64 << 10);
    }
    assertThat(a.more()).as("at the target already").isZero();
  }

  @Test
  void smallResponsesGetAFullBatchAndNoMoreWhileTheHighWaterMarkIsReached() {
    ResponseAllowance a = new ResponseAllowance(true);
    a.first();
    for (int i = 0; i < ResponseAllowance.FIRST_BATCH; i++) {
      assertThat(a.take(8)).isTrue();
    }
    assertThat(a.more()).isEqualTo(ResponseAllowance.BATCH);
    for (int i = 0; i < 16; i++) {
      assertThat(a.take(ResponseAllowance.HIGH_WATER / 16)).isTrue();
    }
    assertThat(a.more()).as("a full mark waits").isZero();
  }

  @Test
  void beyondTheAllowanceAResponseIsRefusedOnlyOnceTooMuchWaits() {
    ResponseAllowance a = new ResponseAllowance(true);
    a.first();
    int big = 16 << 20;
    for (int i = 0; i < ResponseAllowance.FIRST_BATCH; i++) {
      assertThat(a.take(big)).isTrue(); // allowed: 64 MiB now wait
    }
    assertThat(a.take(1)).as("not allowed, and 64 MiB already wait").isFalse();
    a.written(big);
    assertThat(a.take(1)).as("not allowed, but under the bound again").isTrue();
  }
}
