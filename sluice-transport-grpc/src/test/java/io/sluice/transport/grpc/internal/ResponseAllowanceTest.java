package io.sluice.transport.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
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

  @Test
  void theCallsOfOneConnectionShareTheBoundOnWhatWaits() {
    ResponseAllowance.Connection connection = new ResponseAllowance.Connection();
    int big = 16 << 20;
    List<ResponseAllowance> calls = new ArrayList<>();
    // Four calls whose handlers ignore onReady: each sends its allowance and then 16 MiB more.
    for (int c = 0; c < 4; c++) {
      ResponseAllowance a = new ResponseAllowance(true, connection);
      calls.add(a);
      a.first();
      for (int i = 0; i < ResponseAllowance.FIRST_BATCH; i++) {
        assertThat(a.take(1)).isTrue();
      }
    }
    for (int c = 0; c < 3; c++) {
      assertThat(calls.get(c).take(big)).as("call %d, beyond its allowance: %d MiB wait on the connection", c, 16 * c).isTrue();
    }
    ResponseAllowance last = calls.get(3);
    assertThat(last.take(big - 4 * ResponseAllowance.FIRST_BATCH))
        .as("48 MiB wait on the connection, none of them this call's: up to 64 MiB").isTrue();
    assertThat(last.take(1)).as("64 MiB wait on the connection, 16 MiB of them this call's").isFalse();
    assertThat(calls.get(0).take(1)).as("another call of it: 16 MiB of its own wait, 64 MiB in all").isFalse();
    calls.get(1).written(big);
    assertThat(calls.get(0).take(1)).as("under the bound again").isTrue();
    assertThat(connection.queued()).isEqualTo(3L * big + 1);
  }
}
