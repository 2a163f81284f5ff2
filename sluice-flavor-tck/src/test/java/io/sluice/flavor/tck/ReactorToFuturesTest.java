package io.sluice.flavor.tck;

/** A reactor client calling a futures server. */
class ReactorToFuturesTest extends InteractionSuite {
  ReactorToFuturesTest() {
    super(ReactorFlavor.INSTANCE, FuturesFlavor.INSTANCE, false);
  }
}
