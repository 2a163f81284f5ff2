package io.sluice.flavor.tck;

import io.sluice.virtualthreads.BlockingRequester;
import org.junit.jupiter.api.Test;

/** {@link AvailabilityDelegationTest} for the virtual-threads flavor (compiled on Java 21+). */
class VtAvailabilityDelegationTest {

  @Test
  void theBlockingRequesterDelegates() {
    AvailabilityDelegationTest.check(
        BlockingRequester::new, BlockingRequester::availability, r -> r::availability);
  }
}
