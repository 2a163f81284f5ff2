package io.sluice.transport.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class GrpcTimeoutTest {
  @Test
  void parsesEveryUnit() {
    assertThat(GrpcTimeout.parseNanos("7n")).isEqualTo(7);
    assertThat(GrpcTimeout.parseNanos("7u")).isEqualTo(7_000);
    assertThat(GrpcTimeout.parseNanos("7m")).isEqualTo(7_000_000);
    assertThat(GrpcTimeout.parseNanos("7S")).isEqualTo(TimeUnit.SECONDS.toNanos(7));
    assertThat(GrpcTimeout.parseNanos("7M")).isEqualTo(TimeUnit.MINUTES.toNanos(7));
    assertThat(GrpcTimeout.parseNanos("7H")).isEqualTo(TimeUnit.HOURS.toNanos(7));
    assertThat(GrpcTimeout.parseNanos("0m")).isZero();
    assertThat(GrpcTimeout.parseNanos("99999999H")).isEqualTo(TimeUnit.HOURS.toNanos(99_999_999));
  }

  @Test
  void refusesMalformedValues() {
    for (String bad : new String[] {null, "", "m", "5", "5x", "-5m", "5 m", "123456789m", "1.5S", "5s", "5h"}) {
      assertThat(GrpcTimeout.parseNanos(bad)).as(String.valueOf(bad)).isEqualTo(-1);
    }
  }

  @Test
  void formatsInTheFinestUnitThatFitsRoundingUp() {
    assertThat(GrpcTimeout.format(5)).isEqualTo("5n");
    assertThat(GrpcTimeout.format(99_999_999)).isEqualTo("99999999n");
    assertThat(GrpcTimeout.format(100_000_000)).isEqualTo("100000u");
    assertThat(GrpcTimeout.format(100_000_001)).isEqualTo("100001u");
    assertThat(GrpcTimeout.format(TimeUnit.DAYS.toNanos(2))).isEqualTo("172800S");
    assertThat(GrpcTimeout.format(0)).isEqualTo("0n");
    assertThat(GrpcTimeout.format(-3)).isEqualTo("0n");
    assertThat(GrpcTimeout.format(Long.MAX_VALUE)).endsWith("H");
  }

  @Test
  void formattedValuesParseBackToAtLeastTheOriginal() {
    long[] samples = {1, 999, 123_456_789, 987_654_321_012L, TimeUnit.DAYS.toNanos(400)};
    for (long n : samples) {
      long back = GrpcTimeout.parseNanos(GrpcTimeout.format(n));
      assertThat(back).as("%d", n).isGreaterThanOrEqualTo(n);
      assertThat(back - n).as("%d", n).isLessThanOrEqualTo(n / 100_000);
    }
  }
}
