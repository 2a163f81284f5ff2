package io.sluice.flavor.tck;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Requester;
import io.sluice.futures.FuturesRequester;
import io.sluice.grpcstub.GrpcRequester;
import io.sluice.mutiny.MutinyRequester;
import io.sluice.reactor.ReactorRequester;
import io.sluice.rxjava.RxRequester;
import java.lang.reflect.Proxy;
import java.util.function.Function;
import java.util.function.IntToDoubleFunction;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;

/**
 * Every flavor's requester reports its connection's {@link Requester#availability} (the
 * virtual-threads flavor: {@code VtAvailabilityDelegationTest}, Java 21+).
 */
class AvailabilityDelegationTest {

  /** A requester whose availability() is 0.25 and availability(rank) is rank / 10; nothing else. */
  static Requester stub() {
    return (Requester)
        Proxy.newProxyInstance(
            Requester.class.getClassLoader(),
            new Class<?>[] {Requester.class},
            (proxy, method, args) -> {
              if (method.getName().equals("availability")) {
                return args == null ? 0.25 : ((Integer) args[0]) / 10.0;
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }

  static <T> void check(
      Function<Requester, T> wrap, ToDoubleFunction<T> overall, RankFn<T> byRank) {
    T flavor = wrap.apply(stub());
    assertThat(overall.applyAsDouble(flavor)).isEqualTo(0.25);
    assertThat(byRank.of(flavor).applyAsDouble(3)).isEqualTo(0.3);
    assertThat(byRank.of(flavor).applyAsDouble(0)).isEqualTo(0.0);
  }

  interface RankFn<T> {
    IntToDoubleFunction of(T flavor);
  }

  @Test
  void everyFlavorDelegates() {
    check(ReactorRequester::new, ReactorRequester::availability, r -> r::availability);
    check(FuturesRequester::new, FuturesRequester::availability, r -> r::availability);
    check(RxRequester::new, RxRequester::availability, r -> r::availability);
    check(MutinyRequester::new, MutinyRequester::availability, r -> r::availability);
    check(GrpcRequester::new, GrpcRequester::availability, r -> r::availability);
  }
}
