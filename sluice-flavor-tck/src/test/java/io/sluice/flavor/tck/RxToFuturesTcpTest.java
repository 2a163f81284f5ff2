package io.sluice.flavor.tck;

/** An rxjava client calling a futures server over TCP. */
class RxToFuturesTcpTest extends InteractionSuite {
  RxToFuturesTcpTest() {
    super(RxFlavor.INSTANCE, FuturesFlavor.INSTANCE, true);
  }
}
