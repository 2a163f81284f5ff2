package io.sluice.flavor.tck;

/** A virtual-threads client calling a futures server. */
class VtToFuturesTest extends InteractionSuite {
  VtToFuturesTest() {
    super(VtFlavor.INSTANCE, FuturesFlavor.INSTANCE, false);
  }
}
