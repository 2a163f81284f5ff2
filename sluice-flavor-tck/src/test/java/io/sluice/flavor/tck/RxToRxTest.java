package io.sluice.flavor.tck;

/** The suite with an rxjava client and an rxjava server. */
class RxToRxTest extends InteractionSuite {
  RxToRxTest() {
    super(RxFlavor.INSTANCE, RxFlavor.INSTANCE, false);
  }
}
