package io.sluice.flavor.tck;

/** An rxjava client calling a reactor server. */
class RxToReactorTest extends InteractionSuite {
  RxToReactorTest() {
    super(RxFlavor.INSTANCE, ReactorFlavor.INSTANCE, false);
  }
}
