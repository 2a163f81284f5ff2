package io.sluice.flavor.tck;

/** The suite with a futures client and a futures server. */
class FuturesToFuturesTest extends InteractionSuite {
  FuturesToFuturesTest() {
    super(FuturesFlavor.INSTANCE, FuturesFlavor.INSTANCE, false);
  }
}
