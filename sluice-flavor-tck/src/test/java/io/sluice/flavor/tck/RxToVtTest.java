package io.sluice.flavor.tck;

/** An rxjava client calling a virtual-threads server. */
class RxToVtTest extends InteractionSuite {
  RxToVtTest() {
    super(RxFlavor.INSTANCE, VtFlavor.INSTANCE, false);
  }
}
